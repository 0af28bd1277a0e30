// POST /v1/chat/completions: the chat-completions wire format for the governed-call flow
// (flow.ts). Where the request's texts and tool results sit, how a whole answer's text and tool
// calls are checked and rewritten, how a stream is released under the hold-back window, and how a
// refusal looks in this format.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ProposedCall, RunStop } from '../usage/service.js';
import { parapetField, removed, stops, type CheckedPart, type ParapetField, type ProxyChecks } from './checks.js';
import { runPart, type GovernedCall, type StreamSink, type StreamStep, type StreamTranslator, type WireAdapter } from './flow.js';
import { OutputHoldback } from './holdback.js';
import type { UpstreamCall } from './upstream.js';
import type { TokenUsage } from './usage.js';

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

/** The chat-completions wire format (POST /v1/chat/completions, upstream `/chat/completions`). */
export class ChatCompletionsAdapter implements WireAdapter<ChatBody> {
  readonly name = 'chat-completions';
  readonly keySetting = 'upstream_openai_api_key';

  constructor(private readonly holdbackChars: number) {}

  sessionOf(headers: IncomingHttpHeaders, body: ChatBody): string {
    return sessionOf(headers['x-parapet-session'], body);
  }

  /**
   * The request's checks: the system prompt(s) and the new user texts (those after the last
   * assistant message, or the last user message when none follows it) as one `input`; each new
   * tool result as `tool_result`. Tokenized personal data replaces the text it came from.
   */
  async checkRequest(body: ChatBody, checks: ProxyChecks): Promise<CheckedPart[]> {
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

  /** A stream always asks for usage (the runs ledger counts it); the caller gets the usage chunk only if it asked. */
  upstreamCall(body: ChatBody, _headers: IncomingHttpHeaders, apiKey: string): UpstreamCall {
    const stream = body.stream === true;
    const forwarded: ChatBody = stream ? { ...body, stream_options: { ...(body.stream_options ?? {}), include_usage: true } } : body;
    return {
      path: '/chat/completions',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, accept: stream ? 'text/event-stream' : 'application/json' },
      body: JSON.stringify(forwarded),
    };
  }

  refusal(model: string, text: string, field: ParapetField): Record<string, unknown> {
    return refusalCompletion(model, text, field);
  }

