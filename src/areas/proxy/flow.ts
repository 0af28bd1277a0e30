// The governed-call flow of every model proxy, free of any wire format: budget admission (with the
// call's worst-case cost reserved, settled by its usage or given back), the request's checks, the
// upstream send, the whole or streamed answer, the refusal, usage recording and loop stops. What
// differs between formats (where the texts and tool calls sit in a body, how an answer, a stream
// event and a refusal look) is a WireAdapter; adding a format is one adapter (README.md).
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problem } from '../../infra/http/problems.js';
import type { Pipeline } from '../../engine/pipeline/decide.js';
import { RequestBudget } from '../../engine/pipeline/request-budget.js';
import type { CostHold, ProposedCall, RunGovernor, RunStop } from '../usage/service.js';
import { ProxyChecks, parapetField, stops, type CheckedPart, type ParapetField } from './checks.js';
import { SseParser } from './sse.js';
import { EventStream } from './stream.js';
import { UpstreamUnavailable, type Upstream, type UpstreamAnswer, type UpstreamCall } from './upstream.js';
import type { TokenUsage, UsageLedger } from './usage.js';

/** What every proxied body has: the model, and whether the caller wants a stream. */
export interface ProxiedBody {
  model: string;
  stream?: boolean | undefined;
}

/** One governed call as the adapter sees it once the request passed its checks. */
export interface GovernedCall<Body extends ProxiedBody> {
  agent: string;
  sessionId: string;
  body: Body;
  checks: ProxyChecks;
  /** The request's checks, first in the answer's `parapet.decisions`. */
  requestParts: CheckedPart[];
  /** The call's reserved cost, settled with its usage. */
  hold: CostHold;
  request: FastifyRequest;
}

/** What the loop check and the usage ledger need of a whole answer. */
export interface AnswerFacts {
  /** The answer's `usage` as the wire carries it (null when there is none). */
  usage: unknown;
  toolCalls: ProposedCall[];
}

/** Where a stream translator writes: the caller's event stream (already open, verdict pending). */
export interface StreamSink {
  readonly events: EventStream;
}

/**
 * What a translator says after an upstream event: `more` (read on), `complete` (the whole answer
 * is in: the flow counts it and asks for a loop, then `refuseRun` or `release`), `stop` (the stream
 * already ended here: a block, or the upstream's error).
 */
export type StreamStep = 'more' | 'complete' | 'stop';

/** One streamed answer in one wire format: upstream events in, the caller's events out. */
export interface StreamTranslator {
  /** The data of one upstream event. */
  onEvent(data: string): Promise<StreamStep>;
  /** The upstream body ended while the step was still `more`; `rest` is an event left without its blank line. */
  onUpstreamEnd(rest: string[]): Promise<Exclude<StreamStep, 'more'>>;
  /** The answer's `usage` so far, as the wire carries it. */
  usage(): unknown;
  /** The tool calls the model proposed (held, not yet released). */
  proposedCalls(): ProposedCall[];
  /** The run loops: the held calls never go out, the stream ends with the reason. */
  refuseRun(stop: RunStop): Promise<void>;
  /** The held checks and calls are settled and released; the final event carries `parapet`. */
  release(): Promise<void>;
  /** The stream broke (an exception): the caller gets the format's error event. */
  failed(): Promise<void>;
}

/** One wire format: the flow's questions about bodies, answers, events and refusals. */
export interface WireAdapter<Body extends ProxiedBody> {
  /** The format's name in problems and logs (`chat-completions`, `messages`, `responses`). */
  readonly name: string;
  /** The setting that holds the provider key, named in the 503 when it is missing or refused. */
  readonly keySetting: string;
  /** The run (session) the call belongs to, for taint and loops. */
  sessionOf(headers: IncomingHttpHeaders, body: Body): string;
  /** The request's checks; tokenized text is written back into the body. */
  checkRequest(body: Body, checks: ProxyChecks): Promise<CheckedPart[]>;
  /** The call to the upstream, with the gateway's key. */
  upstreamCall(body: Body, headers: IncomingHttpHeaders, apiKey: string): UpstreamCall;
  /** The answer to a call that was not forwarded (or a stopped run), as a whole body. */
  refusal(model: string, text: string, field: ParapetField): Record<string, unknown>;
  /** The same refusal as the event stream a streaming caller expects. */
  refusalEvents(model: string, text: string, field: ParapetField): string;
  /** The answer's usage in the ledger's terms. */
  tokenUsage(usage: unknown): TokenUsage | null;
  /** Usage and proposed tool calls of a whole answer, before anything is checked. */
  answerFacts(answer: Record<string, unknown>, call: GovernedCall<Body>): AnswerFacts;
  /** Checks a whole answer and rewrites it in place (blocked text, removed calls); returns the checks. */
  governAnswer(answer: Record<string, unknown>, call: GovernedCall<Body>): Promise<CheckedPart[]>;
  /** A translator for one streamed answer. */
  openStream(call: GovernedCall<Body>, sink: StreamSink): StreamTranslator;
}

