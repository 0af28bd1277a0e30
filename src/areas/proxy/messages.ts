// POST /v1/messages: the messages wire format for the governed-call flow (flow.ts). The request's
// system and new user text are the input, its tool_result blocks tool results; the answer's text
// blocks are output, each tool_use block a tool call checked against grants; a stream is released
// under the hold-back window per text block; a refusal is a message with stop_reason refusal.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ProposedCall, RunStop } from '../usage/service.js';
import { applyReplacements, parapetField, removed, stops, type CheckedPart, type ParapetField, type ProxyChecks, type TokenVault } from './checks.js';
import { runPart, type GovernedCall, type StreamSink, type StreamStep, type StreamTranslator, type WireAdapter } from './flow.js';
import { OutputHoldback } from './holdback.js';
import type { UpstreamCall } from './upstream.js';
import type { TokenUsage } from './usage.js';

/** The provider's API version when the caller names none (its clients always send one). */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/** A content block as the wire carries it; only the fields the proxy reads are typed. */
interface WireBlock {
  type?: unknown;
  text?: unknown;
  [key: string]: unknown;
}

interface WireMessage {
  role: string;
  content: string | WireBlock[];
  [key: string]: unknown;
}

export interface MessagesBody {
  model: string;
  messages: WireMessage[];
  max_tokens: number;
  system?: string | WireBlock[];
  stream?: boolean;
  metadata?: { user_id?: unknown; [key: string]: unknown };
  [key: string]: unknown;
}

interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

interface WireAnswer {
  id?: string;
  model?: string;
  content?: WireBlock[];
  stop_reason?: string | null;
  usage?: WireUsage;
  [key: string]: unknown;
}

/** Where one checked text lives in the request, to write a tokenized version back. */
type Slot = { holder: Record<string, unknown>; key: string };

const isTextBlock = (block: unknown): block is WireBlock & { text: string } =>
  block !== null && typeof block === 'object' && (block as WireBlock).type === 'text' && typeof (block as WireBlock).text === 'string';

/** A string field, or the `text` of each text block of a block list. */
function textSlots(holder: Record<string, unknown>, key: string): Array<{ slot: Slot; text: string }> {
  const value = holder[key];
  if (typeof value === 'string') return [{ slot: { holder, key }, text: value }];
  if (!Array.isArray(value)) return [];
  return value.filter(isTextBlock).map((block) => ({ slot: { holder: block, key: 'text' }, text: block.text }));
}

const joinedText = (holder: Record<string, unknown>, key: string): string => textSlots(holder, key).map(({ text }) => text).join('\n');

const SEPARATOR = '\n\n';

/**
 * The session that links tool results to later tool calls (taint): the `X-Parapet-Session` header,
 * else `metadata.user_id`, else one derived from the system prompt and the first user message
 * (the same conversation sends them again on every turn).
 */
export function messagesSessionOf(header: unknown, body: MessagesBody): string {
  if (typeof header === 'string' && header !== '') return header.slice(0, 500);
  const user = body.metadata?.user_id;
  if (typeof user === 'string' && user !== '') return user.slice(0, 500);
  const hash = createHash('sha256');
  hash.update(`system\u0000${joinedText(body as Record<string, unknown>, 'system')}\u0000`);
  const first = body.messages[0];
  if (first !== undefined) hash.update(`${first.role}\u0000${joinedText(first, 'content')}`);
  return `messages:${hash.digest('hex').slice(0, 24)}`;
}

/** Upstream usage in the ledger's terms: cached input counts as prompt tokens too. */
function tokenUsage(usage: WireUsage | null): TokenUsage | null {
  if (usage === null) return null;
  const n = (value: number | null | undefined) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const prompt = n(usage.input_tokens) + n(usage.cache_creation_input_tokens) + n(usage.cache_read_input_tokens);
  const completion = n(usage.output_tokens);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** A tool_use block's input as the text ProxyChecks.toolCall parses: anything but an object is removed there. */
const inputText = (input: unknown): string => (input === undefined ? '' : JSON.stringify(input));

/** Tokens restored in every string of a tool's input (not in its JSON text, where a value would need escaping). */
function restoreDeep(value: unknown, tokens: Pick<TokenVault, 'restore' | 'size'>): unknown {
  if (tokens.size === 0) return value;
  if (typeof value === 'string') return tokens.restore(value);
  if (Array.isArray(value)) return value.map((item) => restoreDeep(item, tokens));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, restoreDeep(item, tokens)]));
  return value;
}

