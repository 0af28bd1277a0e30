// Scorers over the answer text: exact, contains, regex (re2js: matching time linear in the text
// whatever the pattern) and json_schema (ajv). Each reads its assertion from params first, else
// from the case's `expected`.
import { Buffer } from 'node:buffer';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';
import type { ScoreOutcome } from '../types.js';
import { booleanParam, defineScorer, excerpt, formatNumber, isRecord, stringList, stringParam, type ScorerDefinition } from './common.js';

const TEXT_TARGETS = ['model', 'http', 'online'] as const;

/** Longer patterns are refused: they are mistakes or attempts to make the compiled program huge. */
export const MAX_PATTERN_CHARS = 1000;
/** Matching costs text length × program size; a counted repeat such as `a{1000}` multiplies the size. */
export const MAX_PROGRAM_SIZE = 500;
/** A JSON Schema larger than this (serialized) is refused. */
export const MAX_SCHEMA_BYTES = 16 * 1024;
/** Answers nested deeper than this are not parsed: validators recurse. */
const MAX_JSON_DEPTH = 256;
/** Errors listed in a json_schema reason. */
const LISTED_ERRORS = 3;

// ---------------------------------------------------------------------------------------- exact

export const exactScorer: ScorerDefinition = defineScorer({
  name: 'exact',
  description: 'The answer equals expected.output (trimmed and case-sensitive by default).',
  params: [
    { name: 'trim', type: 'boolean', required: false, description: 'compare without leading and trailing whitespace', default: true },
    { name: 'case_sensitive', type: 'boolean', required: false, description: 'letter case must match', default: true },
  ],
  appliesTo: ['model', 'http'],
  thresholdKind: null,
  defaultThreshold: null,
  relevant: (subject) => typeof subject.expected.output === 'string',
  evaluate: (subject, params) => {
    const expected = subject.expected.output as string;
    const trim = booleanParam(params, 'trim', true);
    const caseSensitive = booleanParam(params, 'case_sensitive', true);
    const normalize = (text: string) => {
      const trimmed = trim ? text.trim() : text;
      return caseSensitive ? trimmed : trimmed.toLowerCase();
    };
    const output = subject.output ?? '';
    const passed = normalize(output) === normalize(expected);
    return {
      score: passed ? 1 : 0,
      passed,
      threshold: null,
      reason: passed ? 'answer equals the expected output' : `answer differs from the expected output: expected ${excerpt(expected)}, got ${excerpt(output)}`,
    };
  },
});

// ------------------------------------------------------------------------------------- contains

function containsValues(subject: { expected: Record<string, unknown> }, params: Record<string, unknown>): string[] | undefined {
  const values = stringList(params.values) ?? stringList(subject.expected.contains);
  return values?.filter((value) => value !== '');
}

export const containsScorer: ScorerDefinition = defineScorer({
  name: 'contains',
  description: 'The answer contains the values (params.values, else expected.contains); score = share of the values found.',
  params: [
    { name: 'values', type: 'array', required: false, description: 'strings the answer must contain; default expected.contains (a string or strings)' },
    { name: 'case_sensitive', type: 'boolean', required: false, description: 'letter case must match', default: false },
    { name: 'all', type: 'boolean', required: false, description: 'every value must be found (else one suffices); an explicit threshold overrides', default: true },
  ],
  appliesTo: TEXT_TARGETS,
  thresholdKind: 'min',
  defaultThreshold: 1,
  thresholdRange: [0, 1],
  checkParams: (params) => {
    if (params.values === undefined) return null;
    const values = params.values as unknown[];
    if (values.length === 0 || values.length > 100) return 'values takes 1 to 100 strings';
    if (!values.every((value) => typeof value === 'string' && value !== '' && value.length <= 1000)) return 'values takes non-empty strings of at most 1000 characters';
    return null;
  },
  // all=false: one value found suffices, whatever the share.
  implicitThreshold: (params) => (booleanParam(params, 'all', true) ? 1 : null),
  relevant: (subject, params) => (containsValues(subject, params)?.length ?? 0) > 0,
  evaluate: (subject, params, threshold) => {
    const values = containsValues(subject, params) as string[];
    const caseSensitive = booleanParam(params, 'case_sensitive', false);
    const output = subject.output ?? '';
    const haystack = caseSensitive ? output : output.toLowerCase();
    const missing = values.filter((value) => !haystack.includes(caseSensitive ? value : value.toLowerCase()));
    const found = values.length - missing.length;
    const score = found / values.length;
    const passed = threshold === null ? found > 0 : score >= threshold;
    const missingText = missing.length === 0 ? '' : `; missing ${missing.slice(0, 5).map((value) => excerpt(value, 40)).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`;
    return { score, passed, threshold, reason: `found ${found} of ${values.length} value(s)${missingText}` };
  },
});

