// A real MCP server for tests, built with the official SDK (McpServer + StreamableHTTPServerTransport
// on node:http, 127.0.0.1, port 0). Stateful: each client session gets its own McpServer, so that a
// tool change reaches every connected client as notifications/tools/list_changed.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

export interface TestTool {
  name: string;
  description: string;
  readOnly?: boolean;
}

export interface TestMcpServer {
  url: string;
  /** Replaces a tool's description on every session (each sends tools/list_changed) and for new ones. */
  describe(name: string, description: string): void;
  /** Renames a tool (same description and schema) everywhere. */
  rename(from: string, to: string): void;
  close(): Promise<void>;
}

export async function startMcpServer(tools: TestTool[], version = '1.0.0'): Promise<TestMcpServer> {
  const definitions = new Map(tools.map((tool) => [tool.name, { ...tool }]));
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer; registered: Map<string, RegisteredTool> }>();

  const register = (server: McpServer, tool: TestTool): RegisteredTool =>
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: { city: z.string().describe('the city') }, annotations: { readOnlyHint: tool.readOnly ?? true } },
      async ({ city }) => ({ content: [{ type: 'text', text: `Sunny in ${city}` }] }),
    );

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = new McpServer({ name: 'test-weather', version }, { capabilities: { tools: { listChanged: true } } });
    const registered = new Map<string, RegisteredTool>();
    for (const tool of definitions.values()) registered.set(tool.name, register(server, tool));
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, registered });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  };

  const http: Server = createServer((request, response) => {
    void (async () => {
      const body = request.method === 'POST' ? await readJson(request) : undefined;
      const id = request.headers['mcp-session-id'];
      const session = typeof id === 'string' ? sessions.get(id) : undefined;
      const transport = session?.transport ?? (typeof id === 'string' ? undefined : await newSession());
      if (transport === undefined) {
        response.writeHead(404).end();
        return;
      }
      await transport.handleRequest(request, response, body);
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    describe(name, description) {
      const tool = definitions.get(name);
      if (tool === undefined) throw new Error(`no tool ${name}`);
      tool.description = description;
      // RegisteredTool.update sends notifications/tools/list_changed on each session.
      for (const session of sessions.values()) session.registered.get(name)?.update({ description });
    },
    rename(from, to) {
      const tool = definitions.get(from);
      if (tool === undefined) throw new Error(`no tool ${from}`);
      definitions.delete(from);
      definitions.set(to, { ...tool, name: to });
      for (const session of sessions.values()) {
        const registered = session.registered.get(from);
        session.registered.delete(from);
        registered?.update({ name: to });
        if (registered !== undefined) session.registered.set(to, registered);
      }
    },
    async close() {
      for (const session of sessions.values()) await session.transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}