const sse = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** The messages wire format (POST /v1/messages, upstream `/v1/messages`). */
export class MessagesAdapter implements WireAdapter<MessagesBody> {
  readonly name = 'messages';
  readonly keySetting = 'upstream_anthropic_api_key';

  constructor(private readonly holdbackChars: number) {}

  sessionOf(headers: IncomingHttpHeaders, body: MessagesBody): string {
    return messagesSessionOf(headers['x-parapet-session'], body);
  }

  /**
   * The request's checks: the system prompt and the new user turn's text blocks (the user messages
   * after the last assistant message, or the last user message) as one `input`; each tool_result
   * block of that turn as `tool_result`. Tokenized personal data replaces the text it came from.
   */
  async checkRequest(body: MessagesBody, checks: ProxyChecks): Promise<CheckedPart[]> {
    const { messages } = body;
    const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
    let users = messages.filter((message, index) => message.role === 'user' && index > lastAssistant);
    if (users.length === 0) {
      const lastUser = messages.findLast((message) => message.role === 'user');
      users = lastUser === undefined ? [] : [lastUser];
    }
    const inputSlots = textSlots(body as Record<string, unknown>, 'system');
    const toolResults: WireBlock[] = [];
    for (const message of users) {
      inputSlots.push(...textSlots(message, 'content'));
      if (Array.isArray(message.content)) toolResults.push(...message.content.filter((block) => block !== null && typeof block === 'object' && block.type === 'tool_result'));
    }

    const [input, toolParts] = await Promise.all([
      // A turn of tool results alone, without a system prompt, has no input to check.
      inputSlots.length === 0 ? null : checks.input(inputSlots.map(({ text }) => text)),
      Promise.all(toolResults.map((block) => checks.toolResult(joinedText(block, 'content'), typeof block.tool_use_id === 'string' ? block.tool_use_id : undefined))),
    ]);
    if (input === null) return toolParts;
    if (input.part.outcome === 'transformed') {
      input.segments.forEach((text, index) => {
        const { slot } = inputSlots[index] as { slot: Slot };
        slot.holder[slot.key] = text;
      });
    }
    return [input.part, ...toolParts];
  }

  /** The caller's API version and beta flags go along; the key is the gateway's. */
  upstreamCall(body: MessagesBody, headers: IncomingHttpHeaders, apiKey: string): UpstreamCall {
    const upstreamHeaders: Record<string, string> = {
      'content-type': 'application/json',
      'x-api-key': apiKey,
      'anthropic-version': headerValue(headers['anthropic-version']) ?? DEFAULT_ANTHROPIC_VERSION,
      accept: body.stream === true ? 'text/event-stream' : 'application/json',
    };
    const beta = headerValue(headers['anthropic-beta']);
    if (beta !== undefined) upstreamHeaders['anthropic-beta'] = beta;
    return { path: '/v1/messages', headers: upstreamHeaders, body: JSON.stringify(body) };
  }

  refusal(model: string, text: string, field: ParapetField): Record<string, unknown> {
    return refusalMessage(model, text, field);
  }

  refusalEvents(model: string, text: string, field: ParapetField): string {
    return refusalEvents(model, text, field);
  }

  tokenUsage(usage: unknown): TokenUsage | null {
    return tokenUsage((usage as WireUsage | null | undefined) ?? null);
  }

  answerFacts(answer: Record<string, unknown>): { usage: unknown; toolCalls: ProposedCall[] } {
    const toolCalls = toolUses(answer as WireAnswer).map((block) => ({ name: typeof block.name === 'string' ? block.name : '', arguments: block.input ?? {} }));
    return { usage: answer.usage ?? null, toolCalls };
  }