// ---------------------------------------------------------------------------------------- regex

const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };

/** Compiles a pattern with the linear-time engine, or returns why it cannot. */
export function compilePattern(pattern: string, flags: string): RE2JS | { error: string } {
  if (pattern === '') return { error: 'the pattern is empty' };
  if (pattern.length > MAX_PATTERN_CHARS) return { error: `the pattern is longer than ${MAX_PATTERN_CHARS} characters` };
  let bits = 0;
  for (const flag of flags) {
    const bit = FLAG_BITS[flag];
    if (bit === undefined) return { error: `flag ${excerpt(flag, 4)} is not one of i, m, s` };
    bits |= bit;
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, bits);
  } catch (error) {
    return { error: `the linear-time engine (RE2) refuses it: ${(error as Error).message.replace(/^error parsing regexp: /, '')}` };
  }
  if (compiled.programSize() > MAX_PROGRAM_SIZE) {
    return { error: `it is too complex: ${compiled.programSize()} instructions, at most ${MAX_PROGRAM_SIZE} (large counted repeats such as {500} multiply the size)` };
  }
  return compiled;
}

export const regexScorer: ScorerDefinition = defineScorer({
  name: 'regex',
  description: 'The answer matches a regular expression (params.pattern, else expected.regex), run by RE2 in linear time; flags i, m, s.',
  params: [
    { name: 'pattern', type: 'string', required: false, description: 'RE2 syntax (no backreferences or lookaround); default expected.regex' },
    { name: 'flags', type: 'string', required: false, description: 'any of i (ignore case), m (multi-line ^ $), s (. matches newlines)', default: '' },
  ],
  appliesTo: TEXT_TARGETS,
  thresholdKind: null,
  defaultThreshold: null,
  checkParams: (params) => {
    const flags = stringParam(params, 'flags') ?? '';
    const pattern = stringParam(params, 'pattern');
    if (pattern === undefined) {
      if (flags !== '' && /[^ims]/.test(flags)) return 'flags takes only i, m and s';
      return null;
    }
    const compiled = compilePattern(pattern, flags);
    return 'error' in compiled ? `pattern ${excerpt(pattern, 60)} is refused: ${compiled.error}` : null;
  },
  relevant: (subject, params) => stringParam(params, 'pattern') !== undefined || typeof subject.expected.regex === 'string',
  evaluate: (subject, params) => {
    const pattern = stringParam(params, 'pattern') ?? (subject.expected.regex as string);
    const compiled = compilePattern(pattern, stringParam(params, 'flags') ?? '');
    if ('error' in compiled) return { score: null, passed: false, threshold: null, reason: `expected.regex ${excerpt(pattern, 60)} cannot be used: ${compiled.error}` };
    const output = subject.output ?? '';
    const matcher = compiled.matcher(output);
    const passed = matcher.find();
    return {
      score: passed ? 1 : 0,
      passed,
      threshold: null,
      reason: passed ? `answer matches /${clipPattern(pattern)}/ at ${excerpt(matcher.group() ?? '', 60)}` : `answer does not match /${clipPattern(pattern)}/`,
    };
  },
});

function clipPattern(pattern: string): string {
  return pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern;
}

// ---------------------------------------------------------------------------------- json_schema

type Compiled = { validate: ValidateFunction } | { error: string };

let ajvInstance: Ajv | undefined;
/** Compiling is far slower than validating: equal schemas (by their JSON text) compile once. */
const compiledSchemas = new LRUCache<string, Compiled>({ max: 64 });

// Patterns in a schema run on the answer: ajv is given the linear-time engine instead of RegExp,
// so a schema with `"pattern": "(a+)+$"` cannot stall a run on a long answer.
const linearRegExp = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
    return { test: (text: string) => compiled.test(text) };
  },
  { code: 'linear-time regular expressions (re2js)' },
);

