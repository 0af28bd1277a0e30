// Talks to live MCP servers with the official SDK: lists a server's tools (streamable HTTP, SSE
// or stdio) under a timeout, and keeps one connection per watched server so that its
// `notifications/tools/list_changed` triggers a rescan. Knows nothing of storage or policy.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ListedTool } from './pin.js';

export const MCP_TRANSPORTS = ['streamable_http', 'stdio', 'sse'] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

/** Where a server is and how to reach it. */
export interface ServerAddress {
  name: string;
  transport: McpTransport;
  url: string | null;
  command: string | null;
  args: readonly string[];
}

export interface Listing {
  tools: ListedTool[];
  /** What the server says of itself in its initialize answer. */
  serverVersion: string | null;
}

/** At most this many pages of tools/list: a server that never stops paging is not listed forever. */
const MAX_PAGES = 50;

export class LiveServers {
  private readonly watched = new Map<string, { client: Client; address: string }>();

  /**
   * @param onListChanged called when a watched server says its tool list changed
   * @param timeoutMs how long connecting and listing may take together
   */
  constructor(
    private readonly clientVersion: string,
    private readonly onListChanged: (server: string) => void,
    private readonly timeoutMs = 10_000,
  ) {}

  /**
   * Lists the server's tools. With `watch`, the connection stays open (replacing an earlier one
   * to another address) and list_changed notifications call back; without, it is closed.
   */
  async list(server: ServerAddress, watch: boolean): Promise<Listing> {
    const address = addressKey(server);
    const held = this.watched.get(server.name);
    if (held !== undefined && held.address === address) {
      try {
        return await this.listWith(held.client);
      } catch {
        // The held connection went away (server restarted): connect afresh below.
        await this.forget(server.name);
      }
    } else if (held !== undefined) {
      await this.forget(server.name);
    }
    const client = new Client({ name: 'parapet', version: this.clientVersion }, { capabilities: {} });
    let keep = false;
    try {
      await withTimeout(client.connect(transportFor(server), { timeout: this.timeoutMs }), this.timeoutMs, `connecting to ${server.name}`);
      const listing = await this.listWith(client);
      if (watch && client.getServerCapabilities()?.tools?.listChanged === true) {
        client.setNotificationHandler(ToolListChangedNotificationSchema, async () => this.onListChanged(server.name));
        client.onclose = () => {
          if (this.watched.get(server.name)?.client === client) this.watched.delete(server.name);
        };
        this.watched.set(server.name, { client, address });
        keep = true;
      }
      return listing;
    } finally {
      if (!keep) await client.close().catch(() => undefined);
    }
  }

  /** Drops the connection held for a server, if any. */
  async forget(server: string): Promise<void> {
    const held = this.watched.get(server);
    if (held === undefined) return;
    this.watched.delete(server);
    await held.client.close().catch(() => undefined);
  }

  isWatching(server: string): boolean {
    return this.watched.has(server);
  }

  async close(): Promise<void> {
    await Promise.all([...this.watched.keys()].map((name) => this.forget(name)));
  }

  private async listWith(client: Client): Promise<Listing> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = await withTimeout(
        client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: this.timeoutMs }),
        this.timeoutMs,
        'listing tools',
      );
      for (const tool of answer.tools) tools.push(listedTool(tool));
      cursor = answer.nextCursor;
      if (cursor === undefined) break;
    }
    return { tools, serverVersion: client.getServerVersion()?.version ?? null };
  }
}

function listedTool(tool: { name: string; title?: string | undefined; description?: string | undefined; inputSchema: unknown; outputSchema?: unknown; annotations?: unknown }): ListedTool {
  const listed: ListedTool = { name: tool.name };
  if (tool.title !== undefined) listed.title = tool.title;
  if (tool.description !== undefined) listed.description = tool.description;
  if (isObject(tool.inputSchema)) listed.inputSchema = tool.inputSchema;
  if (isObject(tool.outputSchema)) listed.outputSchema = tool.outputSchema;
  if (isObject(tool.annotations)) listed.annotations = tool.annotations;
  return listed;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function transportFor(server: ServerAddress): Transport {
  if (server.transport === 'stdio') {
    if (server.command === null) throw new Error(`server ${server.name} has no command`);
    // Only PATH and HOME reach the child: the gateway's own secrets stay in the gateway.
    const env: Record<string, string> = {};
    for (const key of ['PATH', 'HOME']) if (process.env[key] !== undefined) env[key] = process.env[key] as string;
    return new StdioClientTransport({ command: server.command, args: [...server.args], env, stderr: 'ignore' });
  }
  if (server.url === null) throw new Error(`server ${server.name} has no url`);
  const url = new URL(server.url);
  return server.transport === 'sse' ? new SSEClientTransport(url) : new StreamableHTTPClientTransport(url);
}

function addressKey(server: ServerAddress): string {
  return JSON.stringify([server.transport, server.url, server.command, server.args]);
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
