// The governed-call flow of every model proxy, free of any wire format: budget admission (with the
// call's worst-case cost reserved, settled by its usage or given back), the request's checks, the
// upstream send, the whole or streamed answer, the refusal, usage recording and loop stops. What
// differs between formats (where the texts and tool calls sit in a body, how an answer, a stream
// event and a refusal look) is a WireAdapter; adding a format is one adapter (README.md).
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { Problem, problem } from '../../infra/http/problems.js';
import type { TraceSpan } from '../../infra/lib/trace-span.js';
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
  /** Evidence for the answer's checks; taken out before the call goes upstream. */
  parapet_context?: unknown[] | undefined;
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
  /** Names the call's decisions and the ids of answers the gateway writes itself (the HTTP request id). */
  traceId: string;
  /** The caller's headers (the session a format reads from `X-Parapet-Session`). */
  headers: IncomingHttpHeaders;
}

/** One call as the flow takes it, from the HTTP route or from inside the gateway (evaluations). */
export interface CallInput<Body extends ProxiedBody> {
  agent: string;
  /** The request body; checks write tokenized text back into it. */
  body: Body;
  /** The caller's headers: the session (`X-Parapet-Session`) and what a format passes on. */
  headers: IncomingHttpHeaders;
  traceId: string;
  /** Aborts the upstream send. The HTTP route passes none: a whole answer is awaited even when its caller left. */
  signal?: AbortSignal | undefined;
  /** The request's server span (tracing on): the checks and the upstream send are traced under it. */
  span?: TraceSpan | undefined;
}

/** A whole answer as the route sends it: status, headers (content type and X-Parapet-Verdict among them) and body. */
export interface WholeAnswer {
  status: number;
  headers: Record<string, string>;
  /** An answer, a refusal or a problem; a string is an upstream error body passed on as it came. */
  body: Record<string, unknown> | string;
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
  /** The route's log, for a stream that breaks. */
  readonly log: FastifyBaseLogger;
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
  /**
   * Optional: the conversational turn a whole answer completes (the last user text, the answer's
   * text as the caller gets it), for escalation; null when the call names no session
   * (`X-Parapet-Session` or the format's user field: a session derived from a hash is not named).
   */
  conversationTurn?(call: GovernedCall<Body>, answer: Record<string, unknown>): { userText: string | null; agentText: string | null } | null;
}

/** Where the proxy hands the turns of proxied chats (src/areas/escalation); never throws, logs its own errors. */
export interface TurnSink {
  record(turn: { session_id: string; agent: string; trace_id: string | null; user_text: string | null; agent_text: string | null; origin: 'proxy' }): void;
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
  /** Records a whole answer's turn when the call names a session (issue 21); absent: nothing is recorded. Streams are not recorded. */
  turns?: TurnSink;
}

const heldText = (field: ParapetField): string =>
  field.verdict === 'escalate' ? `The request is held for a person to review and was not sent to the model: ${field.reason}` : field.reason;

/** How the governed part of a call ended, before the answer is written in a wire format. */
type Forwarded<Body extends ProxiedBody> =
  /** Not sent upstream (budget used up, a request check stopped it): the format's refusal. */
  | { kind: 'refused'; text: string; field: ParapetField }
  /** The upstream answered with an error, passed on as it came. */
  | { kind: 'upstream-error'; answer: WholeAnswer }
  /** The upstream answered 200: the answer is still to be read, checked and counted. */
  | { kind: 'answered'; upstream: UpstreamAnswer; call: GovernedCall<Body> };

/** The one flow of a proxied model call; `adapter` speaks the wire format. */
export class GovernedCallFlow<Body extends ProxiedBody> {
  constructor(
    private readonly adapter: WireAdapter<Body>,
    private readonly options: FlowOptions,
  ) {}

  /** The HTTP route: a whole answer goes through `whole`'s flow; a stream is written as it comes. */
  async handle(request: FastifyRequest, reply: FastifyReply, agent: string): Promise<void> {
    const body = request.body as Body;
    const input: CallInput<Body> = { agent, body, headers: request.headers, traceId: request.id, span: request.traceSpan };
    // Problems stay thrown here: the error handler writes them (with `instance`) and logs the 5xx ones.
    if (body.stream !== true) {
      sendWhole(reply, await this.wholeOrThrow(input));
      return;
    }
    await this.govern(input, async (forwarded) => {
      if (forwarded.kind === 'refused') {
        reply.header('x-parapet-verdict', forwarded.field.verdict);
        reply.type('text/event-stream').header('cache-control', 'no-cache').send(this.adapter.refusalEvents(body.model, forwarded.text, forwarded.field));
      } else if (forwarded.kind === 'upstream-error') sendWhole(reply, forwarded.answer);
      else await this.stream(reply, request.log, forwarded.upstream, forwarded.call);
    });
  }

