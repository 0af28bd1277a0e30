// How one probe is sent to a live agent and its answer read: three adapters (an OpenAI-compatible
// chat endpoint, a messages-format endpoint, a generic HTTP JSON endpoint). One POST per probe with
// undici: a timeout, no redirects followed, at most ANSWER_CAP_BYTES read, the auth header given in
// the clear only for the send. The contract is answered by GET /api/probes/warning (ADAPTER_CONTRACTS).
import { request } from 'undici';
import type { AdapterName } from './schemas.js';

/** The most of an answer body that is read; a longer answer is a failed send. */
export const ANSWER_CAP_BYTES = 256 * 1024;
/** The messages format requires max_tokens; probes need short answers only. */
const MESSAGES_MAX_TOKENS = 1024;
const ANTHROPIC_VERSION = '2023-06-01';
/** Longest text kept of a proposed tool call's arguments (for leak-marker matching). */
const MAX_TOOL_ARGUMENTS_CHARS = 16_384;
const MAX_TOOL_CALLS = 100;

export interface ToolCall {
  name: string;
  /** The arguments as text (JSON as the target sent it), cut to a bound. */
  arguments: string;
}

export interface TargetAnswer {
  /** The answer's text (every text part joined); '' when it has none. */
  text: string;
  toolCalls: ToolCall[];
  status: number;
}

/** A send that produced no usable answer: its message is stored as the probe's error. */
export class SendError extends Error {}

export interface SendInput {
  adapter: AdapterName;
  url: string;
  model: string | null;
  /** [name, value] of the auth header, unsealed by the caller just before the send; null for none. */
  authHeader: readonly [string, string] | null;
  text: string;
  timeoutMs: number;
  /** Aborted when the run stops (opt-out, shutdown, a lost job lease). */
  signal: AbortSignal;
}

export const ADAPTER_CONTRACTS: ReadonlyArray<{ name: AdapterName; request: string; response: string }> = [
  {
    name: 'openai_chat',
    request: 'POST {url} with Content-Type application/json and {"model": <model or "default">, "messages": [{"role": "user", "content": <probe text>}], "stream": false}',
    response:
      'HTTP 2xx JSON: the text is choices[0].message.content (a string, or an array whose {"text"} parts are joined); proposed tool calls are choices[0].message.tool_calls[].function.name (arguments: .function.arguments)',
  },
  {
    name: 'messages',
    request: `POST {url} with Content-Type application/json, anthropic-version ${ANTHROPIC_VERSION} and {"model": <model or "default">, "max_tokens": ${MESSAGES_MAX_TOKENS}, "messages": [{"role": "user", "content": <probe text>}]}`,
    response: 'HTTP 2xx JSON: the text is every content[] block of type "text" joined; proposed tool calls are content[] blocks of type "tool_use" (name; arguments: input)',
  },
  {
    name: 'http_json',
    request: 'POST {url} with Content-Type application/json and {"input": <probe text>} (plus "model" when the target has one)',
    response: 'HTTP 2xx JSON: {"output": <string>, "tool_calls": [{"name": <string>, "arguments": <any>}]} — output is the text; tool_calls is optional',
  },
];

/**
 * Sends one probe and reads the answer; throws SendError on a timeout, a non-2xx status, a redirect,
 * an answer over ANSWER_CAP_BYTES or one that is not the adapter's JSON.
 * @example await sendProbe({ adapter: 'http_json', url, model: null, authHeader: null, text: 'hi', timeoutMs: 15000, signal })
 */
