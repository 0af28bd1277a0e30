// POST /v1/responses: the responses wire format of the first provider for the governed-call flow
// (flow.ts), with the same promise as chat completions: the request is checked
// before it leaves (instructions and new input as `input`, tool outputs as `tool_result`, every
// requested built-in tool as a tool the agent must be granted), the answer is checked before the
// caller sees it (text as `output`, each tool call the client would run as `tool_args`), and a
// blocked request is answered here, in the caller's format, without calling the upstream.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Type, type Static } from 'typebox';
import type { RunStop } from '../usage/service.js';
import { parapetField, removed, stops, type CheckedPart, type ParapetField, type ProxyChecks } from './checks.js';
import { runPart, type AnswerFacts, type GovernedCall, type StreamSink, type StreamStep, type StreamTranslator, type WireAdapter } from './flow.js';
import { OutputHoldback } from './holdback.js';
import { ParapetContext, PROXY_BODY_LIMIT } from './schemas.js';
import type { UpstreamCall } from './upstream.js';
import type { TokenUsage } from './usage.js';

/** Only what the proxy reads is validated; every other field passes to the upstream as given. */
export const ResponsesBody = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    input: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Unknown(), { maxItems: 100_000 })], { description: 'a text, or a list of input items' })),
    stream: Type.Optional(Type.Boolean()),
    tools: Type.Optional(Type.Array(Type.Object({ type: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: true }), { maxItems: 1000 })),
    parapet_context: ParapetContext,
  },
  { additionalProperties: true, 'x-body-limit': PROXY_BODY_LIMIT, description: 'a responses request; fields besides these pass to the upstream as given' },
);
export type ResponsesBody = Static<typeof ResponsesBody>;

export const ResponseObjectSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.String(),
    output: Type.Array(Type.Object({}, { additionalProperties: true })),
    parapet: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'the decisive Decision, with `forwarded` and every check in `decisions`; absent only when there was nothing to check' }),
    ),
  },
  { additionalProperties: true, description: 'a response object (or, with stream: true, text/event-stream events)' },
);

type Item = Record<string, unknown>;

export interface ResponsesWireBody {
  model: string;
  input?: string | unknown[];
  instructions?: unknown;
  tools?: Item[];
  tool_choice?: unknown;
  stream?: boolean;
  user?: unknown;
  safety_identifier?: unknown;
  previous_response_id?: unknown;
  conversation?: unknown;
  prompt?: unknown;
  [key: string]: unknown;
}

/** Tools the client runs itself: their calls come back in the answer and are checked there. */
const CLIENT_TOOL_TYPES = new Set(['function', 'custom', 'namespace']);
/** tool_choice forms that name no hosted tool of their own. */
const PLAIN_TOOL_CHOICES = new Set(['function', 'custom', 'allowed_tools', 'mcp']);
/** Items the model produced (earlier turns sent again): what comes after the last one is the new turn. */
const MODEL_ITEM_TYPES = new Set([
  'function_call',
  'custom_tool_call',
  'reasoning',
  'web_search_call',
  'file_search_call',
  'computer_call',
  'code_interpreter_call',
  'image_generation_call',
  'local_shell_call',
  'shell_call',
  'apply_patch_call',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
  'tool_search_call',
]);
/** Outputs of tools the client ran, handed back to the model: untrusted. */
const TOOL_OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output', 'shell_call_output', 'apply_patch_call_output', 'computer_call_output']);
/**
 * Built-in tools whose calls the client runs (a shell command, a patch, a computer action): each
 * call is checked against `responses:<tool type>` with its action as arguments, beyond the grant of
 * the tool itself at request time. The first type listed is the default when the request names none.
 */
const CLIENT_RUN_BUILTINS: Record<string, string[]> = {
  local_shell_call: ['local_shell'],
  shell_call: ['shell'],
  apply_patch_call: ['apply_patch'],
  computer_call: ['computer_use_preview', 'computer'],
};
/** Fields of a built-in tool's config that carry credentials: neither checked nor recorded. */
const CREDENTIAL_FIELDS = new Set(['headers', 'authorization']);

const isObject = (value: unknown): value is Item => value !== null && typeof value === 'object' && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A text of the request, and where to write its tokenized version back. */
interface TextSlot {
  text: string;
  write(text: string): void;
}

/** The texts of a message's content: a string, or the `input_text` (and `text`) parts; images and files are not read. */
function contentSlots(holder: Item, key = 'content'): TextSlot[] {
  const content = holder[key];
  if (typeof content === 'string') return [{ text: content, write: (text) => (holder[key] = text) }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part): TextSlot[] =>
    isObject(part) && (part.type === 'input_text' || part.type === 'text') && typeof part.text === 'string' ? [{ text: part.text, write: (text) => (part.text = text) }] : [],
  );
}

