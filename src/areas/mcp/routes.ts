// GET|POST /api/mcp-servers, POST /api/mcp-servers/{name}/scan, POST /api/mcp-servers/{name}/tools
// (operator API) and POST /v1/mcp/call (agent traffic).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { speakingAgent, type Principal } from '../../infra/auth/principal.js';
import { traceRequests, TRACING_OFF, type GatewayTracer } from '../../infra/tracing.js';
import { GUARD_BODY_LIMIT } from '../guard/schemas.js';
import {
  ListServersQuery,
  McpCallAnswer,
  McpCallBody,
  McpServerList,
  McpServerSchema,
  RegisterServerBody,
  ReviewBody,
  ScanBody,
  ScanResultSchema,
  ServerNameParams,
} from './schemas.js';
import type { McpService } from './service.js';

const tags = ['mcp'];

export interface McpRoutesOptions {
  mcp: McpService;
  /** The gateway's self-tracing (src/infra/tracing.ts); absent: off. */
  tracer?: GatewayTracer;
}

export const mcpRoutes: FastifyPluginAsyncTypebox<McpRoutesOptions> = async (app, { mcp, tracer = TRACING_OFF }) => {
  app.get(
    '/api/mcp-servers',
    { config: { access: 'viewer' }, schema: { tags, summary: 'Registered MCP servers with their tools and pins', querystring: ListServersQuery, response: { 200: McpServerList } } },
    async (request) => mcp.list(request.query),
  );

  app.post(
    '/api/mcp-servers',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Register an MCP server or change its record (stdio servers: admin only)',
        body: RegisterServerBody,
        response: { 200: McpServerSchema, 201: McpServerSchema },
      },
    },
    async (request, reply) => {
      const { created, server } = await mcp.register(request.principal as Principal, request.body);
      return reply.code(created ? 201 : 200).send(server);
    },
  );

  app.post(
    '/api/mcp-servers/:name/scan',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Scan a server: the listing in tools, or fetched from the live server; answers the diff',
        params: ServerNameParams,
        body: ScanBody,
        response: { 200: ScanResultSchema },
      },
    },
    async (request) => mcp.scan(request.principal as Principal, request.params.name, request.body.tools),
  );

  app.post(
    '/api/mcp-servers/:name/tools',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Pin the reviewed definitions of a server's tools (changes need accept_changes and a note)",
        params: ServerNameParams,
        body: ReviewBody,
        response: { 200: McpServerSchema },
      },
    },
    async (request) => mcp.review(request.principal as Principal, request.params.name, request.body),
  );

  // Agent traffic in its own scope: a server span per governed call (joining the caller's
  // traceparent), none for the operator routes above.
  const trafficRoutes: FastifyPluginAsyncTypebox = async (traffic) => {
    traceRequests(traffic, tracer);
    traffic.post(
      '/v1/mcp/call',
      {
        config: { access: 'traffic' },
        bodyLimit: GUARD_BODY_LIMIT,
        schema: {
          tags,
          summary: 'Govern one MCP call: arguments as tool_args, the result (when given) as tool_result',
          description:
            'Answers a Decision like every guard call: the Decision of the stricter part (by verdict, then effective_verdict; ' +
            'the arguments on a tie), named in decided_by, with each part\'s Decision in decisions.',
          body: McpCallBody,
          response: { 200: McpCallAnswer },
        },
      },
      async (request) => {
        const header = request.headers['x-parapet-agent'];
        // The agent comes from an agent credential, or the X-Parapet-Agent header under a traffic token (CONTRACT.md).
        const agent = speakingAgent(request.principal as Principal, { header: typeof header === 'string' ? header : undefined });
        const span = request.traceSpan;
        span?.set({ 'parapet.agent': agent, 'parapet.mcp.server': request.body.server, 'parapet.mcp.tool': request.body.tool });
        return mcp.call(agent, request.body, span);
      },
    );
  };
  await app.register(trafficRoutes);
};
