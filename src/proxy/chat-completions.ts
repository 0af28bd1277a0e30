// POST /v1/chat/completions: the chat-completions wire format around the proxy core. Checks the
// request (input, tool results), forwards it with the gateway's key, checks the answer (output,
// each proposed tool call) or the stream under a hold-back window, and answers in the caller's
// own format with a `parapet` field. A blocked request is never sent upstream.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problem } from '../http/problems.js';
import type { Pipeline } from '../pipeline/decide.js';
import type { CostHold, ProposedCall, RunGovernor } from '../runs/service.js';
import { ProxyChecks, parapetField, removed, stops, type CheckedPart, type ParapetField } from './checks.js';
import { OutputHoldback } from './holdback.js';
import { SseParser } from './sse.js';
import { passUpstreamError, runPart, sendUpstream } from './answers.js';
import { EventStream } from './stream.js';
import type { Upstream, UpstreamAnswer } from './upstream.js';
import type { TokenUsage, UsageLedger } from './usage.js';

export interface ChatProxyOptions {
  pipeline: Pipeline;
  /** The upstream the calls go to (its breaker and pool are shared by every call). */
  upstream: () => Upstream;
  /** The provider key the gateway holds; null: every call answers 503 naming the setting. */
  apiKey: string | null;
  holdbackChars: number;
  usage: UsageLedger;
  /** Daily budgets, usage in the database and loops of proposed tool calls (src/runs). */
  runs: RunGovernor;
}

/** A chat message as the wire carries it; only the fields the proxy reads are typed. */
interface WireMessage {
  role: string;
  content?: unknown;
  tool_call_id?: unknown;
  tool_calls?: unknown;
  [key: string]: unknown;
}

export interface ChatBody {
  model: string;
  messages: WireMessage[];
  stream?: boolean;
  user?: string;
  stream_options?: Record<string, unknown>;
  [key: string]: unknown;
}

interface WireToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

interface WireChoice {
  index?: number;
  message?: { role?: string; content?: unknown; tool_calls?: WireToolCall[]; [key: string]: unknown };
  finish_reason?: string | null;
  [key: string]: unknown;
}

const SYSTEM_ROLES = new Set(['system', 'developer']);
const TOOL_ROLES = new Set(['tool', 'function']);

/** Where the text of one checked segment lives in the request, to write a tokenized version back. */
type Slot = { message: WireMessage; part: Record<string, unknown> | null };

/** Every text of a message: its string content, or the `text` of each text part. */
function textSlots(message: WireMessage): Array<{ slot: Slot; text: string }> {
  if (typeof message.content === 'string') return [{ slot: { message, part: null }, text: message.content }];
  if (!Array.isArray(message.content)) return [];
  const slots: Array<{ slot: Slot; text: string }> = [];
  for (const part of message.content) {
    if (part !== null && typeof part === 'object' && (part as { type?: unknown }).type === 'text' && typeof (part as { text?: unknown }).text === 'string') {
      slots.push({ slot: { message, part: part as Record<string, unknown> }, text: (part as { text: string }).text });
    }
  }
  return slots;
}

function writeSlot({ message, part }: Slot, text: string): void {
  if (part === null) message.content = text;
  else part.text = text;
}

const messageText = (message: WireMessage): string => textSlots(message).map(({ text }) => text).join('\n');

/**
 * The session that links tool results to later tool calls (taint): the `X-Parapet-Session` header,
 * else the body's `user`, else one derived from the conversation's first messages (the same
 * conversation sends them again on every turn).
 */
export function sessionOf(header: unknown, body: ChatBody): string {
  if (typeof header === 'string' && header !== '') return header.slice(0, 500);
  if (typeof body.user === 'string' && body.user !== '') return body.user.slice(0, 500);
  const hash = createHash('sha256');
  let taken = 0;
  for (const message of body.messages) {
    if (message.role === 'assistant' || taken >= 2) break;
    hash.update(`${message.role}\u0000${messageText(message)}\u0000`);
    taken += 1;
  }
  return `chat:${hash.digest('hex').slice(0, 24)}`;
}

export class ChatCompletionsProxy {
  constructor(private readonly options: ChatProxyOptions) {}

