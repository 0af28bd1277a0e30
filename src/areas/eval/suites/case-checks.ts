// What a case must be beyond its wire schema: bounds on size and depth, and the shape of `input`
// and of the `expected` keys scorers read. Shared by the API and the CLI, which checks a whole
// suite file before it sends any of it.
import { SURFACES } from '../../../engine/detectors/types.js';
import { problem, type FieldError } from '../../../infra/http/problems.js';
import type { AddCaseBody } from './schemas.js';

/** The most cases one suite holds: a run answers them all, and the detail lists them all. */
export const MAX_CASES = 5000;
export const MAX_INPUT_BYTES = 65_536;
export const MAX_EXPECTED_BYTES = 16_384;
/** Room for what the case carries plus an annotation's note (2000 characters). */
export const MAX_CONTEXT_BYTES = 32_768;
export const MAX_CASE_DEPTH = 8;
const MAX_MESSAGES = 500;
const MESSAGE_ROLES = new Set(['system', 'user', 'assistant', 'tool']);
const SURFACE_SET = new Set<string>(SURFACES);

/**
 * What the schema cannot say about a case: sizes and depth (400), and the shape of `input` and of
 * the known `expected` keys (422). Nothing is stored when it throws.
 */
export function checkCase(body: AddCaseBody): void {
  checkBounds('input', body.input, MAX_INPUT_BYTES);
  if (body.expected !== undefined) checkBounds('expected', body.expected, MAX_EXPECTED_BYTES);
  if (body.context !== undefined) checkBounds('context', body.context, MAX_CONTEXT_BYTES);
  const errors = [...inputErrors(body.input as Record<string, unknown>), ...expectedErrors((body.expected ?? {}) as Record<string, unknown>)];
  if (errors.length > 0) throw problem('refused', errors.map((error) => `${error.field}: ${error.message}`).join('; '), errors);
}

function checkBounds(field: string, value: object, maxBytes: number): void {
  if (Buffer.byteLength(JSON.stringify(value)) > maxBytes) {
    throw problem('invalid-request', `${field} is larger than ${maxBytes} bytes as JSON`, [{ field: `/body/${field}`, message: `at most ${maxBytes} bytes` }]);
  }
  if (depthOf(value) > MAX_CASE_DEPTH) {
    throw problem('invalid-request', `${field} is nested more than ${MAX_CASE_DEPTH} levels deep`, [{ field: `/body/${field}`, message: `at most ${MAX_CASE_DEPTH} levels` }]);
  }
}

function inputErrors(input: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const add = (field: string, message: string) => errors.push({ field: `/body/input${field}`, message });
  const hasText = input.text !== undefined;
  const hasMessages = input.messages !== undefined;
  if (hasText === hasMessages) add('', 'give either text (a string) or messages (an array of {role, content}), not both and not neither');
  if (hasText && typeof input.text !== 'string') add('/text', 'must be a string');
  if (hasMessages) {
    const messages = input.messages;
    if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_MESSAGES) {
      add('/messages', `must be an array of 1 to ${MAX_MESSAGES} messages`);
    } else {
      messages.forEach((message: unknown, index) => {
        const item = message !== null && typeof message === 'object' && !Array.isArray(message) ? (message as Record<string, unknown>) : null;
        if (item === null || typeof item.role !== 'string' || !MESSAGE_ROLES.has(item.role) || typeof item.content !== 'string') {
          add(`/messages/${index}`, 'must be {role: system|user|assistant|tool, content: string}');
        }
      });
    }
  }
  if (input.surface !== undefined && (typeof input.surface !== 'string' || !SURFACE_SET.has(input.surface))) add('/surface', `must be one of ${SURFACES.join(', ')}`);
  if (input.tool !== undefined && (typeof input.tool !== 'string' || input.tool.length === 0 || input.tool.length > 200)) add('/tool', 'must be a tool name of 1 to 200 characters');
  if (input.arguments !== undefined && (input.arguments === null || typeof input.arguments !== 'object' || Array.isArray(input.arguments))) add('/arguments', 'must be an object');
  return errors;
}

const isStrings = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** The keys scorers read, and what each must be. */
const EXPECTED_KEYS: Record<string, { valid: (value: unknown) => boolean; what: string }> = {
  verdict: { valid: (value) => typeof value === 'string' && value.length > 0, what: 'a verdict (allow, block, escalate, transform …)' },
  entities: { valid: isStrings, what: 'an array of entity types' },
  output: { valid: (value) => typeof value === 'string', what: 'a string' },
  contains: { valid: (value) => typeof value === 'string' || isStrings(value), what: 'a string or an array of strings' },
  regex: { valid: (value) => typeof value === 'string' && value.length > 0, what: 'a regular expression' },
  json_schema: { valid: (value) => value !== null && typeof value === 'object' && !Array.isArray(value), what: 'a JSON Schema object' },
  refusal: { valid: (value) => typeof value === 'boolean', what: 'true or false' },
  canary: { valid: (value) => typeof value === 'string' && value.length > 0, what: 'a string' },
};

function expectedErrors(expected: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, rule] of Object.entries(EXPECTED_KEYS)) {
    if (expected[key] !== undefined && !rule.valid(expected[key])) errors.push({ field: `/body/expected/${key}`, message: `must be ${rule.what}` });
  }
  return errors;
}

/** Nesting depth of a JSON value (`{}` is 1). The body's own depth limit bounds the recursion. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return 1 + deepest;
}

