// The model proxies (spec 01 §4: POST /v1/chat/completions, POST /v1/responses, POST /v1/messages) and
// GET /api/reliability (spec 02: circuit-breaker state and live budget consumption). Handlers are a
// few lines: every proxy is the one governed-call flow (flow.ts) with its wire format's adapter
// (chat-completions.ts, responses.ts, messages.ts), built by the service (service.ts); see README.md.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { speakingAgent, type Principal } from '../../infra/auth/principal.js';
import { traceRequests } from '../../infra/tracing.js';
import { ResponseObjectSchema, ResponsesBody } from './responses.js';
import { ChatCompletionSchema, ChatCompletionsBody, MessageSchema, MessagesBody, PROXY_BODY_LIMIT, ReliabilitySchema } from './schemas.js';
import type { ProxyService } from './service.js';

export interface ProxyRoutesOptions {
  /** The upstreams, the usage ledger and the flow of each wire format (service.ts). */
  proxy: ProxyService;
}

export const proxyRoutes: FastifyPluginAsyncTypebox<ProxyRoutesOptions> = async (app, { proxy }) => {
  // A server span per proxied call, joining the caller's traceparent; nothing when tracing is off.
  traceRequests(app, proxy.tracer);
  /** One proxy route: agent traffic, the proxy body limit, the agent named by the credential or X-Parapet-Agent. */
  const proxyRoute = (
    path: string,
    summary: string,
    body: TSchema,
    answer: TSchema,
    flow: { handle(request: FastifyRequest, reply: FastifyReply, agent: string): Promise<void> },
    access: { acceptApiKeyHeader?: boolean } = {},
  ) =>
    app.post(
      path,
      { config: { access: 'traffic', ...access }, bodyLimit: PROXY_BODY_LIMIT, schema: { tags: ['proxy'], summary, body, response: { 200: answer } } },
      async (request, reply) => {
        const header = request.headers['x-parapet-agent'];
        const agent = speakingAgent(request.principal as Principal, { header: typeof header === 'string' ? header : undefined });
        request.traceSpan?.set({ 'parapet.agent': agent });
        await flow.handle(request, reply, agent);
        return reply;
      },
    );

  proxyRoute('/v1/chat/completions', 'Chat completions through the gateway: the request and the answer are checked; a block is a 200 refusal', ChatCompletionsBody, ChatCompletionSchema, proxy.chat);
  proxyRoute('/v1/responses', 'Responses through the gateway: the request, its built-in tools and the answer are checked; a block is a 200 incomplete response', ResponsesBody, ResponseObjectSchema, proxy.responses);
  // The provider's own client sends its key as x-api-key (CONTRACT.md "Credentials").
  proxyRoute('/v1/messages', 'Messages through the gateway: the request and the answer are checked; a block is a 200 refusal', MessagesBody, MessageSchema, proxy.messages, { acceptApiKeyHeader: true });

  app.get(
    '/api/reliability',
    { config: { access: 'viewer' }, schema: { tags: ['reliability'], summary: 'Upstream circuit breakers, retries and model usage', response: { 200: ReliabilitySchema } } },
    async () => proxy.reliability(),
  );
};
