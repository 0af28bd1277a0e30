// The model proxies (spec 01 §4: POST /v1/chat/completions, POST /v1/responses, POST /v1/messages) and
// GET /api/reliability (spec 02: circuit-breaker state and live budget consumption). Handlers are a
// few lines: every proxy is the one governed-call flow (flow.ts) with its wire format's adapter
// (chat-completions.ts, responses.ts, messages.ts); see README.md.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { speakingAgent, type Principal } from '../../infra/auth/principal.js';
import type { Config } from '../../infra/config/schema.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Pipeline } from '../../engine/pipeline/decide.js';
import type { RunGovernor } from '../usage/service.js';
import { ChatCompletionsAdapter } from './chat-completions.js';
import { GovernedCallFlow } from './flow.js';
import { ResponseObjectSchema, ResponsesAdapter, ResponsesBody } from './responses.js';
import { MessagesAdapter } from './messages.js';
import { ChatCompletionSchema, ChatCompletionsBody, MessageSchema, MessagesBody, PROXY_BODY_LIMIT, ReliabilitySchema } from './schemas.js';
import { Upstreams } from './upstream.js';
import { UsageLedger } from './usage.js';

export interface ProxyRoutesOptions {
  pipeline: Pipeline;
  config: Config;
  clock: Clock;
  /** Daily budgets, usage per agent and model in the database, loops of proposed tool calls. */
  runs: RunGovernor;
}

export const proxyRoutes: FastifyPluginAsyncTypebox<ProxyRoutesOptions> = async (app, { pipeline, config, clock, runs }) => {
  const upstreams = new Upstreams(
    {
      timeoutMs: config.upstream_timeout_ms,
      retries: config.upstream_retries,
      breakerFailures: config.upstream_breaker_failures,
      breakerCooldownMs: config.upstream_breaker_cooldown_ms,
    },
    clock,
  );
  app.addHook('onClose', async () => upstreams.close());
  const usage = new UsageLedger();
  const openai = { baseUrl: config.upstream_openai_base_url, apiKey: config.upstream_openai_api_key };
  const holdbackChars = config.stream_holdback_chars;
  // Made now, so that GET /api/reliability lists the upstream before its first call.
  const openaiUpstream = upstreams.get('openai', openai.baseUrl);

  /** One proxy route: agent traffic, the proxy body limit, the agent named by the credential or X-Parapet-Agent. */
  const proxyRoute = (
    path: string,
    summary: string,
    body: TSchema,
    answer: TSchema,
    proxy: { handle(request: FastifyRequest, reply: FastifyReply, agent: string): Promise<void> },
    access: { acceptApiKeyHeader?: boolean } = {},
  ) =>
    app.post(
      path,
      { config: { access: 'traffic', ...access }, bodyLimit: PROXY_BODY_LIMIT, schema: { tags: ['proxy'], summary, body, response: { 200: answer } } },
      async (request, reply) => {
        const header = request.headers['x-parapet-agent'];
        const agent = speakingAgent(request.principal as Principal, { header: typeof header === 'string' ? header : undefined });
        await proxy.handle(request, reply, agent);
        return reply;
      },
    );

  const anthropicUpstream = upstreams.get('anthropic', config.upstream_anthropic_base_url);
  const shared = { pipeline, usage, runs, requestBudgetMs: config.request_budget_ms };
  const chat = new GovernedCallFlow(new ChatCompletionsAdapter(holdbackChars), { ...shared, upstream: () => openaiUpstream, apiKey: openai.apiKey });
  // The responses wire format: same upstream, key and checks as chat completions (responses.ts).
  const responses = new GovernedCallFlow(new ResponsesAdapter(holdbackChars), { ...shared, upstream: () => openaiUpstream, apiKey: openai.apiKey });
  const messages = new GovernedCallFlow(new MessagesAdapter(holdbackChars), { ...shared, upstream: () => anthropicUpstream, apiKey: config.upstream_anthropic_api_key });

  proxyRoute('/v1/chat/completions', 'Chat completions through the gateway: the request and the answer are checked; a block is a 200 refusal', ChatCompletionsBody, ChatCompletionSchema, chat);
  proxyRoute('/v1/responses', 'Responses through the gateway: the request, its built-in tools and the answer are checked; a block is a 200 incomplete response', ResponsesBody, ResponseObjectSchema, responses);
  // The provider's own client sends its key as x-api-key (CONTRACT.md "Credentials").
  proxyRoute('/v1/messages', 'Messages through the gateway: the request and the answer are checked; a block is a 200 refusal', MessagesBody, MessageSchema, messages, { acceptApiKeyHeader: true });

  app.get(
    '/api/reliability',
    { config: { access: 'viewer' }, schema: { tags: ['reliability'], summary: 'Upstream circuit breakers, retries and model usage', response: { 200: ReliabilitySchema } } },
    async () => ({
      upstreams: upstreams.list(),
      settings: {
        upstream_timeout_ms: upstreams.settings.timeoutMs,
        upstream_retries: upstreams.settings.retries,
        upstream_breaker_failures: upstreams.settings.breakerFailures,
        upstream_breaker_cooldown_ms: upstreams.settings.breakerCooldownMs,
        stream_holdback_chars: holdbackChars,
      },
      usage: usage.list(),
    }),
  );
};