  /**
   * A whole answer: all text blocks as one `output` (a block replaces the content with the reason),
   * each tool_use block as `tool_args` (a stopped one is removed; all removed is a refusal).
   */
  async governAnswer(answer: Record<string, unknown>, { checks }: GovernedCall<MessagesBody>): Promise<CheckedPart[]> {
    const message = answer as WireAnswer;
    const content = Array.isArray(message.content) ? message.content : [];
    const texts = content.filter(isTextBlock);
    const uses = toolUses(message);

    const joined = texts.map((block) => block.text).join(SEPARATOR);
    // Reasoning is shown to the caller too: checked apart, for a block only (it is signed, so never masked).
    const thinking = content
      .filter((block) => block !== null && typeof block === 'object' && block.type === 'thinking' && typeof block.thinking === 'string')
      .map((block) => block.thinking as string)
      .join(SEPARATOR);
    const [output, thought, ...useParts] = await Promise.all([
      joined === '' ? Promise.resolve(null) : checks.output(joined),
      thinking === '' ? Promise.resolve(null) : checks.output(thinking),
      ...uses.map((block) => checks.toolCall(typeof block.name === 'string' ? block.name : '', inputText(block.input), typeof block.id === 'string' ? block.id : undefined)),
    ]);
    const parts: CheckedPart[] = [];
    if (thought !== null && thought !== undefined) parts.push(thought.part);
    if (output !== null && output !== undefined) parts.push(output.part);
    const reasons: string[] = [];
    const dropped = new Set<WireBlock>();
    uses.forEach((block, index) => {
      const part = useParts[index] as CheckedPart;
      parts.push(part);
      if (removed(part)) {
        dropped.add(block);
        reasons.push(part.note ?? part.decision.reason);
      } else block.input = restoreDeep(block.input, checks.tokens);
    });

    const stopping = [thought, output].find((check) => check !== null && check !== undefined && stops(check.part.decision));
    if (stopping !== undefined && stopping !== null) {
      message.content = [{ type: 'text', text: stopping.part.decision.reason }];
      message.stop_reason = 'refusal';
      message.stop_sequence = null;
    } else {
      // Masks apply per block: each block's span of the joined text, then the caller's tokens back.
      let offset = 0;
      for (const block of texts) {
        const end = offset + block.text.length;
        block.text = checks.tokens.restore(applyReplacements(joined, output?.replacements ?? [], offset, end));
        offset = end + SEPARATOR.length;
      }
      const kept = content.filter((block) => !dropped.has(block));
      if (uses.length > 0 && dropped.size === uses.length) {
        kept.push({ type: 'text', text: reasons.join(SEPARATOR) });
        message.stop_reason = 'refusal';
        message.stop_sequence = null;
      }
      message.content = kept;
    }
    return parts;
  }

  openStream(call: GovernedCall<MessagesBody>, sink: StreamSink): StreamTranslator {
    return messagesStream(call, sink, this.holdbackChars);
  }

  /** The last user message's text and the answer's text blocks, when the call names its session. */
  conversationTurn(call: GovernedCall<MessagesBody>, answer: Record<string, unknown>): { userText: string | null; agentText: string | null } | null {
    const header = call.headers['x-parapet-session'];
    const user = call.body.metadata?.user_id;
    if (!((typeof header === 'string' && header !== '') || (typeof user === 'string' && user !== ''))) return null;
    const lastUser = call.body.messages.findLast((message) => message.role === 'user');
    const userText = lastUser === undefined ? null : textSlots(lastUser, 'content').map(({ text }) => text).join('\n');
    const blocks = Array.isArray(answer.content) ? (answer.content as unknown[]).filter(isTextBlock) : [];
    return { userText, agentText: blocks.length === 0 ? null : blocks.map((block) => block.text).join('\n') };
  }
}

const toolUses = (message: WireAnswer): WireBlock[] =>
  (Array.isArray(message.content) ? message.content : []).filter((block) => block !== null && typeof block === 'object' && block.type === 'tool_use');

/**
 * A streamed answer. Text deltas go through a hold-back window per text block; tool_use blocks
 * are held to the end of the stream (a run that loops must not get its call), then checked
 * whole and released only if allowed (block indices are renumbered so that the caller sees no
 * gap); the final message_delta waits for every check and carries `parapet`. A block ends the
 * stream with a text block saying why, stop_reason refusal and message_stop, and aborts the upstream.
 */