export interface FlowOptions {
  pipeline: Pipeline;
  /** The upstream the calls go to (its breaker and pool are shared by every call). */
  upstream: () => Upstream;
  /** The provider key the gateway holds; null: every call answers 503 naming the setting. */
  apiKey: string | null;
  usage: UsageLedger;
  /** Daily budgets, usage in the database and loops of proposed tool calls (src/runs). */
  runs: RunGovernor;
  /** request_budget_ms: the detector time all checks of one call share (spec 01 §8). */
  requestBudgetMs: number;
}

const heldText = (field: ParapetField): string =>
  field.verdict === 'escalate' ? `The request is held for a person to review and was not sent to the model: ${field.reason}` : field.reason;

/** The one flow of a proxied model call; `adapter` speaks the wire format. */
export class GovernedCallFlow<Body extends ProxiedBody> {
  constructor(
    private readonly adapter: WireAdapter<Body>,
    private readonly options: FlowOptions,
  ) {}

  async handle(request: FastifyRequest, reply: FastifyReply, agent: string): Promise<void> {
    const { adapter, options } = this;
    const { apiKey } = options;
    if (apiKey === null) throw problem('unavailable', `the ${adapter.name} upstream has no key: set ${adapter.keySetting} (PARAPET_${adapter.keySetting.toUpperCase()})`);
    const body = request.body as Body;
    const sessionId = adapter.sessionOf(request.headers, body);
    const checks = new ProxyChecks(options.pipeline, { agent, sessionId, traceId: request.id }, new RequestBudget(options.requestBudgetMs));
    const stream = body.stream === true;
    const refuse = (text: string, field: ParapetField): void => {
      reply.header('x-parapet-verdict', field.verdict);
      if (stream) reply.type('text/event-stream').header('cache-control', 'no-cache').send(adapter.refusalEvents(body.model, text, field));
      else reply.type('application/json').send(JSON.stringify(adapter.refusal(body.model, text, field)));
    };

    // A daily budget that is used up refuses the call before any check or upstream work.
    const admission = await options.runs.beforeForward(agent, body.model, sessionId, body);
    const overBudget = admission.stop;
    if (overBudget !== null) {
      options.usage.note(agent, body.model, null, false);
      refuse(overBudget.reason, { ...overBudget.decision, forwarded: false, decisions: [runPart(overBudget)] });
      return;
    }

    try {
      const requestParts = await adapter.checkRequest(body, checks);
      if (requestParts.some((part) => stops(part.decision))) {
        options.usage.note(agent, body.model, null, false);
        options.runs.noteRefused(agent, body.model);
        const field = parapetField(requestParts, false) as ParapetField;
        refuse(heldText(field), field);
        return;
      }

      const answer = await sendUpstream(reply, options.upstream(), adapter.upstreamCall(body, request.headers, apiKey));
      if (answer.status !== 200) return await passUpstreamError(reply, answer, adapter.name, adapter.keySetting);
      const call: GovernedCall<Body> = { agent, sessionId, body, checks, requestParts, hold: admission.hold, request };
      if (stream) return await this.stream(reply, answer, call);
      return await this.complete(reply, answer, call);
    } finally {
      // A call that got no answer (refused by policy, upstream failure, an error) gives back the cost it reserved.
      await admission.hold.release();
    }
  }

  /** A whole answer: counted and looked at for a loop first (a stopped run's answer is not passed on), then checked. */
  private async complete(reply: FastifyReply, upstream: UpstreamAnswer, call: GovernedCall<Body>): Promise<void> {
    const { adapter, options } = this;
    const { agent, sessionId, body, hold } = call;
    let answer: Record<string, unknown>;
    try {
      answer = JSON.parse(await upstream.body.text()) as Record<string, unknown>;
    } catch {
      throw problem('unavailable', `the ${adapter.name} upstream answered 200 with a body that is not JSON`);
    }
    const facts = adapter.answerFacts(answer, call);
    const loop = await options.runs.afterAnswer({ agent, model: body.model, sessionId, hold, usage: facts.usage, toolCalls: facts.toolCalls });
    options.usage.note(agent, body.model, adapter.tokenUsage(facts.usage), true);
    if (loop !== null) {
      const field: ParapetField = { ...loop.decision, forwarded: true, decisions: [...call.requestParts, runPart(loop)] };
      reply.header('x-parapet-verdict', field.verdict);
      const refusal = adapter.refusal(body.model, loop.reason, field);
      // The upstream's id and usage stay: the tokens were spent.
      reply.type('application/json').send(JSON.stringify({ ...refusal, id: answer.id ?? refusal.id, usage: answer.usage ?? refusal.usage }));
      return;
    }
    const parts = await adapter.governAnswer(answer, call);
    // Null only when nothing was checked at all (no text either way, no tool).
    const field = parapetField([...call.requestParts, ...parts], true);
    reply.header('x-parapet-verdict', field?.verdict ?? 'allow');
    reply.type('application/json').send(JSON.stringify(field === null ? answer : { ...answer, parapet: field }));
  }

