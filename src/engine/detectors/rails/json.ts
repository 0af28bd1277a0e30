// Hot path: no I/O here. rails.catalog.valid_json: text that should be JSON and does not parse.
// Which text should be JSON:
// - tool_args: always (a tool call's arguments are a JSON object; proxies pass the model's raw
//   argument string, which can be cut off or malformed);
// - output and tool_result: when the text as a whole looks like JSON (its first non-blank
//   character is `{`, or `[` before an object, array or string, or `[` before a number and `]` at
//   the end: `[1] see below` and `[Note] …` are prose, `[{"a":1}` and `[1, 2,]` are not),
//   and every ```json fenced block in it.
// JSON.parse is linear and iterative in V8 (1 MB of `[` fails in milliseconds).
import type { Detection, DetectContext } from '../types.js';
import { MAX_DETECTIONS, type CatalogValidator } from './catalog.js';

/** `[` then an object, array or string: an array, not a bracketed note. */
const ARRAY_START = /^\[\s*[[{"]/;
/** `[` then a number or literal counts only when the text also ends with `]` (`[1, 2]`, not `[1] see below`). */
const SCALAR_ARRAY = /^\[\s*(?:[tfn-]|\d)/;
/** A ```json fence: its body runs to the next line of ``` (or the end of the text). */
const JSON_FENCE = /```json[ \t]*\r?\n/gi;
const FENCE_END = /\r?\n[ \t]*```/g;

function parseError(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : 'does not parse';
  }
}

export function looksLikeJson(text: string): boolean {
  const trimmed = text.trimStart();
  return trimmed.startsWith('{') || ARRAY_START.test(trimmed) || (SCALAR_ARRAY.test(trimmed) && trimmed.trimEnd().endsWith(']'));
}

function invalid(start: number, end: number, what: string, message: string): Detection {
  return {
    entity: 'SCHEMA.JSON_INVALID',
    score: 0.9,
    start,
    end,
    pattern: what,
    validator: 'JSON.parse: failed',
    explanation: `${what} is not valid JSON (${message.slice(0, 120)})`,
  };
}

export function checkJson(text: string, context: DetectContext): Detection[] {
  if (context.surface === 'tool_args' || looksLikeJson(text)) {
    // No arguments at all is how some clients send a call without parameters.
    if (text.trim() === '') return [];
    const message = parseError(text);
    return message === null ? [] : [invalid(0, text.length, context.surface === 'tool_args' ? 'tool arguments' : 'JSON-looking text', message)];
  }
  const found: Detection[] = [];
  JSON_FENCE.lastIndex = 0;
  for (let open = JSON_FENCE.exec(text); open !== null && found.length < MAX_DETECTIONS; open = JSON_FENCE.exec(text)) {
    const start = open.index + open[0].length;
    FENCE_END.lastIndex = start;
    const close = FENCE_END.exec(text);
    const end = close === null ? text.length : close.index;
    const body = text.slice(start, end);
    if (body.trim() !== '') {
      const message = parseError(body);
      if (message !== null) found.push(invalid(start, end, 'a ```json block', message));
    }
    if (close === null) break;
    JSON_FENCE.lastIndex = close.index + close[0].length;
  }
  return found;
}

export const validJson: CatalogValidator = {
  name: 'valid_json',
  entity: 'SCHEMA.JSON_INVALID',
  surfaces: ['output', 'tool_args', 'tool_result'],
  costRank: 20,
  wholeText: true,
  available: () => ({ available: true }),
  check: (text, context) => checkJson(text, context),
};