  async handle(request: FastifyRequest, reply: FastifyReply, agent: string): Promise<void> {
    const { apiKey } = this.options;
    if (apiKey === null) throw problem('unavailable', 'the chat-completions upstream has no key: set upstream_openai_api_key (PARAPET_UPSTREAM_OPENAI_API_KEY)');
    const body = request.body as ChatBody;
    const sessionId = sessionOf(request.headers['x-parapet-session'], body);
    const checks = new ProxyChecks(this.options.pipeline, { agent, sessionId, traceId: request.id });
    const stream = body.stream === true;

    // A daily budget that is used up refuses the call before any check or upstream work.
    const admission = await this.options.runs.beforeForward(agent, body.model, sessionId, body);
    const overBudget = admission.stop;
    if (overBudget !== null) {
      this.options.usage.note(agent, body.model, null, false);
      const field: ParapetField = { ...overBudget.decision, forwarded: false, decisions: [runPart(overBudget)] };
      reply.header('x-parapet-verdict', field.verdict);
      if (stream) this.sendRefusalStream(reply, body.model, overBudget.reason, field);
      else reply.type('application/json').send(JSON.stringify(refusalCompletion(body.model, overBudget.reason, field)));
      return;
    }

    try {
      const requestParts = await this.checkRequest(body, checks);
      const stopped = requestParts.find((part) => stops(part.decision));
      if (stopped !== undefined) {
        this.options.usage.note(agent, body.model, null, false);
        this.options.runs.noteRefused(agent, body.model);
        const field = parapetField(requestParts, false) as ParapetField;
        const text = field.verdict === 'escalate' ? `The request is held for a person to review and was not sent to the model: ${field.reason}` : field.reason;
        reply.header('x-parapet-verdict', field.verdict);
        if (stream) this.sendRefusalStream(reply, body.model, text, field);
        else reply.type('application/json').send(JSON.stringify(refusalCompletion(body.model, text, field)));
        return;
      }

      const callerWantsUsage = body.stream_options?.include_usage === true;
      const forwarded: ChatBody = stream ? { ...body, stream_options: { ...(body.stream_options ?? {}), include_usage: true } } : body;
      const answer = await sendUpstream(reply, this.options.upstream(), {
        path: '/chat/completions',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, accept: stream ? 'text/event-stream' : 'application/json' },
        body: JSON.stringify(forwarded),
      });

      if (answer.status !== 200) return await passUpstreamError(reply, answer, 'chat-completions', 'upstream_openai_api_key');
      if (stream) return await this.stream(request, reply, answer, body, checks, requestParts, { agent, sessionId, callerWantsUsage, hold: admission.hold });
      return await this.complete(reply, answer, body, checks, requestParts, { agent, sessionId, hold: admission.hold });
    } finally {
      // A call that got no answer (refused by policy, upstream failure, an error) gives back the cost it reserved.
      await admission.hold.release();
    }
  }

  /**
   * The request's checks: the system prompt(s) and the new user texts (those after the last
   * assistant message, or the last user message when none follows it) as one `input`; each new
   * tool result as `tool_result`. Tokenized personal data replaces the text it came from.
   */
  private async checkRequest(body: ChatBody, checks: ProxyChecks): Promise<CheckedPart[]> {
    const { messages } = body;
    let lastAssistant = -1;
    for (let index = messages.length - 1; index >= 0; index -= 1) {
      if ((messages[index] as WireMessage).role === 'assistant') {
        lastAssistant = index;
        break;
      }
    }
    const inputSlots: Array<{ slot: Slot; text: string }> = [];
    const userAfter: WireMessage[] = [];
    let lastUser: WireMessage | null = null;
    const toolMessages: WireMessage[] = [];
    messages.forEach((message, index) => {
      if (SYSTEM_ROLES.has(message.role)) inputSlots.push(...textSlots(message));
      else if (message.role === 'user') {
        lastUser = message;
        if (index > lastAssistant) userAfter.push(message);
      } else if (TOOL_ROLES.has(message.role) && index > lastAssistant) toolMessages.push(message);
    });
    const users = userAfter.length > 0 ? userAfter : lastUser === null ? [] : [lastUser];
    for (const message of users) inputSlots.push(...textSlots(message));

    const [input, toolParts] = await Promise.all([
      // Nothing to check (a turn of tool results alone, without a system prompt): no input check.
      inputSlots.length === 0 ? null : checks.input(inputSlots.map(({ text }) => text)),
      Promise.all(toolMessages.map((message) => checks.toolResult(messageText(message), typeof message.tool_call_id === 'string' ? message.tool_call_id : undefined))),
    ]);
    if (input === null) return toolParts;
    if (input.part.outcome === 'transformed') input.segments.forEach((text, index) => writeSlot((inputSlots[index] as { slot: Slot }).slot, text));
    return [input.part, ...toolParts];
  }


  /** A whole answer: the text as `output`, each proposed tool call as `tool_args`. */
  private async complete(
    reply: FastifyReply,
    answer: UpstreamAnswer,
    body: ChatBody,
    checks: ProxyChecks,
    requestParts: CheckedPart[],
    { agent, sessionId, hold }: { agent: string; sessionId: string; hold: CostHold },
  ): Promise<void> {
    let completion: { choices?: WireChoice[]; usage?: TokenUsage; model?: string; [key: string]: unknown };
    try {
      completion = JSON.parse(await answer.body.text()) as typeof completion;
    } catch {
      throw problem('unavailable', 'the chat-completions upstream answered 200 with a body that is not JSON');
    }
    // Usage is counted and the proposed tool calls are looked at for a loop before anything is checked:
    // a stopped run's answer is not passed on at all.
    const proposed: ProposedCall[] = (completion.choices ?? []).flatMap((choice) =>
      Array.isArray(choice.message?.tool_calls) ? choice.message.tool_calls.map((call) => ({ name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' })) : [],
    );
    const loop = await this.options.runs.afterAnswer({ agent, model: body.model, sessionId, hold, usage: completion.usage ?? null, toolCalls: proposed });
    this.options.usage.note(agent, body.model, completion.usage ?? null, true);
    if (loop !== null) {
      const field: ParapetField = { ...loop.decision, forwarded: true, decisions: [...requestParts, runPart(loop)] };
      reply.header('x-parapet-verdict', field.verdict);
      const refusal = refusalCompletion(body.model, loop.reason, field);
      // The upstream's id and usage stay: the tokens were spent.
      reply.type('application/json').send(JSON.stringify({ ...refusal, id: completion.id ?? refusal.id, usage: completion.usage ?? refusal.usage }));
      return;
    }
    const parts = [...requestParts];
    for (const choice of completion.choices ?? []) parts.push(...(await this.governChoice(choice, checks)));
    const field = parapetField(parts, true) as ParapetField;
    reply.header('x-parapet-verdict', field.verdict);
    reply.type('application/json').send(JSON.stringify({ ...completion, parapet: field }));
  }

  private async governChoice(choice: WireChoice, checks: ProxyChecks): Promise<CheckedPart[]> {
    const message = choice.message;
    if (message === undefined) return [];
    const text = typeof message.content === 'string' ? message.content : null;
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    const [output, ...callParts] = await Promise.all([
      text === null || text === '' ? Promise.resolve(null) : checks.output(text),
      ...calls.map((call) => checks.toolCall(call.function?.name ?? '', call.function?.arguments ?? '', call.id)),
    ]);
    const parts: CheckedPart[] = [];
    const reasons: string[] = [];
    let kept = text;
    if (output !== null && output !== undefined) {
      parts.push(output.part);
      if (stops(output.part.decision)) {
        kept = null;
        reasons.push(output.part.decision.reason);
      } else if (output.part.decision.transformed_content !== undefined) kept = output.part.decision.transformed_content;
    }
    if (kept !== null) kept = checks.tokens.restore(kept);
    const allowedCalls: WireToolCall[] = [];
    calls.forEach((call, index) => {
      const part = callParts[index] as CheckedPart;
      parts.push(part);
      if (removed(part)) reasons.push(part.note ?? part.decision.reason);
      else allowedCalls.push(restoreArguments(call, checks));
    });
    const textBlocked = output !== null && output !== undefined && stops(output.part.decision);
    const allCallsRemoved = calls.length > 0 && allowedCalls.length === 0;
    if (textBlocked || allCallsRemoved) {
      // The refusal says why, after whatever text passed.
      message.content = [kept, ...reasons].filter((item): item is string => item !== null && item !== '').join('\n\n');
      delete message.tool_calls;
      choice.finish_reason = 'content_filter';
    } else {
      if (text !== null) message.content = kept;
      if (calls.length > 0) message.tool_calls = allowedCalls;
    }
    return parts;
  }

  /** A refusal in the streaming format: one chunk with the reason, the finish and `parapet`. */
  private sendRefusalStream(reply: FastifyReply, model: string, text: string, field: ParapetField): void {
    const base = { id: `chatcmpl-parapet-${field.decision_id}`, object: 'chat.completion.chunk', created: nowSeconds(), model };
    const chunk = { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: 'content_filter' }], parapet: field };
    reply.type('text/event-stream').header('cache-control', 'no-cache');
    reply.send(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
  }

  /**
   * A streamed answer. Text is released through a hold-back window per choice; tool-call deltas are
   * assembled and held until the end, then checked and released whole; the finish of each choice is
   * held until its checks are done. A block stops the stream: a final chunk says why, with
   * finish_reason content_filter and `parapet`, then [DONE]; the upstream is aborted.
   */
  private async stream(
    request: FastifyRequest,
    reply: FastifyReply,
    answer: UpstreamAnswer,
    body: ChatBody,
    checks: ProxyChecks,
    requestParts: CheckedPart[],
    { agent, sessionId, callerWantsUsage, hold }: { agent: string; sessionId: string; callerWantsUsage: boolean; hold: CostHold },
  ): Promise<void> {
    const events = new EventStream(reply, answer);
    const raw = events.raw;
    const write = async (payload: unknown): Promise<void> =>
      events.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);

    const template: Record<string, unknown> = { id: `chatcmpl-parapet-${request.id}`, object: 'chat.completion.chunk', created: nowSeconds(), model: body.model };
    const states = new Map<number, ChoiceState>();
    const stateOf = (index: number): ChoiceState => {
      let state = states.get(index);
      if (state === undefined) {
        state = { holdback: new OutputHoldback(checks, this.options.holdbackChars), calls: new Map(), finish: null, released: false };
        states.set(index, state);
      }
      return state;
    };
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ ...template, choices, ...extra });
    let usage: TokenUsage | null = null;
    let usageChunk: Record<string, unknown> | null = null;
    let blocked: CheckedPart | null = null;
    /** Whether the call's usage went to the runs ledger (once, at the end of the stream or in `finally`). */
    let counted = false;
    const parser = new SseParser();

    const finishWithBlock = async (index: number, part: CheckedPart, releasedAny: boolean): Promise<void> => {
      blocked = part;
      const field = parapetField([...requestParts, ...collected(states), part], true) as ParapetField;
      const delta = { content: `${releasedAny ? '\n\n' : ''}${part.decision.reason}` };
      await write(chunk([{ index, delta, finish_reason: 'content_filter' }], { parapet: field }));
      await write('[DONE]');
      raw.addTrailers({ 'x-parapet-verdict': field.verdict });
    };

    try {
      let done = false;
      for await (const data of answer.body) {
        for (const event of parser.push(data as Buffer)) {
          if (event === '[DONE]') {
            done = true;
            break;
          }
          const parsed = JSON.parse(event) as { choices?: Array<{ index?: number; delta?: Record<string, unknown>; finish_reason?: string | null }>; usage?: TokenUsage | null; [key: string]: unknown };
          for (const key of ['id', 'created', 'model', 'system_fingerprint', 'service_tier']) if (parsed[key] !== undefined && parsed[key] !== null) template[key] = parsed[key];
          if (parsed.usage !== undefined && parsed.usage !== null) {
            usage = parsed.usage;
            usageChunk = parsed;
          }
          for (const choice of parsed.choices ?? []) {
            const index = choice.index ?? 0;
            const state = stateOf(index);
            const delta = choice.delta ?? {};
            if (typeof delta.role === 'string') await write(chunk([{ index, delta: { role: delta.role, content: '' }, finish_reason: null }]));
            if (typeof delta.refusal === 'string' && delta.refusal !== '') await write(chunk([{ index, delta: { refusal: delta.refusal }, finish_reason: null }]));
            if (typeof delta.content === 'string' && delta.content !== '') {
              const step = await state.holdback.push(delta.content);
              if (step.blocked !== null) {
                await finishWithBlock(index, step.blocked, state.released);
                return;
              }
              if (step.text !== '') {
                state.released = true;
                await write(chunk([{ index, delta: { content: step.text }, finish_reason: null }]));
              }
            }
            if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls as StreamedToolCall[]) assemble(state, call);
            if (typeof choice.finish_reason === 'string') state.finish = choice.finish_reason;
          }
        }
        if (done) break;
      }
      if (!done) for (const event of parser.end()) if (event !== '[DONE]') request.log.warn({ reqId: request.id }, 'chat-completions stream ended inside an event');

      // The whole answer is in: count it, and stop the run when its proposed tool calls loop.
      counted = true;
      const proposed = [...states.values()].flatMap((state) => [...state.calls.values()].map((call) => ({ name: call.name, arguments: call.arguments })));
      const loop = await this.options.runs.afterAnswer({ agent, model: body.model, sessionId, hold, usage, toolCalls: proposed });
      if (loop !== null) {
        await finishWithBlock(0, runPart(loop), [...states.values()].some((state) => state.released));
        return;
      }

      // The end: last window of each text, then the held tool calls, then each finish.
      const parts: CheckedPart[] = [...requestParts];
      const finishes: Array<{ index: number; delta: Record<string, unknown>; finish_reason: string | null }> = [];
      for (const [index, state] of [...states.entries()].sort(([a], [b]) => a - b)) {
        const step = await state.holdback.finish();
        if (step.blocked !== null) {
          await finishWithBlock(index, step.blocked, state.released);
          return;
        }
        if (step.text !== '') {
          state.released = true;
          await write(chunk([{ index, delta: { content: step.text }, finish_reason: null }]));
        }
        if (state.holdback.last !== null) parts.push(state.holdback.last);
        const calls = [...state.calls.values()].sort((a, b) => a.index - b.index);
        const callParts = await Promise.all(calls.map((call) => checks.toolCall(call.name, call.arguments, call.id)));
        const reasons: string[] = [];
        let released = 0;
        for (const [position, call] of calls.entries()) {
          const part = callParts[position] as CheckedPart;
          parts.push(part);
          if (removed(part)) {
            reasons.push(part.note ?? part.decision.reason);
            continue;
          }
          const restored = checks.tokens.restore(call.arguments);
          await write(chunk([{ index, delta: { tool_calls: [{ index: released, id: call.id, type: 'function', function: { name: call.name, arguments: restored } }] }, finish_reason: null }]));
          released += 1;
        }
        let finish = state.finish;
        const delta: Record<string, unknown> = {};
        if (calls.length > 0 && released === 0) {
          finish = 'content_filter';
          delta.content = `${state.released ? '\n\n' : ''}${reasons.join('\n\n')}`;
        }
        finishes.push({ index, delta, finish_reason: finish });
      }
      const field = parapetField(parts, true);
      for (const [position, finish] of finishes.entries()) {
        await write(chunk([finish], position === finishes.length - 1 && field !== null ? { parapet: field } : {}));
      }
      if (usageChunk !== null && callerWantsUsage) await write({ ...usageChunk, ...pick(template, ['id', 'created', 'model']) });
      await write('[DONE]');
      raw.addTrailers({ 'x-parapet-verdict': field?.verdict ?? 'allow' });
    } catch (error) {
      if (!events.clientGone) {
        request.log.warn({ reqId: request.id, err: error }, 'chat-completions stream failed');
        await write({ error: { message: 'the upstream stream failed', type: 'upstream_error' } }).catch(() => undefined);
      }
    } finally {
      if (blocked !== null || !answer.body.destroyed) answer.body.destroy();
      this.options.usage.note(agent, body.model, usage, true);
      // A stream cut short (a block, an error, the client gone) still spent tokens.
      if (!counted) await this.options.runs.afterAnswer({ agent, model: body.model, sessionId, hold, complete: false, usage, toolCalls: [] });
      if (!raw.writableEnded) raw.end();
    }
  }
}