/** The text of a tool's output: a string, text parts, or a shell's stdout and stderr. */
function outputText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return isObject(value) && typeof value.text === 'string' ? value.text : '';
  return value
    .map((part) => {
      if (typeof part === 'string') return part;
      if (!isObject(part)) return '';
      if (typeof part.text === 'string') return part.text;
      return [str(part.stdout), str(part.stderr)].filter((text) => text !== undefined && text !== '').join('\n');
    })
    .filter((text) => text !== '')
    .join('\n');
}

/** How a tool call the client would run is checked: its tool key, arguments as JSON text, call id. */
interface ProposedCall {
  tool: string;
  args: string;
  callId?: string;
}

/** The call an output item proposes to the client, or null for items that need no tool check. */
function proposedCall(item: Item, requested: ReadonlySet<string>): ProposedCall | null {
  const callId = str(item.call_id);
  const base = callId === undefined ? {} : { callId };
  if (item.type === 'function_call') return { tool: str(item.name) ?? '', args: str(item.arguments) ?? '', ...base };
  // Free-form input is not JSON: it is checked as the argument `input`.
  if (item.type === 'custom_tool_call') return { tool: str(item.name) ?? '', args: JSON.stringify({ input: str(item.input) ?? '' }), ...base };
  const types = CLIENT_RUN_BUILTINS[str(item.type) ?? ''];
  if (types === undefined) return null;
  const type = types.find((candidate) => requested.has(candidate)) ?? (types[0] as string);
  const action = item.action ?? item.operation ?? {};
  return { tool: `responses:${type}`, args: JSON.stringify(isObject(action) ? action : { action }), ...base };
}

/** The arguments a built-in tool is checked with: its config, without credentials it carries. */
function toolConfig(tool: Item): string {
  return JSON.stringify(Object.fromEntries(Object.entries(tool).filter(([key]) => !CREDENTIAL_FIELDS.has(key))));
}

const SESSION_MEMORY = 10_000;

/**
 * Sessions of the responses this process answered, by response id: a request that continues one
 * (`previous_response_id`) stays in its session, so taint carries along a chain of turns.
 */
class ResponseSessions {
  private readonly byId = new Map<string, string>();

  get(id: string): string | undefined {
    return this.byId.get(id);
  }

