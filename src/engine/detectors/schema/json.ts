// Hot path: no I/O here. schema.json: checks that an output, or a tool call's arguments, is JSON
// matching the JSON Schema declared for it (context.jsonSchema). Without a declared schema it
// reports nothing.
//
// Compiling a schema is far slower than validating with it, so each schema is compiled once:
// compiled validators are cached in a WeakMap keyed by the schema object (the usual case: the
// same configuration object on every call) and in a small LRU keyed by the schema's JSON text
// (equal schemas rebuilt per request). A schema ajv cannot compile makes detect() throw, so the
// runner records the detector as `error` rather than silently passing the content.
import { Buffer } from 'node:buffer';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { LRUCache } from 'lru-cache';
import type { Detection, DetectContext, Detector } from '../types.js';
import { locatePointer, type LocateBudget } from './json-locate.js';

// ajv-formats is CommonJS; its default export arrives nested under ESM interop.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

/** Texts larger than this (UTF-8 bytes) are refused rather than parsed. */
export const MAX_TEXT_BYTES = 1024 * 1024;
/** Deeper nesting is refused before parsing: validators recurse and would overflow the stack. */
export const MAX_NESTING_DEPTH = 512;
/** Violations reported per text; the last one says how many more there were. */
export const MAX_VIOLATIONS = 50;
/** Schemas kept in the LRU keyed by their JSON text. */
export const SCHEMA_LRU_SIZE = 64;
/** Characters the value locator may scan per text before it falls back to whole-text spans. */
const LOCATE_BUDGET_CHARACTERS = 4 * 1024 * 1024;

type CompiledSchema = { validate: ValidateFunction } | { error: Error };

let ajvInstance: Ajv | undefined;
let compiledCount = 0;
const compiledBySchemaObject = new WeakMap<object, CompiledSchema>();
const compiledBySchemaText = new LRUCache<string, CompiledSchema>({ max: SCHEMA_LRU_SIZE });

function ajv(): Ajv {
  if (ajvInstance === undefined) {
    ajvInstance = new Ajv({ allErrors: true, strict: false });
    addFormats(ajvInstance);
  }
  return ajvInstance;
}

/** How many schemas have been compiled since the module loaded (a test hook for the cache). */
export function compiledSchemaCount(): number {
  return compiledCount;
}

/** How many schemas and $ids ajv itself holds (a test hook: it must not grow with use). */
export function ajvRegistrySize(): number {
  return registeredKeys(ajv()).size;
}

function registeredKeys(instance: Ajv): Set<string> {
  return new Set([...Object.keys(instance.refs), ...Object.keys(instance.schemas)]);
}

function compile(schema: Record<string, unknown>): CompiledSchema {
  const instance = ajv();
  const registeredBefore = registeredKeys(instance);
  compiledCount += 1;
  try {
    return { validate: instance.compile(schema) };
  } catch (error) {
    // ajv's own messages say what is wrong with the schema; an engine error (a stack overflow on a
    // schema nested past what ajv can walk) says nothing useful and must not leak.
    const reason = error instanceof RangeError ? 'it nests too deeply' : error instanceof Error ? error.message : String(error);
    return { error: new Error(`schema.json: the declared JSON Schema cannot be compiled: ${reason}`) };
  } finally {
    // ajv keeps every compiled schema, and every $id inside it, for reuse. We cache compiled
    // validators ourselves, so forget them in ajv: memory stays bounded by our caches, and a
    // later, different schema may reuse the same $id. A compiled validator keeps working after.
    instance.removeSchema(schema);
    for (const key of registeredKeys(instance)) {
      if (!registeredBefore.has(key)) instance.removeSchema(key);
    }
  }
}

/** Why a JSON Schema cannot be used, or null when it compiles (checked when a tool is registered). */
export function schemaProblem(schema: Record<string, unknown>): string | null {
  const compiled = compiledFor(schema);
  return 'error' in compiled ? compiled.error.message : null;
}