  /** A refusal in the streaming format: one chunk with the reason, the finish and `parapet`. */
  refusalEvents(model: string, text: string, field: ParapetField): string {
    const base = { id: `chatcmpl-parapet-${field.decision_id}`, object: 'chat.completion.chunk', created: nowSeconds(), model };
    const chunk = { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: 'content_filter' }], parapet: field };
    return `data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`;
  }

  tokenUsage(usage: unknown): TokenUsage | null {
    return (usage as TokenUsage | null | undefined) ?? null;
  }

  answerFacts(answer: Record<string, unknown>): { usage: unknown; toolCalls: ProposedCall[] } {
    const choices = (answer.choices ?? []) as WireChoice[];
    const toolCalls = choices.flatMap((choice) =>
      Array.isArray(choice.message?.tool_calls) ? choice.message.tool_calls.map((call) => ({ name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' })) : [],
    );
    return { usage: answer.usage ?? null, toolCalls };
  }

  /** A whole answer: each choice's text as `output`, each proposed tool call as `tool_args`. */
  async governAnswer(answer: Record<string, unknown>, { checks }: GovernedCall<ChatBody>): Promise<CheckedPart[]> {
    const parts: CheckedPart[] = [];
    for (const choice of (answer.choices ?? []) as WireChoice[]) parts.push(...(await governChoice(choice, checks)));
    return parts;
  }

  openStream(call: GovernedCall<ChatBody>, sink: StreamSink): StreamTranslator {
    return new ChatStream(call, sink, this.holdbackChars);
  }

  /** The last user message and the first choice's text as returned, when the call names its session. */
  conversationTurn(call: GovernedCall<ChatBody>, answer: Record<string, unknown>): { userText: string | null; agentText: string | null } | null {
    const header = call.headers['x-parapet-session'];
    const named = (typeof header === 'string' && header !== '') || (typeof call.body.user === 'string' && call.body.user !== '');
    if (!named) return null;
    const lastUser = call.body.messages.findLast((message) => message.role === 'user');
    const content = ((answer.choices ?? []) as WireChoice[])[0]?.message?.content;
    return { userText: lastUser === undefined ? null : messageText(lastUser), agentText: typeof content === 'string' ? content : null };
  }
}

async function governChoice(choice: WireChoice, checks: ProxyChecks): Promise<CheckedPart[]> {
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

interface StreamedChunk {
  choices?: Array<{ index?: number; delta?: Record<string, unknown>; finish_reason?: string | null }>;
  usage?: TokenUsage | null;
  [key: string]: unknown;
}

/**
 * A streamed answer. Text is released through a hold-back window per choice; tool-call deltas are
 * assembled and held until the end, then checked and released whole; the finish of each choice is
 * held until its checks are done. A block stops the stream: a final chunk says why, with
 * finish_reason content_filter and `parapet`, then [DONE]; the upstream is aborted.
 */
class ChatStream implements StreamTranslator {
  private readonly template: Record<string, unknown>;
  private readonly states = new Map<number, ChoiceState>();
  private wireUsage: TokenUsage | null = null;
  private usageChunk: Record<string, unknown> | null = null;
  private readonly callerWantsUsage: boolean;

  constructor(
    private readonly call: GovernedCall<ChatBody>,
    private readonly sink: StreamSink,
    private readonly holdbackChars: number,
  ) {
    this.template = { id: `chatcmpl-parapet-${call.traceId}`, object: 'chat.completion.chunk', created: nowSeconds(), model: call.body.model };
    this.callerWantsUsage = call.body.stream_options?.include_usage === true;
  }

  private async write(payload: unknown): Promise<void> {
    await this.sink.events.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
  }

  private chunk(choices: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { ...this.template, choices, ...extra };
  }

  private stateOf(index: number): ChoiceState {
    let state = this.states.get(index);
    if (state === undefined) {
      state = { holdback: new OutputHoldback(this.call.checks, this.holdbackChars), calls: new Map(), finish: null, released: false };
      this.states.set(index, state);
    }
    return state;
  }

  private async finishWithBlock(index: number, part: CheckedPart, releasedAny: boolean): Promise<void> {
    const field = parapetField([...this.call.requestParts, ...collected(this.states), part], true) as ParapetField;
    const delta = { content: `${releasedAny ? '\n\n' : ''}${part.decision.reason}` };
    await this.write(this.chunk([{ index, delta, finish_reason: 'content_filter' }], { parapet: field }));
    await this.write('[DONE]');
    this.sink.events.raw.addTrailers({ 'x-parapet-verdict': field.verdict });
  }

  async onEvent(data: string): Promise<StreamStep> {
    if (data === '[DONE]') return 'complete';
    const parsed = JSON.parse(data) as StreamedChunk;
    for (const key of ['id', 'created', 'model', 'system_fingerprint', 'service_tier']) if (parsed[key] !== undefined && parsed[key] !== null) this.template[key] = parsed[key];
    if (parsed.usage !== undefined && parsed.usage !== null) {
      this.wireUsage = parsed.usage;
      this.usageChunk = parsed;
    }
    for (const choice of parsed.choices ?? []) {
      const index = choice.index ?? 0;
      const state = this.stateOf(index);
      const delta = choice.delta ?? {};
      if (typeof delta.role === 'string') await this.write(this.chunk([{ index, delta: { role: delta.role, content: '' }, finish_reason: null }]));
      if (typeof delta.refusal === 'string' && delta.refusal !== '') await this.write(this.chunk([{ index, delta: { refusal: delta.refusal }, finish_reason: null }]));
      if (typeof delta.content === 'string' && delta.content !== '') {
        const step = await state.holdback.push(delta.content);
        if (step.blocked !== null) {
          await this.finishWithBlock(index, step.blocked, state.released);
          return 'stop';
        }
        if (step.text !== '') {
          state.released = true;
          await this.write(this.chunk([{ index, delta: { content: step.text }, finish_reason: null }]));
        }
      }
      if (Array.isArray(delta.tool_calls)) for (const toolCall of delta.tool_calls as StreamedToolCall[]) assemble(state, toolCall);
      if (typeof choice.finish_reason === 'string') state.finish = choice.finish_reason;
    }
    return 'more';
  }

  /** An upstream that closes without [DONE] has still finished its answer; a torn last event is only logged. */
  async onUpstreamEnd(rest: string[]): Promise<'complete'> {
    for (const event of rest) if (event !== '[DONE]') this.sink.log.warn({ reqId: this.call.traceId }, 'chat-completions stream ended inside an event');
    return 'complete';
  }

  usage(): unknown {
    return this.wireUsage;
  }

  proposedCalls(): ProposedCall[] {
    return [...this.states.values()].flatMap((state) => [...state.calls.values()].map((toolCall) => ({ name: toolCall.name, arguments: toolCall.arguments })));
  }

  async refuseRun(stop: RunStop): Promise<void> {
    await this.finishWithBlock(0, runPart(stop), [...this.states.values()].some((state) => state.released));
  }

  /** The end: last window of each text, then the held tool calls, then each finish. */
  async release(): Promise<void> {
    const { checks } = this.call;
    const parts: CheckedPart[] = [...this.call.requestParts];
    const finishes: Array<{ index: number; delta: Record<string, unknown>; finish_reason: string | null }> = [];
    for (const [index, state] of [...this.states.entries()].sort(([a], [b]) => a - b)) {
      const step = await state.holdback.finish();
      if (step.blocked !== null) {
        await this.finishWithBlock(index, step.blocked, state.released);
        return;
      }
      if (step.text !== '') {
        state.released = true;
        await this.write(this.chunk([{ index, delta: { content: step.text }, finish_reason: null }]));
      }
      if (state.holdback.last !== null) parts.push(state.holdback.last);
      const calls = [...state.calls.values()].sort((a, b) => a.index - b.index);
      const callParts = await Promise.all(calls.map((toolCall) => checks.toolCall(toolCall.name, toolCall.arguments, toolCall.id)));
      const reasons: string[] = [];
      let released = 0;
      for (const [position, toolCall] of calls.entries()) {
        const part = callParts[position] as CheckedPart;
        parts.push(part);
        if (removed(part)) {
          reasons.push(part.note ?? part.decision.reason);
          continue;
        }
        const restored = checks.tokens.restore(toolCall.arguments);
        await this.write(this.chunk([{ index, delta: { tool_calls: [{ index: released, id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: restored } }] }, finish_reason: null }]));
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
      await this.write(this.chunk([finish], position === finishes.length - 1 && field !== null ? { parapet: field } : {}));
    }
    if (this.usageChunk !== null && this.callerWantsUsage) await this.write({ ...this.usageChunk, ...pick(this.template, ['id', 'created', 'model']) });
    await this.write('[DONE]');
    this.sink.events.raw.addTrailers({ 'x-parapet-verdict': field?.verdict ?? 'allow' });
  }

  async failed(): Promise<void> {
    await this.write({ error: { message: 'the upstream stream failed', type: 'upstream_error' } });
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