function ajv(): Ajv {
  // No formats: their regular expressions run on the answer with the backtracking engine. No
  // loadSchema: a remote $ref cannot be fetched and fails the compile.
  ajvInstance ??= new Ajv({ allErrors: true, strict: false, logger: false, validateFormats: false, code: { regExp: linearRegExp } });
  return ajvInstance;
}

function registeredKeys(instance: Ajv): Set<string> {
  return new Set([...Object.keys(instance.refs), ...Object.keys(instance.schemas)]);
}

/** A schema checked and compiled, or why it cannot be used. */
export function compileSchema(schema: unknown): Compiled {
  if (!isRecord(schema) && typeof schema !== 'boolean') return { error: 'the schema is not a JSON object' };
  const text = JSON.stringify(schema);
  if (Buffer.byteLength(text, 'utf8') > MAX_SCHEMA_BYTES) return { error: `the schema is larger than ${MAX_SCHEMA_BYTES} bytes` };
  const cached = compiledSchemas.get(text);
  if (cached !== undefined) return cached;
  const instance = ajv();
  const registeredBefore = registeredKeys(instance);
  const copy = JSON.parse(text) as object;
  let compiled: Compiled;
  try {
    compiled = { validate: instance.compile(copy) };
  } catch (error) {
    compiled = { error: error instanceof RangeError ? 'it nests too deeply' : `it does not compile: ${(error as Error).message}` };
  } finally {
    // ajv keeps every schema it compiled, and each $id inside: forget them (our cache holds the
    // validators), so memory stays bounded and a later schema may reuse an $id.
    instance.removeSchema(copy);
    for (const key of registeredKeys(instance)) if (!registeredBefore.has(key)) instance.removeSchema(key);
  }
  compiledSchemas.set(text, compiled);
  return compiled;
}

/** Nesting depth of a JSON text, counted without parsing (strings skipped); stops past `limit`. */
function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 92) index += 1;
      else if (char === 34) inString = false;
    } else if (char === 34) inString = true;
    else if (char === 123 || char === 91) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (char === 125 || char === 93) depth -= 1;
  }
  return deepest;
}

function describeErrors(errors: readonly ErrorObject[]): string {
  const listed = errors.slice(0, LISTED_ERRORS).map((error) => `${error.instancePath === '' ? '(root)' : error.instancePath} ${error.message ?? 'is invalid'}`);
  return `${listed.join('; ')}${errors.length > LISTED_ERRORS ? `; and ${errors.length - LISTED_ERRORS} more` : ''}`;
}

function failure(reason: string): ScoreOutcome {
  return { score: 0, passed: false, threshold: null, reason };
}

export const jsonSchemaScorer: ScorerDefinition = defineScorer({
  name: 'json_schema',
  description: 'The answer is JSON valid against a JSON Schema (params.schema, else expected.json_schema); no remote $ref, formats not checked.',
  params: [{ name: 'schema', type: 'object', required: false, description: `a JSON Schema, at most ${MAX_SCHEMA_BYTES} bytes; default expected.json_schema` }],
  appliesTo: TEXT_TARGETS,
  thresholdKind: null,
  defaultThreshold: null,
  checkParams: (params) => {
    if (params.schema === undefined) return null;
    const compiled = compileSchema(params.schema);
    return 'error' in compiled ? `schema is refused: ${compiled.error}` : null;
  },
  relevant: (subject, params) => params.schema !== undefined || isRecord(subject.expected.json_schema),
  evaluate: (subject, params) => {
    const compiled = compileSchema(params.schema ?? subject.expected.json_schema);
    if ('error' in compiled) return { score: null, passed: false, threshold: null, reason: `the expected JSON Schema cannot be used: ${compiled.error}` };
    const text = (subject.output ?? '').trim();
    if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return failure(`answer nests deeper than ${MAX_JSON_DEPTH} levels; not validated`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return failure(`answer is not JSON: ${excerpt(text, 60)}`);
    }
    let valid: boolean;
    try {
      valid = compiled.validate(value) as boolean;
    } catch (error) {
      return failure(`answer could not be validated: ${error instanceof RangeError ? 'it nests too deeply' : (error as Error).message}`);
    }
    if (valid) return { score: 1, passed: true, threshold: null, reason: 'answer is JSON valid against the schema' };
    const errors = compiled.validate.errors ?? [];
    return failure(`answer does not match the schema (${formatNumber(errors.length)} error(s)): ${describeErrors(errors)}`);
  },
});