  /**
   * A whole (non-streamed) call without Fastify: the answer the route would send, a refusal, the
   * upstream's error, or the gateway's problem (503 naming the key setting, an open breaker) as a
   * problem+json answer.
   */
  async whole(input: CallInput<Body>): Promise<WholeAnswer> {
    try {
      return await this.wholeOrThrow(input);
    } catch (error) {
      if (error instanceof Problem) return problemAnswer(error);
      throw error;
    }
  }

  private async wholeOrThrow(input: CallInput<Body>): Promise<WholeAnswer> {
    return this.govern(input, async (forwarded) => {
      if (forwarded.kind === 'refused') return jsonAnswer(forwarded.field.verdict, this.adapter.refusal(input.body.model, forwarded.text, forwarded.field));
      if (forwarded.kind === 'upstream-error') return forwarded.answer;
      return this.complete(forwarded.upstream, forwarded.call);
    });
  }

  /**
   * What every call goes through before its answer is read: the key, budget admission, the
   * request's checks and the upstream send. `finish` writes the outcome; the reserved cost of a
   * call that got no answer is given back after it.
   */
  private async govern<T>(input: CallInput<Body>, finish: (forwarded: Forwarded<Body>) => Promise<T>): Promise<T> {
    const { adapter, options } = this;
    const { apiKey } = options;
    if (apiKey === null) throw problem('unavailable', `the ${adapter.name} upstream has no key: set ${adapter.keySetting} (PARAPET_${adapter.keySetting.toUpperCase()})`);
    const { agent, body, headers, traceId } = input;
    const sessionId = adapter.sessionOf(headers, body);
    // The evidence is the gateway's to read, not the provider's.
    const evidence = body.parapet_context;
    delete body.parapet_context;
    const { span } = input;
    const checks = new ProxyChecks(
      options.pipeline,
      { agent, sessionId, traceId, ...(evidence === undefined ? {} : { evidence }), ...(span === undefined ? {} : { span }) },
      new RequestBudget(options.requestBudgetMs),
    );

    // A daily budget that is used up refuses the call before any check or upstream work.
    const admission = await options.runs.beforeForward(agent, body.model, sessionId, body);
    const overBudget = admission.stop;
    if (overBudget !== null) {
      options.usage.note(agent, body.model, null, false);
      return finish({ kind: 'refused', text: overBudget.reason, field: { ...overBudget.decision, forwarded: false, decisions: [runPart(overBudget)] } });
    }

    try {
      const requestParts = await adapter.checkRequest(body, checks);
      if (requestParts.some((part) => stops(part.decision))) {
        options.usage.note(agent, body.model, null, false);
        options.runs.noteRefused(agent, body.model);
        const field = parapetField(requestParts, false) as ParapetField;
        return await finish({ kind: 'refused', text: heldText(field), field });
      }

      const answer = await sendUpstream(options.upstream(), adapter.upstreamCall(body, headers, apiKey), input.signal, span);
      if (answer.status !== 200) return await finish({ kind: 'upstream-error', answer: await upstreamError(answer, adapter.name, adapter.keySetting) });
      return await finish({ kind: 'answered', upstream: answer, call: { agent, sessionId, body, checks, requestParts, hold: admission.hold, traceId, headers } });
    } finally {
      // A call that got no answer (refused by policy, upstream failure, an error) gives back the cost it reserved.
      await admission.hold.release();
    }
  }