function schemaText(schema: Record<string, unknown>): string | undefined {
  try {
    return JSON.stringify(schema);
  } catch {
    return undefined; // cyclic or BigInt-holding objects are cached by identity only
  }
}

function compiledFor(schema: Record<string, unknown>): CompiledSchema {
  const byObject = compiledBySchemaObject.get(schema);
  if (byObject !== undefined) return byObject;

  const text = schemaText(schema);
  let compiled = text === undefined ? undefined : compiledBySchemaText.get(text);
  if (compiled === undefined) {
    compiled = compile(schema);
    if (text !== undefined) compiledBySchemaText.set(text, compiled);
  }
  compiledBySchemaObject.set(schema, compiled);
  return compiled;
}

/**
 * Deepest bracket nesting outside strings, stopping early once past `limit`. One linear pass,
 * cheap next to JSON.parse itself.
 */
function nestingDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
  }
  return false;
}

function unparseable(text: string, explanation: string): Detection[] {
  return [{ entity: 'SCHEMA.UNPARSEABLE', score: 1, start: 0, end: text.length, explanation, pattern: 'json.parse' }];
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  let detail = error.message ?? `fails "${error.keyword}"`;
  // Name the offending property; the value itself is never echoed (it may be personal data).
  if (error.keyword === 'additionalProperties') {
    detail += ` ("${String((error.params as { additionalProperty?: unknown }).additionalProperty)}")`;
  }
  return `JSON Schema violation at ${where}: ${detail} (schema ${error.schemaPath}).`;
}

function violations(text: string, errors: readonly ErrorObject[]): Detection[] {
  const budget: LocateBudget = { remaining: LOCATE_BUDGET_CHARACTERS };
  const shown = errors.slice(0, MAX_VIOLATIONS);
  return shown.map((error, index) => {
    const located = locatePointer(text, error.instancePath, budget);
    const more = errors.length - shown.length;
    const suffix = index === shown.length - 1 && more > 0 ? ` ${more} more violation(s) not listed.` : '';
    return {
      entity: 'SCHEMA.VIOLATION',
      score: 1,
      start: located?.start ?? 0,
      end: located?.end ?? text.length,
      explanation: describe(error) + suffix,
      pattern: `ajv.${error.keyword}`,
    };
  });
}

function detectSchemaViolations(text: string, context: DetectContext): Detection[] {
  const schema = context.jsonSchema;
  if (schema === undefined) return [];

  // Compile first: an invalid schema is a configuration error whatever the text is.
  const compiled = compiledFor(schema);
  if ('error' in compiled) throw compiled.error;

  if (Buffer.byteLength(text, 'utf8') > MAX_TEXT_BYTES) {
    return unparseable(text, `Text is too large to validate (over ${MAX_TEXT_BYTES} bytes).`);
  }
  if (nestingDepthExceeds(text, MAX_NESTING_DEPTH)) {
    return unparseable(text, `JSON is nested deeper than ${MAX_NESTING_DEPTH} levels; not validated.`);
  }

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // SyntaxError for malformed JSON; RangeError if the engine runs out of stack.
    if (error instanceof SyntaxError || error instanceof RangeError) {
      // Only the position: the engine's message can quote a piece of the text.
      const position = /at position (\d+)/.exec(error.message)?.[1];
      return unparseable(text, `Text is not valid JSON${position === undefined ? '' : ` (at position ${position})`}.`);
    }
    throw error;
  }

  try {
    if (compiled.validate(value)) return [];
  } catch (error) {
    // Recursive schemas over deep data can still overflow the stack inside ajv's validator.
    if (error instanceof RangeError) return unparseable(text, 'JSON is too deeply nested to validate.');
    throw error;
  }
  return violations(text, compiled.validate.errors ?? []);
}

export const schemaJson: Detector = {
  key: 'schema.json',
  surfaces: ['output', 'tool_args'],
  entityTypes: ['SCHEMA.VIOLATION', 'SCHEMA.UNPARSEABLE'],
  costRank: 4,
  // A JSON document cannot be validated piece by piece.
  wholeText: true,
  available: () => ({ available: true }),
  detect: detectSchemaViolations,
};
