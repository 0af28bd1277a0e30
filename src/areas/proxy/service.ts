// The model proxies as one service, built once by the composition root: the upstreams (pools,
// breakers), the usage ledger and the governed-call flow of each wire format. The routes serve it
// over HTTP; evaluations call it in-process as a ModelCaller (a model target is a chat completion
// through the same flow, so policy, budgets and recording apply as to any agent's call).
import type { Static } from 'typebox';
import Value from 'typebox/value';
import type { Config } from '../../infra/config/schema.js';
import { PROBLEM_TYPE_PREFIX, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { TRACING_OFF, type GatewayTracer } from '../../infra/lib/trace-span.js';
import type { SharedRedis } from '../../infra/redis.js';
import type { Pipeline } from '../../engine/pipeline/decide.js';
import type { ModelCaller } from '../eval/types.js';
import type { RunGovernor } from '../usage/service.js';
import { ChatCompletionsAdapter, type ChatBody } from './chat-completions.js';
import { GovernedCallFlow, type TurnSink, type WholeAnswer } from './flow.js';
import { MessagesAdapter, type MessagesBody } from './messages.js';
import { ResponsesAdapter, type ResponsesWireBody } from './responses.js';
import { ChatCompletionsBody, type ReliabilitySchema } from './schemas.js';
import { SharedBreakers } from './shared-breaker.js';
import { Upstreams } from './upstream.js';
import { UsageLedger } from './usage.js';

export interface ProxyServiceDeps {
  config: Config;
  clock: Clock;
  pipeline: Pipeline;
  /** Daily budgets, usage per agent and model in the database, loops of proposed tool calls. */
  runs: RunGovernor;
  /** Records the turns of proxied chats that name a session (escalation, issue 21); absent: none recorded. */
  turns?: TurnSink;
  /** The gateway's self-tracing (src/infra/tracing.ts); absent: off. */
  tracer?: GatewayTracer;
  /** Shared by every gateway process: the upstreams' circuit breakers live there; absent or null: each process's own. */
  redis?: SharedRedis | null;
}

export type Reliability = Static<typeof ReliabilitySchema>;

/** What an upstream error body is called when it comes back to a caller inside the gateway. */
const UPSTREAM_ERROR_TYPE = `${PROBLEM_TYPE_PREFIX}upstream-error`;

export class ProxyService implements ModelCaller {
  readonly upstreams: Upstreams;
  readonly usage = new UsageLedger();
  /** POST /v1/chat/completions, and evaluations' model targets. */
  readonly chat: GovernedCallFlow<ChatBody>;
  /** POST /v1/responses: same upstream, key and checks as chat completions. */
  readonly responses: GovernedCallFlow<ResponsesWireBody>;
  /** POST /v1/messages. */
  readonly messages: GovernedCallFlow<MessagesBody>;
  /** Where the proxy routes start their server spans (TRACING_OFF unless tracing is configured). */
  readonly tracer: GatewayTracer;
  private readonly holdbackChars: number;

  constructor({ config, clock, pipeline, runs, turns, tracer = TRACING_OFF, redis = null }: ProxyServiceDeps) {
    this.tracer = tracer;
    const breakers =
      redis === null
        ? undefined
        : new SharedBreakers(redis.client, {
            prefix: config.redis_key_prefix,
            timeoutMs: config.redis_state_timeout_ms,
            failures: config.upstream_breaker_failures,
            cooldownMs: config.upstream_breaker_cooldown_ms,
            trialLeaseMs: config.upstream_timeout_ms,
          });
    this.upstreams = new Upstreams(
      {
        timeoutMs: config.upstream_timeout_ms,
        retries: config.upstream_retries,
        breakerFailures: config.upstream_breaker_failures,
        breakerCooldownMs: config.upstream_breaker_cooldown_ms,
      },
      clock,
      breakers,
    );
    this.holdbackChars = config.stream_holdback_chars;
    // Made now, so that GET /api/reliability lists the upstreams before their first call.
    const openaiUpstream = this.upstreams.get('openai', config.upstream_openai_base_url);
    const anthropicUpstream = this.upstreams.get('anthropic', config.upstream_anthropic_base_url);
    const shared = { pipeline, usage: this.usage, runs, requestBudgetMs: config.request_budget_ms, ...(turns === undefined ? {} : { turns }) };
    const openai = { ...shared, upstream: () => openaiUpstream, apiKey: config.upstream_openai_api_key };
    this.chat = new GovernedCallFlow(new ChatCompletionsAdapter(this.holdbackChars), openai);
    this.responses = new GovernedCallFlow(new ResponsesAdapter(this.holdbackChars), openai);
    this.messages = new GovernedCallFlow(new MessagesAdapter(this.holdbackChars), { ...shared, upstream: () => anthropicUpstream, apiKey: config.upstream_anthropic_api_key });
  }

  /** GET /api/reliability: breakers, the settings they run under, usage since start. */
  reliability(): Reliability {
    const { settings } = this.upstreams;
    return {
      upstreams: this.upstreams.list(),
      settings: {
        upstream_timeout_ms: settings.timeoutMs,
        upstream_retries: settings.retries,
        upstream_breaker_failures: settings.breakerFailures,
        upstream_breaker_cooldown_ms: settings.breakerCooldownMs,
        stream_holdback_chars: this.holdbackChars,
      },
      usage: this.usage.list(),
    };
  }

  /**
   * One whole chat completion as `agent`, through the flow POST /v1/chat/completions runs: the
   * answer with `parapet`, a block as the 200 refusal, the gateway's problems (no key, breaker
   * open) as their problem body. An upstream error keeps its status; its body becomes a problem
   * whose `detail` is the upstream's message and whose `upstream` is the body as it came.
   */
  async complete(input: Parameters<ModelCaller['complete']>[0]): Promise<{ status: number; answer: Record<string, unknown> }> {
    // The flow writes tokenized text into the body: the caller's own object stays as it was.
    const body = structuredClone(input.body) as ChatBody;
    if (!Value.Check(ChatCompletionsBody, body)) {
      const issue = problem('invalid-request', 'a chat completion needs a model (1 to 256 characters) and at least one message with a role');
      return { status: issue.status, answer: { ...issue.toBody() } };
    }
    // Not a stream: the caller wants the whole answer.
    delete body.stream;
    const answer = await this.chat.whole({ agent: input.agent, body, headers: {}, traceId: input.traceId, signal: input.signal });
    return { status: answer.status, answer: answerBody(answer) };
  }

  async close(): Promise<void> {
    await this.upstreams.close();
  }
}

function answerBody({ status, body }: WholeAnswer): Record<string, unknown> {
  if (typeof body !== 'string') return body;
  let parsed: unknown = body;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON: the text itself is what the upstream said.
  }
  return { type: UPSTREAM_ERROR_TYPE, title: 'The model upstream answered with an error', status, detail: upstreamMessage(parsed), upstream: parsed };
}

/** The upstream's own words: the OpenAI-style `error.message`, else a short piece of the body. */
function upstreamMessage(parsed: unknown): string {
  if (parsed !== null && typeof parsed === 'object') {
    const error = (parsed as { error?: unknown }).error;
    if (error !== null && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
    if (typeof error === 'string') return error;
  }
  const text = typeof parsed === 'string' ? parsed : JSON.stringify(parsed);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