interface StreamedToolCall {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

interface AssembledCall {
  index: number;
  id: string;
  name: string;
  arguments: string;
}

interface ChoiceState {
  holdback: OutputHoldback;
  calls: Map<number, AssembledCall>;
  finish: string | null;
  /** Whether any of this choice's text went out already. */
  released: boolean;
}

function assemble(state: ChoiceState, delta: StreamedToolCall): void {
  const index = delta.index ?? 0;
  let call = state.calls.get(index);
  if (call === undefined) {
    call = { index, id: '', name: '', arguments: '' };
    state.calls.set(index, call);
  }
  if (typeof delta.id === 'string') call.id = delta.id;
  if (typeof delta.function?.name === 'string') call.name += delta.function.name;
  if (typeof delta.function?.arguments === 'string') call.arguments += delta.function.arguments;
}

/** The window checks made so far, for a block's `parapet` field. */
function collected(states: Map<number, ChoiceState>): CheckedPart[] {
  return [...states.values()].flatMap((state) => (state.holdback.last !== null && !stops(state.holdback.last.decision) ? [state.holdback.last] : []));
}

function restoreArguments(call: WireToolCall, checks: ProxyChecks): WireToolCall {
  if (call.function?.arguments === undefined || checks.tokens.size === 0) return call;
  return { ...call, function: { ...call.function, arguments: checks.tokens.restore(call.function.arguments) } };
}

const pick = (source: Record<string, unknown>, keys: string[]): Record<string, unknown> => Object.fromEntries(keys.map((key) => [key, source[key]]));

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A run stopped by the gateway (budget or loop) as one entry of `parapet.decisions`. */

/** The answer to a request that was not forwarded (CONTRACT.md "Answers"). */
export function refusalCompletion(model: string, text: string, field: ParapetField): Record<string, unknown> {
  return {
    id: `chatcmpl-parapet-${field.decision_id}`,
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'content_filter', logprobs: null }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    parapet: field,
  };
}