  set(id: string, session: string): void {
    if (this.byId.size >= SESSION_MEMORY) this.byId.delete(this.byId.keys().next().value as string);
    this.byId.set(id, session);
  }
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** The usage of a response in the ledger's words. */
function ledgerUsage(usage: unknown): TokenUsage | null {
  if (!isObject(usage)) return null;
  return { prompt_tokens: usage.input_tokens as number, completion_tokens: usage.output_tokens as number, total_tokens: usage.total_tokens as number };
}

/** The convenience `output_text`: every output_text part of every message, in order. */
function joinedOutputText(output: readonly Item[]): string {
  return output
    .filter((item) => item.type === 'message')
    .flatMap((item) => (Array.isArray(item.content) ? item.content : []))
    .filter((part): part is Item => isObject(part) && part.type === 'output_text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('');
}

/** An assistant message carrying the gateway's reason. */
function reasonMessage(id: string, text: string): Item {
  return { type: 'message', id, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
}

/** The answer to a request that was not forwarded (CONTRACT.md "Answers", in this wire format). */
export function refusalResponse(model: string, text: string, field: ParapetField): Item {
  return {
    id: `resp_parapet_${field.decision_id}`,
    object: 'response',
    created_at: nowSeconds(),
    status: 'incomplete',
    incomplete_details: { reason: 'content_filter' },
    model,
    output: [reasonMessage(`msg_parapet_${field.decision_id}`, text)],
    output_text: text,
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    parapet: field,
  };
}

/** The same refusal as the event sequence a streaming client expects, numbered from 0. */
export function refusalEvents(model: string, text: string, field: ParapetField): Item[] {
  const final = refusalResponse(model, text, field);
  const message = (final.output as Item[])[0] as Item;
  const itemId = message.id as string;
  const started = { ...final, status: 'in_progress', incomplete_details: null, output: [], output_text: '', usage: null };
  delete (started as Item).parapet;
  const part = { type: 'output_text', text: '', annotations: [] };
  const events: Item[] = [
    { type: 'response.created', response: started },
    { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', item_id: itemId, output_index: 0, content_index: 0, part },
    { type: 'response.output_text.delta', item_id: itemId, output_index: 0, content_index: 0, delta: text, logprobs: [] },
    { type: 'response.output_text.done', item_id: itemId, output_index: 0, content_index: 0, text, logprobs: [] },
    { type: 'response.content_part.done', item_id: itemId, output_index: 0, content_index: 0, part: { ...part, text } },
    { type: 'response.output_item.done', output_index: 0, item: message },
    { type: 'response.incomplete', response: final },
  ];
  return events.map((event, index) => ({ ...event, sequence_number: index }));
}

const sse = (event: Item): string => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;

/** The responses wire format (POST /v1/responses, upstream `/responses`). */
export class ResponsesAdapter implements WireAdapter<ResponsesWireBody> {
  readonly name = 'responses';
  readonly keySetting = 'upstream_openai_api_key';
  private readonly sessions = new ResponseSessions();

  constructor(private readonly holdbackChars: number) {}

  /**
   * The session that links tool outputs to later tool calls (taint): `X-Parapet-Session`, else the
   * body's `user` or `safety_identifier`, else its `conversation`, else the session of the
   * response it continues (or that id itself), else a hash of the instructions and the first input
   * items.
   */
  sessionOf(headers: IncomingHttpHeaders, body: ResponsesWireBody): string {
    const header = headers['x-parapet-session'];
    if (typeof header === 'string' && header !== '') return header.slice(0, 500);
    for (const value of [body.user, body.safety_identifier]) if (typeof value === 'string' && value !== '') return value.slice(0, 500);
    // A conversation stored upstream keeps its id across turns: the natural session.
    const conversation = isObject(body.conversation) ? str(body.conversation.id) : str(body.conversation);
    if (conversation !== undefined && conversation !== '') return `responses:${conversation.slice(0, 200)}`;
    const previous = str(body.previous_response_id);
    if (previous !== undefined && previous !== '') return this.sessions.get(previous) ?? `responses:${previous.slice(0, 200)}`;
    const hash = createHash('sha256').update(`${typeof body.instructions === 'string' ? body.instructions : ''}\u0000`);
    if (typeof body.input === 'string') hash.update(body.input);
    else for (const item of (body.input ?? []).slice(0, 2)) hash.update(`${isObject(item) ? contentSlots(item).map((slot) => slot.text).join('\n') : ''}\u0000`);
    return `responses:${hash.digest('hex').slice(0, 24)}`;
  }

  /**
   * The request's checks: instructions, system/developer texts, prompt variables and the new user
   * texts (after the last item the model produced, else the last user message) as one `input`; each
   * new tool output as `tool_result`; each requested built-in tool as `tool_args` on
   * `responses:<type>`, because it runs upstream where the gateway cannot see its calls.
   */
  async checkRequest(body: ResponsesWireBody, checks: ProxyChecks): Promise<CheckedPart[]> {
    const slots: TextSlot[] = [];
    if (typeof body.instructions === 'string') slots.push({ text: body.instructions, write: (text) => (body.instructions = text) });
    if (isObject(body.prompt) && isObject(body.prompt.variables)) {
      const variables = body.prompt.variables;
      for (const [name, value] of Object.entries(variables)) {
        if (typeof value === 'string') slots.push({ text: value, write: (text) => (variables[name] = text) });
        else if (isObject(value)) slots.push(...contentSlots(value, 'text'));
      }
    }
    const toolOutputs: Item[] = [];
    if (typeof body.input === 'string') slots.push({ text: body.input, write: (text) => (body.input = text) });
    else if (Array.isArray(body.input)) {
      const items = body.input.filter(isObject);
      let lastModel = -1;
      items.forEach((item, index) => {
        if (item.role === 'assistant' || MODEL_ITEM_TYPES.has(str(item.type) ?? '')) lastModel = index;
      });
      const usersAfter: Item[] = [];
      let lastUser: Item | null = null;
      items.forEach((item, index) => {
        const isMessage = item.type === undefined || item.type === 'message';
        if (isMessage && (item.role === 'system' || item.role === 'developer')) slots.push(...contentSlots(item));
        else if (isMessage && item.role === 'user') {
          lastUser = item;
          if (index > lastModel) usersAfter.push(item);
        } else if (TOOL_OUTPUT_TYPES.has(str(item.type) ?? '') && index > lastModel) toolOutputs.push(item);
      });
      const users = usersAfter.length > 0 ? usersAfter : lastUser === null ? [] : [lastUser];
      for (const item of users) slots.push(...contentSlots(item));
    }

    const [input, toolParts, builtinParts] = await Promise.all([
      slots.length === 0 ? null : checks.input(slots.map((slot) => slot.text)),
      Promise.all(toolOutputs.map((item) => checks.toolResult(outputText(item.output), str(item.call_id)))),
      Promise.all(builtinTools(body).map((tool) => checks.toolCall(`responses:${String(tool.type)}`, toolConfig(tool)))),
    ]);
    if (input !== null && input.part.outcome === 'transformed') input.segments.forEach((text, index) => slots[index]?.write(text));
    return [...(input === null ? [] : [input.part]), ...toolParts, ...builtinParts];
  }

  upstreamCall(body: ResponsesWireBody, _headers: IncomingHttpHeaders, apiKey: string): UpstreamCall {
    return {
      path: '/responses',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, accept: body.stream === true ? 'text/event-stream' : 'application/json' },
      body: JSON.stringify(body),
    };
  }

  refusal(model: string, text: string, field: ParapetField): Record<string, unknown> {
    return refusalResponse(model, text, field);
  }

  refusalEvents(model: string, text: string, field: ParapetField): string {
    return refusalEvents(model, text, field).map(sse).join('');
  }

  tokenUsage(usage: unknown): TokenUsage | null {
    return ledgerUsage(usage);
  }

  /** A continuation of this response stays in the run, stopped or not. */
  answerFacts(response: Record<string, unknown>, call: GovernedCall<ResponsesWireBody>): AnswerFacts {
    if (typeof response.id === 'string') this.sessions.set(response.id, call.sessionId);
    const { callItems } = answerItems(response, requestedTypes(call.body));
    return { usage: response.usage ?? null, toolCalls: callItems.map(({ proposed }) => ({ name: proposed.tool, arguments: proposed.args })) };
  }

  /** A whole answer: each message's text as `output`, each call the client would run as `tool_args`. */
  async governAnswer(response: Record<string, unknown>, { checks, body }: GovernedCall<ResponsesWireBody>): Promise<CheckedPart[]> {
    const { output, textParts, callItems } = answerItems(response, requestedTypes(body));
    const [textChecks, callChecks] = await Promise.all([
      Promise.all(textParts.map((part) => checks.output(part.text as string))),
      Promise.all(callItems.map(({ proposed }) => checks.toolCall(proposed.tool, proposed.args, proposed.callId))),
    ]);

    const parts: CheckedPart[] = [];
    let contentFilter = false;
    textParts.forEach((part, index) => {
      const checked = (textChecks[index] as { part: CheckedPart }).part;
      parts.push(checked);
      if (stops(checked.decision)) {
        part.text = checked.decision.reason;
        part.annotations = [];
        contentFilter = true;
      } else part.text = checks.tokens.restore(checked.decision.transformed_content ?? (part.text as string));
    });
    const gone = new Set<Item>();
    const reasons: string[] = [];
    callItems.forEach(({ item }, index) => {
      const checked = callChecks[index] as CheckedPart;
      parts.push(checked);
      if (removed(checked)) {
        gone.add(item);
        reasons.push(checked.note ?? checked.decision.reason);
      } else restoreCall(item, checks);
    });
    let kept = output.filter((item) => !gone.has(item));
    if (callItems.length > 0 && gone.size === callItems.length) {
      // Nothing left for the client to run: the answer says why instead.
      kept = [...kept, reasonMessage(`msg_parapet_${String(response.id ?? '')}`, reasons.join('\n\n'))];
      contentFilter = true;
    }
    response.output = kept;
    if (contentFilter) {
      response.status = 'incomplete';
      response.incomplete_details = { reason: 'content_filter' };
    }
    if ('output_text' in response) response.output_text = joinedOutputText(kept);
    return parts;
  }

  openStream(call: GovernedCall<ResponsesWireBody>, sink: StreamSink): StreamTranslator {
    return responsesStream(call, sink, this.holdbackChars, this.sessions);
  }
}

/** The output items of a whole response: its text parts, and the calls the client would run. */
function answerItems(response: Item, requested: ReadonlySet<string>): { output: Item[]; textParts: Item[]; callItems: Array<{ item: Item; proposed: ProposedCall }> } {
  const output = Array.isArray(response.output) ? (response.output as unknown[]).filter(isObject) : [];
  const textParts: Item[] = [];
  const callItems: Array<{ item: Item; proposed: ProposedCall }> = [];
  for (const item of output) {
    if (item.type === 'message' && Array.isArray(item.content)) {
      for (const part of item.content) if (isObject(part) && part.type === 'output_text' && typeof part.text === 'string' && part.text !== '') textParts.push(part);
      continue;
    }
    const proposed = proposedCall(item, requested);
    if (proposed !== null) callItems.push({ item, proposed });
  }
  return { output, textParts, callItems };
}

/**
 * A streamed answer. Output text goes through a hold-back window per content part and only
 * checked text is sent, in the `delta` of the events; the events of a call the client would run
 * are held to the end of the response (a run that loops must not get its call), then checked
 * whole and released (or dropped). Events are renumbered (`sequence_number`, `output_index`)
 * because the gateway drops and adds some. A block ends the stream with the reason,
 * `response.incomplete` (content_filter, with `parapet`), and aborts the upstream.
 */
function responsesStream(call: GovernedCall<ResponsesWireBody>, { events, log }: StreamSink, holdbackChars: number, sessions: ResponseSessions): StreamTranslator {
  const requested = requestedTypes(call.body);
  const { checks, traceId } = call;
  const raw = events.raw;
  let sequence = 0;
  const emit = async (event: Item): Promise<void> => events.write(sse({ ...event, sequence_number: sequence++ }));

  const state = new StreamState(checks, holdbackChars);
  let template: Item = { id: `resp_parapet_${traceId}`, object: 'response', created_at: nowSeconds(), model: call.body.model };
  /** The response's own usage, for the runs ledger. */
  let wireUsage: unknown = null;
  /** Calls the upstream finished, in order, waiting for the end of the response. */
  const heldCalls: Array<{ outputIndex: number; proposed: ProposedCall }> = [];
  /** The upstream's end of the response (completed, incomplete or failed), once it came. */
  let terminal: { type: string; response: Item } | null = null;
  let ended = false;

  /** Ends the stream: `response.incomplete` (or the upstream's own end) with `parapet`, and the trailer. */
  const finish = async (type: string, response: Item, parts: CheckedPart[], contentFilter: boolean): Promise<void> => {
    const field = parapetField([...call.requestParts, ...parts], true);
    const output = state.finalOutput();
    const final: Item = { ...response, output, ...(field === null ? {} : { parapet: field }) };
    if (contentFilter) {
      final.status = 'incomplete';
      final.incomplete_details = { reason: 'content_filter' };
    }
    if ('output_text' in response) final.output_text = joinedOutputText(output);
    await emit({ type: contentFilter ? 'response.incomplete' : type, response: final });
    raw.addTrailers({ 'x-parapet-verdict': field?.verdict ?? 'allow' });
    if (typeof response.id === 'string') sessions.set(response.id, call.sessionId);
    ended = true;
  };

  /** A text check stopped the stream: the reason closes the current part and message. */
  const block = async (key: PartKey, blocked: CheckedPart): Promise<void> => {
    const text = state.partText(key);
    const reason = `${text === '' ? '' : '\n\n'}${blocked.decision.reason}`;
    const at = state.emittedIndex(key.outputIndex);
    const ids = { item_id: key.itemId, output_index: at, content_index: key.contentIndex };
    await emit({ type: 'response.output_text.delta', ...ids, delta: reason, logprobs: [] });
    state.noteReleased(key, reason);
    const full = state.partText(key);
    await emit({ type: 'response.output_text.done', ...ids, text: full, logprobs: [] });
    await emit({ type: 'response.content_part.done', ...ids, part: { type: 'output_text', text: full, annotations: [] } });
    const item = state.closeMessage(key.outputIndex, null, 'incomplete');
    await emit({ type: 'response.output_item.done', output_index: at, item });
    await finish('response.incomplete', { ...template, status: 'incomplete' }, [...state.textParts(), blocked], true);
  };

  /** One upstream event: text through its window, client-run calls held, everything else renumbered and passed on. */
  const onEvent = async (payload: string): Promise<StreamStep> => {
    if (payload === '[DONE]') return 'more';
    const event = JSON.parse(payload) as Item;
    const type = str(event.type) ?? '';
    if (isObject(event.response)) template = { ...template, ...event.response, output: [] };
    const outputIndex = typeof event.output_index === 'number' ? event.output_index : null;

    if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
      wireUsage = (event.response as Item | undefined)?.usage ?? null;
      // Text parts the upstream never closed are finished (checked) before the end.
      const pending = await state.flushOpenParts();
      if (pending.blocked !== null) {
        await block(pending.blocked.key, pending.blocked.part);
        return 'stop';
      }
      for (const release of pending.released) await emit(release);
      terminal = { type, response: event.response as Item };
      return 'complete';
    }

    if (outputIndex !== null && (state.isHeld(outputIndex) || (type === 'response.output_item.added' && isObject(event.item) && proposedCall(event.item, requested) !== null))) {
      if (type === 'response.output_item.added') state.hold(outputIndex);
      state.buffer(outputIndex, event);
      if (type === 'response.output_item.done' && isObject(event.item)) heldCalls.push({ outputIndex, proposed: proposedCall(event.item, requested) as ProposedCall });
      return 'more';
    }

    if (type === 'response.output_text.delta' && outputIndex !== null) {
      const key = partKey(event, outputIndex);
      const step = await state.holdback(key).push(str(event.delta) ?? '');
      if (step.blocked !== null) {
        await block(key, step.blocked);
        return 'stop';
      }
      if (step.text !== '') await emit(state.textDelta(key, event, step.text));
      return 'more';
    }
    if (type === 'response.output_text.done' && outputIndex !== null) {
      const key = partKey(event, outputIndex);
      const steps = await state.closePart(key, str(event.text) ?? '');
      if (steps.blocked !== null) {
        await block(key, steps.blocked);
        return 'stop';
      }
      if (steps.text !== '') await emit(state.textDelta(key, event, steps.text));
      await emit({ ...event, output_index: state.emittedIndex(outputIndex), text: state.partText(key), logprobs: [] });
      return 'more';
    }
    if (type === 'response.content_part.done' && outputIndex !== null && isObject(event.part) && event.part.type === 'output_text') {
      const key = partKey(event, outputIndex);
      // A part the upstream closes without output_text.done is finished (checked) here.
      if (!state.isClosed(key)) {
        const steps = await state.closePart(key, str(event.part.text) ?? '');
        if (steps.blocked !== null) {
          await block(key, steps.blocked);
          return 'stop';
        }
        if (steps.text !== '') await emit(state.textDelta(key, event, steps.text));
      }
      await emit({ ...event, output_index: state.emittedIndex(outputIndex), part: { ...event.part, text: state.partText(key) } });
      return 'more';
    }
    if (type === 'response.output_item.done' && outputIndex !== null && isObject(event.item) && event.item.type === 'message') {
      // Parts still open, or that came whole in this event (no deltas), are checked before they go out.
      const pending = await state.checkWholeParts(outputIndex, event.item);
      for (const release of pending.released) await emit(release);
      if (pending.blocked !== null) {
        await block(pending.blocked.key, pending.blocked.part);
        return 'stop';
      }
      await emit({ type, output_index: state.emittedIndex(outputIndex), item: state.closeMessage(outputIndex, event.item, null) });
      return 'more';
    }
    if (outputIndex !== null) {
      const at = state.emittedIndex(outputIndex);
      if (type === 'response.output_item.done' && isObject(event.item)) state.noteItem(outputIndex, event.item);
      if (type === 'response.output_item.added' && isObject(event.item) && event.item.type === 'message') state.openMessage(outputIndex, event.item);
      await emit({ ...event, output_index: at });
      return 'more';
    }
    // An upstream `error` event is the end of its stream: passed on as it came.
    if (type === 'error') ended = true;
    await emit(event);
    return 'more';
  };

  return {
    onEvent,
    async onUpstreamEnd() {
      if (!ended && !events.clientGone) {
        log.warn({ reqId: traceId }, 'responses stream ended before the response was complete');
        await emit({ type: 'error', code: 'upstream_error', message: 'the upstream stream ended before the response was complete', param: null });
      }
      return 'stop';
    },
    usage: () => wireUsage,
    proposedCalls: () => heldCalls.map(({ proposed }) => ({ name: proposed.tool, arguments: proposed.args })),
    async refuseRun(stop: RunStop) {
      const end = terminal as { type: string; response: Item };
      // No held call goes out: the reason takes their place.
      const stopped = state.refusalItem(`msg_parapet_${traceId}`, stop.reason);
      for (const item of refusalItemEvents(stopped.item, stopped.index)) await emit(item);
      await finish(end.type, end.response, [...state.textParts(), runPart(stop)], true);
    },
    async release() {
      const end = terminal as { type: string; response: Item };
      // The held calls: checked together, released (or dropped) in the order they came.
      const callChecks = await Promise.all(heldCalls.map(({ proposed }) => checks.toolCall(proposed.tool, proposed.args, proposed.callId)));
      for (const [position, { outputIndex: index }] of heldCalls.entries()) {
        const part = callChecks[position] as CheckedPart;
        state.callParts.push(part);
        for (const released of state.settle(index, part)) await emit(released);
      }
      const refusal = state.allCallsRemoved() ? state.refusalItem(`msg_parapet_${traceId}`) : null;
      if (refusal !== null) {
        for (const item of refusalItemEvents(refusal.item, refusal.index)) await emit(item);
      }
      await finish(end.type, end.response, [...state.textParts(), ...state.callParts], refusal !== null);
    },
    async failed() {
      await emit({ type: 'error', code: 'upstream_error', message: 'the upstream stream failed', param: null });
    },
  };
}

const requestedTypes = (body: ResponsesWireBody): Set<string> => new Set((body.tools ?? []).map((tool) => String(tool.type)));

/** The built-in tools a request asks for: those in `tools`, and a hosted tool named only by `tool_choice`. */
function builtinTools(body: ResponsesWireBody): Item[] {
  const tools = (body.tools ?? []).filter((tool) => !CLIENT_TOOL_TYPES.has(String(tool.type)));
  const choice = body.tool_choice;
  if (isObject(choice) && typeof choice.type === 'string' && !PLAIN_TOOL_CHOICES.has(choice.type) && !CLIENT_TOOL_TYPES.has(choice.type) && !tools.some((tool) => tool.type === choice.type)) {
    tools.push(choice);
  }
  return tools;
}

/** Tokens in the arguments of a call that passed go back to the values the caller sent. */
function restoreCall(item: Item, checks: ProxyChecks): void {
  if (checks.tokens.size === 0) return;
  for (const key of ['arguments', 'input']) if (typeof item[key] === 'string') item[key] = checks.tokens.restore(item[key] as string);
}

interface PartKey {
  outputIndex: number;
  contentIndex: number;
  itemId: string;
}

const partKey = (event: Item, outputIndex: number): PartKey => ({
  outputIndex,
  contentIndex: typeof event.content_index === 'number' ? event.content_index : 0,
  itemId: str(event.item_id) ?? '',
});
const keyOf = (key: PartKey): string => `${key.outputIndex}:${key.contentIndex}`;

/** The events that add a finished message item at `index` (the reasons when every call was removed). */
function refusalItemEvents(item: Item, index: number): Item[] {
  const id = item.id as string;
  const text = ((item.content as Item[])[0] as Item).text as string;
  const ids = { item_id: id, output_index: index, content_index: 0 };
  return [
    { type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', ...ids, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', ...ids, delta: text, logprobs: [] },
    { type: 'response.output_text.done', ...ids, text, logprobs: [] },
    { type: 'response.content_part.done', ...ids, part: { type: 'output_text', text, annotations: [] } },
    { type: 'response.output_item.done', output_index: index, item },
  ];
}

interface TextPart {
  key: PartKey;
  holdback: OutputHoldback;
  /** The text the client has seen of this part. */
  released: string;
  closed: boolean;
}

/** What one streamed response is made of, as the client sees it. */
class StreamState {
  /** Upstream output_index → the index the client sees (items removed by the gateway leave no gap). */
  private readonly indexes = new Map<number, number>();
  private readonly parts = new Map<string, TextPart>();
  /** Output items as sent to the client, by the client's index. */
  private readonly items = new Map<number, Item>();
  private readonly held = new Map<number, Item[]>();
  private calls = 0;
  private removedCalls = 0;
  private readonly reasons: string[] = [];
  readonly callParts: CheckedPart[] = [];

  constructor(
    private readonly checks: ProxyChecks,
    private readonly holdbackChars: number,
  ) {}

  emittedIndex(upstream: number): number {
    let index = this.indexes.get(upstream);
    if (index === undefined) {
      index = this.indexes.size;
      this.indexes.set(upstream, index);
    }
    return index;
  }

  holdback(key: PartKey): OutputHoldback {
    return this.part(key).holdback;
  }

  private part(key: PartKey): TextPart {
    let part = this.parts.get(keyOf(key));
    if (part === undefined) {
      part = { key, holdback: new OutputHoldback(this.checks, this.holdbackChars), released: '', closed: false };
      this.parts.set(keyOf(key), part);
    }
    return part;
  }

  partText(key: PartKey): string {
    return this.parts.get(keyOf(key))?.released ?? '';
  }

  noteReleased(key: PartKey, text: string): void {
    this.part(key).released += text;
  }

  /** A delta event carrying released text (its logprobs belonged to the upstream's pieces). */
  textDelta(key: PartKey, event: Item, text: string): Item {
    this.noteReleased(key, text);
    const { text: _whole, ...rest } = event;
    return { ...rest, type: 'response.output_text.delta', output_index: this.emittedIndex(key.outputIndex), delta: text, logprobs: [] };
  }

  /** The end of a part: text the done event has beyond the deltas is added, then the last window is checked. */
  async closePart(key: PartKey, full: string): Promise<{ text: string; blocked: CheckedPart | null }> {
    const part = this.part(key);
    part.closed = true;
    const seen = part.holdback.assembled;
    let text = '';
    if (full.length > seen.length && full.startsWith(seen)) {
      const step = await part.holdback.push(full.slice(seen.length));
      if (step.blocked !== null) return step;
      text = step.text;
    }
    const step = await part.holdback.finish();
    return step.blocked !== null ? step : { text: text + step.text, blocked: null };
  }

  /** Open parts at the end of the stream, checked and released as delta events. */
  async flushOpenParts(): Promise<{ released: Item[]; blocked: { key: PartKey; part: CheckedPart } | null }> {
    const released: Item[] = [];
    for (const part of this.parts.values()) {
      if (part.closed) continue;
      const step = await this.closePart(part.key, part.holdback.assembled);
      if (step.blocked !== null) return { released, blocked: { key: part.key, part: step.blocked } };
      if (step.text !== '') released.push(this.textDelta(part.key, { type: 'response.output_text.delta', item_id: part.key.itemId, content_index: part.key.contentIndex }, step.text));
    }
    return { released, blocked: null };
  }

  isClosed(key: PartKey): boolean {
    return this.parts.get(keyOf(key))?.closed === true;
  }

  /**
   * The output_text parts of a finished message: one still open is finished (its rest released as
   * a delta); one no delta announced is checked whole and goes out only in the item.
   */
  async checkWholeParts(outputIndex: number, item: Item): Promise<{ released: Item[]; blocked: { key: PartKey; part: CheckedPart } | null }> {
    const released: Item[] = [];
    const content = Array.isArray(item.content) ? item.content : [];
    for (const [contentIndex, part] of content.entries()) {
      if (!isObject(part) || part.type !== 'output_text' || typeof part.text !== 'string') continue;
      const key: PartKey = { outputIndex, contentIndex, itemId: str(item.id) ?? '' };
      const known = this.parts.has(keyOf(key));
      if (known && this.isClosed(key)) continue;
      const step = await this.closePart(key, part.text);
      if (step.blocked !== null) return { released, blocked: { key, part: step.blocked } };
      if (!known) this.noteReleased(key, step.text);
      else if (step.text !== '') released.push(this.textDelta(key, { type: 'response.output_text.delta', item_id: key.itemId, content_index: contentIndex }, step.text));
    }
    return { released, blocked: null };
  }

  openMessage(outputIndex: number, item: Item): void {
    this.items.set(this.emittedIndex(outputIndex), { ...item, content: [] });
  }

  /** The message as the client has seen it: each output_text part replaced by its released text. */
  closeMessage(outputIndex: number, upstream: Item | null, status: string | null): Item {
    const at = this.emittedIndex(outputIndex);
    const base = upstream ?? this.items.get(at) ?? { type: 'message', role: 'assistant', content: [] };
    const content = Array.isArray(base.content) && base.content.length > 0 ? (base.content as unknown[]) : [];
    const texts = [...this.parts.values()].filter((part) => part.key.outputIndex === outputIndex);
    const parts = content.map((part, contentIndex) => {
      const text = texts.find((candidate) => candidate.key.contentIndex === contentIndex);
      return isObject(part) && part.type === 'output_text' && text !== undefined ? { ...part, text: text.released } : part;
    });
    for (const text of texts) if (parts[text.key.contentIndex] === undefined) parts[text.key.contentIndex] = { type: 'output_text', text: text.released, annotations: [] };
    const item: Item = { ...base, content: parts, ...(status === null ? {} : { status }) };
    this.items.set(at, item);
    return item;
  }

  noteItem(outputIndex: number, item: Item): void {
    this.items.set(this.emittedIndex(outputIndex), item);
  }

  /** The latest window check of every text part, for the `parapet` field. */
  textParts(): CheckedPart[] {
    return [...this.parts.values()].flatMap((part) => (part.holdback.last !== null && !stops(part.holdback.last.decision) ? [part.holdback.last] : []));
  }

  isHeld(outputIndex: number): boolean {
    return this.held.has(outputIndex);
  }

  hold(outputIndex: number): void {
    this.held.set(outputIndex, []);
    this.calls += 1;
  }

  buffer(outputIndex: number, event: Item): void {
    this.held.get(outputIndex)?.push(event);
  }

  /**
   * A held call was checked: removed, its events are dropped; passed, they go out with the deltas of
   * each kind joined into one (so that a token split across pieces is restored whole).
   */
  settle(outputIndex: number, part: CheckedPart): Item[] {
    const events = this.held.get(outputIndex) ?? [];
    this.held.delete(outputIndex);
    if (removed(part)) {
      this.removedCalls += 1;
      this.reasons.push(part.note ?? part.decision.reason);
      return [];
    }
    const at = this.emittedIndex(outputIndex);
    const restore = (value: unknown): unknown => (typeof value === 'string' ? this.checks.tokens.restore(value) : value);
    const out: Item[] = [];
    for (const event of events) {
      const type = String(event.type);
      const previous = out.at(-1);
      if (type.endsWith('.delta') && previous !== undefined && previous.type === type) {
        previous.delta = `${String(previous.delta)}${str(event.delta) ?? ''}`;
        continue;
      }
      out.push({ ...event, output_index: at });
    }
    for (const event of out) {
      for (const key of ['delta', 'arguments', 'input']) if (key in event) event[key] = restore(event[key]);
      if (isObject(event.item)) {
        const item: Item = { ...event.item };
        for (const key of ['arguments', 'input']) if (key in item) item[key] = restore(item[key]);
        event.item = item;
        if (event.type === 'response.output_item.done') this.items.set(at, item);
      }
    }
    return out;
  }

  allCallsRemoved(): boolean {
    return this.calls > 0 && this.removedCalls === this.calls;
  }

  /** The message that says why every call was removed (or why the run was stopped), at the next index. */
  refusalItem(id: string, text = this.reasons.join('\n\n')): { item: Item; index: number } {
    const index = this.indexes.size;
    this.indexes.set(-1 - index, index);
    const item = reasonMessage(id, text);
    this.items.set(index, item);
    return { item, index };
  }

  finalOutput(): Item[] {
    return [...this.items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
  }
}