function messagesStream({ traceId, body, checks, requestParts }: GovernedCall<MessagesBody>, { events }: StreamSink, holdbackChars: number): StreamTranslator {
  const raw = events.raw;
  const write = async (type: string, data: Record<string, unknown>): Promise<void> => events.write(sse(type, data));

  const blocks = new Map<number, StreamBlock>();
  /** Blocks the caller has seen start and not stop, by the caller's index. */
  const open = new Set<number>();
  const toolParts: CheckedPart[] = [];
  const thinkingParts: CheckedPart[] = [];
  const reasons: string[] = [];
  /** tool_use blocks the upstream finished, in order, waiting for the end of the stream. */
  const heldUses: HeldUse[] = [];
  let nextIndex = 0;
  let started = false;
  // Set by the event handler below.
  const seen: { usage: WireUsage | null; finalDelta: Record<string, unknown> | null; stopped: boolean; blocked: boolean } = {
    usage: null,
    finalDelta: null,
    stopped: false,
    blocked: false,
  };

  const start = async (): Promise<void> => {
    if (started) return;
    started = true;
    await write('message_start', {
      message: { id: `msg_parapet_${traceId}`, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
    });
  };
  const openText = async (block: TextBlock): Promise<number> => {
    if (block.clientIndex === null) {
      block.clientIndex = nextIndex++;
      open.add(block.clientIndex);
      await write('content_block_start', { index: block.clientIndex, content_block: { ...block.start, text: '' } });
    }
    return block.clientIndex;
  };
  const releaseText = async (block: TextBlock, text: string): Promise<void> => {
    if (text === '') return;
    await write('content_block_delta', { index: await openText(block), delta: { type: 'text_delta', text } });
  };
  const checked = (): CheckedPart[] => [
    ...requestParts,
    ...[...blocks.values()].flatMap((block) => (block.kind === 'text' && block.holdback.last !== null && !stops(block.holdback.last.decision) ? [block.holdback.last] : [])),
    ...thinkingParts,
    ...toolParts,
  ];
  const refuse = async (part: CheckedPart): Promise<void> => {
    seen.blocked = true;
    await start();
    for (const index of open) await write('content_block_stop', { index });
    open.clear();
    const field = parapetField([...checked(), part], true) as ParapetField;
    const index = nextIndex++;
    await write('content_block_start', { index, content_block: { type: 'text', text: '' } });
    await write('content_block_delta', { index, delta: { type: 'text_delta', text: part.decision.reason } });
    await write('content_block_stop', { index });
    await write('message_delta', { delta: { stop_reason: 'refusal', stop_sequence: null }, usage: { output_tokens: seen.usage?.output_tokens ?? 0 }, parapet: field });
    await write('message_stop', {});
    raw.addTrailers({ 'x-parapet-verdict': field.verdict });
  };


  /** One upstream event; false when the stream must end here. */
  const onEvent = async (event: StreamEvent): Promise<boolean> => {
    switch (event.type) {
      case 'message_start': {
        const message = (event.message ?? {}) as WireAnswer;
        seen.usage = { ...(message.usage ?? {}) };
        started = true;
        await write('message_start', { message: { ...message, content: [] } });
        return true;
      }
      case 'ping':
        await write('ping', {});
        return true;
      case 'content_block_start': {
        const index = event.index ?? 0;
        const block = (event.content_block ?? {}) as WireBlock;
        if (block.type === 'text') {
          const state: TextBlock = { kind: 'text', start: block, holdback: new OutputHoldback(checks, holdbackChars), clientIndex: null, held: [] };
          blocks.set(index, state);
          // A text block may start with text: it goes through the window like any delta.
          if (typeof block.text === 'string' && block.text !== '') return pushText(state, block.text, releaseText, refuse);
        } else if (block.type === 'tool_use') {
          blocks.set(index, { kind: 'tool_use', start: block, json: '' });
        } else if (block.type === 'thinking') {
          blocks.set(index, { kind: 'thinking', start: block, text: typeof block.thinking === 'string' ? block.thinking : '', deltas: [] });
        } else {
          const clientIndex = nextIndex++;
          blocks.set(index, { kind: 'other', clientIndex });
          open.add(clientIndex);
          await write('content_block_start', { index: clientIndex, content_block: block });
        }
        return true;
      }
      case 'content_block_delta': {
        const state = blocks.get(event.index ?? 0);
        const delta = (event.delta ?? {}) as { type?: string; text?: unknown; partial_json?: unknown };
        if (state === undefined) return true;
        if (state.kind === 'text') {
          if (delta.type === 'text_delta' && typeof delta.text === 'string') return pushText(state, delta.text, releaseText, refuse);
          // Citations refer to the block's text: they follow it once it is all released.
          state.held.push(delta);
        } else if (state.kind === 'tool_use') {
          if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') state.json += delta.partial_json;
        } else if (state.kind === 'thinking') {
          if (delta.type === 'thinking_delta' && typeof (delta as { thinking?: unknown }).thinking === 'string') state.text += (delta as { thinking: string }).thinking;
          state.deltas.push(delta);
        } else await write('content_block_delta', { index: state.clientIndex, delta });
        return true;
      }
      case 'content_block_stop': {
        const state = blocks.get(event.index ?? 0);
        if (state === undefined) return true;
        if (state.kind === 'text') {
          const step = await state.holdback.finish();
          if (step.blocked !== null) {
            await refuse(step.blocked);
            return false;
          }
          await releaseText(state, step.text);
          const index = await openText(state);
          for (const delta of state.held) await write('content_block_delta', { index, delta });
          open.delete(index);
          await write('content_block_stop', { index });
        } else if (state.kind === 'tool_use') {
          // Streamed input arrives as JSON text; a start that already carries input (no deltas) counts too.
          const text = state.json !== '' ? state.json : inputText(isEmptyObject(state.start.input) ? undefined : state.start.input);
          heldUses.push({ start: state.start, name: typeof state.start.name === 'string' ? state.start.name : '', text });
        } else if (state.kind === 'thinking') {
          // Reasoning is shown to the caller: checked whole before any of it leaves (not masked: it is signed).
          const part = (await checks.output(state.text)).part;
          thinkingParts.push(part);
          if (stops(part.decision)) {
            await refuse(part);
            return false;
          }
          const index = nextIndex++;
          await write('content_block_start', { index, content_block: state.start });
          for (const delta of state.deltas) await write('content_block_delta', { index, delta });
          await write('content_block_stop', { index });
        } else {
          open.delete(state.clientIndex);
          await write('content_block_stop', { index: state.clientIndex });
        }
        return true;
      }
      case 'message_delta': {
        seen.finalDelta = (event.delta ?? {}) as Record<string, unknown>;
        const more = (event.usage ?? {}) as WireUsage;
        seen.usage = { ...(seen.usage ?? {}), ...Object.fromEntries(Object.entries(more).filter(([, value]) => value !== null && value !== undefined)) };
        return true;
      }
      case 'message_stop':
        seen.stopped = true;
        return false;
      case 'error':
        // The upstream failed mid-stream: the caller gets its error; held text is never released.
        await write('error', { error: event.error ?? { type: 'api_error', message: 'the upstream stream failed' } });
        return false;
      default:
        return true;
    }
  };

  const step = (going: boolean): StreamStep => (going ? 'more' : seen.stopped ? 'complete' : 'stop');

  return {
    onEvent: async (data) => step(await onEvent(JSON.parse(data) as StreamEvent)),
    async onUpstreamEnd(rest) {
      let going = true;
      for (const payload of rest) if (going) going = await onEvent(JSON.parse(payload) as StreamEvent);
      if (seen.stopped) return 'complete';
      if (going && !seen.blocked) await write('error', { error: { type: 'api_error', message: 'the upstream stream ended before message_stop' } });
      return 'stop';
    },
    usage: () => seen.usage,
    proposedCalls: () => heldUses.map((use) => ({ name: use.name, arguments: use.text.trim() === '' ? {} : use.text })),
    refuseRun: async (stop: RunStop) => refuse(runPart(stop)),
    async release() {
      // The held tool_use blocks: checked together, each released whole if allowed.
      const useParts = await Promise.all(heldUses.map((use) => checks.toolCall(use.name, use.text, typeof use.start.id === 'string' ? use.start.id : undefined)));
      for (const [position, use] of heldUses.entries()) {
        const part = useParts[position] as CheckedPart;
        toolParts.push(part);
        if (removed(part)) {
          reasons.push(part.note ?? part.decision.reason);
          continue;
        }
        const index = nextIndex++;
        const input = restoreDeep(use.text.trim() === '' ? {} : (JSON.parse(use.text) as unknown), checks.tokens);
        await write('content_block_start', { index, content_block: { ...use.start, input: {} } });
        await write('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } });
        await write('content_block_stop', { index });
      }

      // The end: every check is done, so the stop reason and verdict are known.
      const parts = checked();
      let stopReason = (seen.finalDelta?.stop_reason as string | null | undefined) ?? null;
      const toolsAllRemoved = toolParts.length > 0 && toolParts.every(removed);
      if (toolsAllRemoved) {
        await start();
        const index = nextIndex++;
        await write('content_block_start', { index, content_block: { type: 'text', text: '' } });
        await write('content_block_delta', { index, delta: { type: 'text_delta', text: reasons.join(SEPARATOR) } });
        await write('content_block_stop', { index });
        stopReason = 'refusal';
      }
      const field = parapetField(parts, true);
      await write('message_delta', {
        delta: { ...(seen.finalDelta ?? {}), stop_reason: stopReason, stop_sequence: toolsAllRemoved ? null : (seen.finalDelta?.stop_sequence ?? null) },
        usage: { output_tokens: seen.usage?.output_tokens ?? 0 },
        ...(field === null ? {} : { parapet: field }),
      });
      await write('message_stop', {});
      raw.addTrailers({ 'x-parapet-verdict': field?.verdict ?? 'allow' });
    },
    async failed() {
      await write('error', { error: { type: 'api_error', message: 'the upstream stream failed' } });
    },
  };
}

/** A text delta through the block's window: checked text goes out; a block ends the stream. */
async function pushText(
  block: TextBlock,
  text: string,
  release: (block: TextBlock, text: string) => Promise<void>,
  refuse: (part: CheckedPart) => Promise<void>,
): Promise<boolean> {
  const step = await block.holdback.push(text);
  if (step.blocked !== null) {
    await refuse(step.blocked);
    return false;
  }
  await release(block, step.text);
  return true;
}

interface StreamEvent {
  type?: string;
  index?: number;
  message?: unknown;
  content_block?: unknown;
  delta?: unknown;
  usage?: unknown;
  error?: unknown;
  [key: string]: unknown;
}

/** A tool_use block the upstream finished: its start event, tool name and input as JSON text. */
interface HeldUse {
  start: WireBlock;
  name: string;
  text: string;
}

interface TextBlock {
  kind: 'text';
  start: WireBlock;
  holdback: OutputHoldback;
  /** The caller's index of this block, once any of it was sent. */
  clientIndex: number | null;
  /** Non-text deltas (citations) sent after the block's text. */
  held: unknown[];
}

type StreamBlock =
  | TextBlock
  | { kind: 'tool_use'; start: WireBlock; json: string }
  /** Reasoning, held whole with its deltas (thinking and signature) until checked. */
  | { kind: 'thinking'; start: WireBlock; text: string; deltas: unknown[] }
  /** Blocks the proxy does not read (redacted thinking, server tools and their results) pass through, renumbered. */
  | { kind: 'other'; clientIndex: number };

const isEmptyObject = (value: unknown): boolean => value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;

const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(',') : value === '' ? undefined : value);

/** The answer to a request that was not forwarded (CONTRACT.md "Answers"). */
export function refusalMessage(model: string, text: string, field: ParapetField): Record<string, unknown> {
  return {
    id: `msg_parapet_${field.decision_id}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'refusal',
    stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 0 },
    parapet: field,
  };
}

/** The same refusal as the event sequence a streaming caller expects. */
export function refusalEvents(model: string, text: string, field: ParapetField): string {
  const message = refusalMessage(model, text, field);
  return [
    sse('message_start', { message: { ...message, content: [], stop_reason: null, parapet: undefined } }),
    sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
    sse('content_block_stop', { index: 0 }),
    sse('message_delta', { delta: { stop_reason: 'refusal', stop_sequence: null }, usage: { output_tokens: 0 }, parapet: field }),
    sse('message_stop', {}),
  ].join('');
}