  /** A whole answer: counted and looked at for a loop first (a stopped run's answer is not passed on), then checked. */
  private async complete(upstream: UpstreamAnswer, call: GovernedCall<Body>): Promise<WholeAnswer> {
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
      const refusal = adapter.refusal(body.model, loop.reason, field);
      // The upstream's id and usage stay: the tokens were spent.
      return jsonAnswer(field.verdict, { ...refusal, id: answer.id ?? refusal.id, usage: answer.usage ?? refusal.usage });
    }
    const parts = await adapter.governAnswer(answer, call);
    this.recordTurn(call, answer);
    // Null only when nothing was checked at all (no text either way, no tool).
    const field = parapetField([...call.requestParts, ...parts], true);
    return jsonAnswer(field?.verdict ?? 'allow', field === null ? answer : { ...answer, parapet: field });
  }

  /** Hands the turn to the escalation sink in the background: the answer never waits for it. */
  private recordTurn(call: GovernedCall<Body>, answer: Record<string, unknown>): void {
    const { turns } = this.options;
    if (turns === undefined || this.adapter.conversationTurn === undefined) return;
    const turn = this.adapter.conversationTurn(call, answer);
    if (turn === null) return;
    turns.record({ session_id: call.sessionId, agent: call.agent, trace_id: call.traceId, user_text: turn.userText, agent_text: turn.agentText, origin: 'proxy' });
  }

  /**
   * A streamed answer: the caller's stream opens with the verdict pending; the translator releases
   * text through the hold-back window and holds tool calls; once the whole answer is in, it is
   * counted and looked at for a loop, then released. A stream cut short still counts its usage.
   */
  private async stream(reply: FastifyReply, log: FastifyBaseLogger, answer: UpstreamAnswer, call: GovernedCall<Body>): Promise<void> {
    const { adapter, options } = this;
    const { agent, sessionId, body, hold, traceId } = call;
    const events = new EventStream(reply, answer);
    const translator = adapter.openStream(call, { events, log });
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
        log.warn({ reqId: traceId, err: error }, `${adapter.name} stream failed`);
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

const jsonAnswer = (verdict: string, body: Record<string, unknown>): WholeAnswer => ({
  status: 200,
  headers: { 'content-type': 'application/json', 'x-parapet-verdict': verdict },
  body,
});

/** A problem as a value, for callers inside the gateway (the HTTP route lets the error handler write it). */
function problemAnswer(issue: Problem): WholeAnswer {
  return { status: issue.status, headers: { ...issue.headers, 'content-type': 'application/problem+json' }, body: { ...issue.toBody() } };
}

function sendWhole(reply: FastifyReply, answer: WholeAnswer): void {
  reply
    .code(answer.status)
    .headers(answer.headers)
    .send(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
}

/**
 * Sends a call upstream; an upstream that cannot be reached (breaker open, no answer after the
 * retries) is the gateway's 503, with Retry-After when the breaker says when to come back.
 */
async function sendUpstream(upstream: Upstream, call: UpstreamCall, signal: AbortSignal | undefined, parent: TraceSpan | undefined): Promise<UpstreamAnswer> {
  // Traced: the upstream's time until it answers (retries included) is a client span, and the
  // upstream joins the trace through traceparent. A streamed answer's time is in the server span.
  const span = parent?.child('parapet.upstream', { 'parapet.upstream': upstream.name }, { client: true });
  if (span !== undefined) call.headers.traceparent = span.traceparent();
  try {
    const answer = await upstream.send(call, signal);
    span?.set({ 'http.response.status_code': answer.status });
    if (answer.status >= 500) span?.fail(`status ${answer.status}`);
    return answer;
  } catch (error) {
    span?.fail(error instanceof UpstreamUnavailable ? 'unavailable' : 'error');
    if (error instanceof UpstreamUnavailable) {
      const headers = error.retryAfterSeconds === null ? undefined : { 'retry-after': String(error.retryAfterSeconds) };
      throw new Problem('unavailable', error.message, undefined, headers);
    }
    throw error;
  } finally {
    span?.end();
  }
}

/**
 * An upstream error answer goes back as it came, except that a refusal of the gateway's own key is
 * the gateway's problem (503 naming the setting), not the caller's.
 */
async function upstreamError(answer: UpstreamAnswer, upstream: string, keySetting: string): Promise<WholeAnswer> {
  const text = await answer.body.text();
  if (answer.status === 401 || answer.status === 403) {
    throw problem('unavailable', `the ${upstream} upstream refused the gateway's key (${answer.status}): check ${keySetting}`);
  }
  const type = answer.headers['content-type'];
  const headers: Record<string, string> = { 'content-type': typeof type === 'string' ? type : 'application/json', 'x-parapet-verdict': 'allow' };
  const retryAfter = answer.headers['retry-after'];
  if (typeof retryAfter === 'string') headers['retry-after'] = retryAfter;
  return { status: answer.status, headers, body: text };
}

/** How a budget or loop stop appears among the checked parts of `parapet.decisions`. */
export function runPart(stop: RunStop): CheckedPart {
  return { surface: stop.kind === 'loop' ? 'tool_args' : 'input', outcome: 'blocked', ...(stop.tool === undefined ? {} : { tool: stop.tool }), decision: stop.decision };
}