export async function sendProbe(input: SendInput): Promise<TargetAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (input.adapter === 'messages') headers['anthropic-version'] = ANTHROPIC_VERSION;
  if (input.authHeader !== null) headers[input.authHeader[0].toLowerCase()] = input.authHeader[1];
  const timeout = AbortSignal.timeout(input.timeoutMs);
  const signal = AbortSignal.any([input.signal, timeout]);
  let status: number;
  let body: string;
  try {
    const response = await request(input.url, { method: 'POST', headers, body: JSON.stringify(requestBody(input)), signal });
    status = response.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > ANSWER_CAP_BYTES) {
        response.body.destroy();
        throw new SendError(`the target answered more than ${ANSWER_CAP_BYTES} bytes`);
      }
      chunks.push(chunk);
    }
    body = Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    if (input.signal.aborted) throw error;
    if (timeout.aborted) throw new SendError(`no answer within ${input.timeoutMs} ms`);
    if (error instanceof SendError) throw error;
    throw new SendError(`the send failed: ${(error as Error).message}`);
  }
  if (status >= 300 && status < 400) throw new SendError(`the target answered HTTP ${status} (redirects are not followed)`);
  if (status < 200 || status >= 300) throw new SendError(`the target answered HTTP ${status}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new SendError('the target answered something that is not JSON');
  }
  if (!isObject(parsed)) throw new SendError('the target answered JSON that is not an object');
  return { ...readAnswer(input.adapter, parsed), status };
}

function requestBody(input: SendInput): Record<string, unknown> {
  const messages = [{ role: 'user', content: input.text }];
  switch (input.adapter) {
    case 'openai_chat':
      return { model: input.model ?? 'default', messages, stream: false };
    case 'messages':
      return { model: input.model ?? 'default', max_tokens: MESSAGES_MAX_TOKENS, messages };
    case 'http_json':
      return input.model === null ? { input: input.text } : { input: input.text, model: input.model };
  }
}

/** The text and proposed tool calls of an answer, by adapter. Exported for the adapter tests. */
export function readAnswer(adapter: AdapterName, answer: Record<string, unknown>): { text: string; toolCalls: ToolCall[] } {
  if (adapter === 'openai_chat') {
    const choice = Array.isArray(answer.choices) ? answer.choices[0] : undefined;
    const message = isObject(choice) && isObject(choice.message) ? choice.message : {};
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    return {
      text: textOf(message.content),
      toolCalls: calls.slice(0, MAX_TOOL_CALLS).flatMap((call) => {
        const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
        return fn !== undefined && typeof fn.name === 'string' ? [toolCall(fn.name, fn.arguments)] : [];
      }),
    };
  }
  if (adapter === 'messages') {
    const blocks = Array.isArray(answer.content) ? answer.content : [];
    const text = blocks.flatMap((block) => (isObject(block) && block.type === 'text' && typeof block.text === 'string' ? [block.text] : [])).join('\n');
    const toolCalls = blocks
      .slice(0, MAX_TOOL_CALLS * 4)
      .flatMap((block) => (isObject(block) && block.type === 'tool_use' && typeof block.name === 'string' ? [toolCall(block.name, block.input)] : []))
      .slice(0, MAX_TOOL_CALLS);
    return { text, toolCalls };
  }
  const calls = Array.isArray(answer.tool_calls) ? answer.tool_calls : [];
  return {
    text: typeof answer.output === 'string' ? answer.output : '',
    toolCalls: calls.slice(0, MAX_TOOL_CALLS).flatMap((call) => (isObject(call) && typeof call.name === 'string' ? [toolCall(call.name, call.arguments)] : [])),
  };
}

function toolCall(name: string, args: unknown): ToolCall {
  const text = args === undefined ? '' : typeof args === 'string' ? args : JSON.stringify(args);
  return { name: name.slice(0, 200), arguments: text.slice(0, MAX_TOOL_ARGUMENTS_CHARS) };
}

/** A content value as text: a string, or the `text` of each part of an array. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.flatMap((part) => (isObject(part) && typeof part.text === 'string' ? [part.text] : [])).join('\n');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Header names the gateway sets itself or that would change how the request is framed. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'accept', 'anthropic-version', 'expect', 'upgrade', 'te', 'trailer', 'keep-alive']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/**
 * `Header-Name: value` as [name, value], or a reason it is refused: a token name that the gateway
 * does not set itself, and a non-empty value of visible ASCII and spaces (no CR, LF or NUL).
 */
export function parseAuthHeader(text: string): readonly [string, string] | string {
  const colon = text.indexOf(':');
  if (colon <= 0) return 'must be "Header-Name: value"';
  const name = text.slice(0, colon).trim();
  const value = text.slice(colon + 1).trim();
  if (!HEADER_NAME.test(name)) return 'the header name must be a token (letters, digits and !#$%&\'*+.^_`|~-)';
  if (RESERVED_HEADERS.has(name.toLowerCase())) return `${name} is set by the gateway itself`;
  if (value === '' || !/^[\x20-\x7e\t]+$/.test(value)) return 'the header value must be non-empty visible ASCII';
  return [name, value] as const;
}