  /**
   * A streamed answer: the caller's stream opens with the verdict pending; the translator releases
   * text through the hold-back window and holds tool calls; once the whole answer is in, it is
   * counted and looked at for a loop, then released. A stream cut short still counts its usage.
   */
  private async stream(reply: FastifyReply, answer: UpstreamAnswer, call: GovernedCall<Body>): Promise<void> {
    const { adapter, options } = this;
    const { agent, sessionId, body, hold, request } = call;
    const events = new EventStream(reply, answer);
    const translator = adapter.openStream(call, { events });
    /** Whether the call's usage went to the runs ledger (once, at the end of the stream or in `finally`). */
    let counted = false;
    const parser = new SseParser();
    try {
      let step: StreamStep = 'more';
      read: for await (const data of answer.body) {
        for (const payload of parser.push(data as Buffer)) {
          step = await translator.onEvent(payload);
          if (step !== 'more') break read;
        }
      }
      if (step === 'more') step = await translator.onUpstreamEnd(parser.end());
      if (step === 'complete') {
        // The whole answer is in: count it, and stop the run when its proposed tool calls loop.
        counted = true;
        const loop = await options.runs.afterAnswer({ agent, model: body.model, sessionId, hold, usage: translator.usage(), toolCalls: translator.proposedCalls() });
        if (loop !== null) await translator.refuseRun(loop);
        else await translator.release();
      }
    } catch (error) {
      if (!events.clientGone) {
        request.log.warn({ reqId: request.id, err: error }, `${adapter.name} stream failed`);
        await translator.failed().catch(() => undefined);
      }
    } finally {
      if (!answer.body.destroyed) answer.body.destroy();
      options.usage.note(agent, body.model, adapter.tokenUsage(translator.usage()), true);
      // A stream cut short (a block, an error, the client gone) still spent tokens.
      if (!counted) await options.runs.afterAnswer({ agent, model: body.model, sessionId, hold, complete: false, usage: translator.usage(), toolCalls: [] });
      if (!events.raw.writableEnded) events.raw.end();
    }
  }
}

/**
 * Sends a call upstream; an upstream that cannot be reached (breaker open, no answer after the
 * retries) is the gateway's 503, with Retry-After when the breaker says when to come back.
 */
async function sendUpstream(reply: FastifyReply, upstream: Upstream, call: UpstreamCall): Promise<UpstreamAnswer> {
  try {
    return await upstream.send(call);
  } catch (error) {
    if (error instanceof UpstreamUnavailable) {
      if (error.retryAfterSeconds !== null) reply.header('retry-after', String(error.retryAfterSeconds));
      throw problem('unavailable', error.message);
    }
    throw error;
  }
}

/**
 * An upstream error answer goes back as it came, except that a refusal of the gateway's own key is
 * the gateway's problem (503 naming the setting), not the caller's.
 */
async function passUpstreamError(reply: FastifyReply, answer: UpstreamAnswer, upstream: string, keySetting: string): Promise<void> {
  const text = await answer.body.text();
  if (answer.status === 401 || answer.status === 403) {
    throw problem('unavailable', `the ${upstream} upstream refused the gateway's key (${answer.status}): check ${keySetting}`);
  }
  const type = answer.headers['content-type'];
  reply.code(answer.status).header('x-parapet-verdict', 'allow');
  const retryAfter = answer.headers['retry-after'];
  if (typeof retryAfter === 'string') reply.header('retry-after', retryAfter);
  reply.type(typeof type === 'string' ? type : 'application/json').send(text);
}

/** How a budget or loop stop appears among the checked parts of `parapet.decisions`. */
export function runPart(stop: RunStop): CheckedPart {
  return { surface: stop.kind === 'loop' ? 'tool_args' : 'input', outcome: 'blocked', ...(stop.tool === undefined ? {} : { tool: stop.tool }), decision: stop.decision };
}
