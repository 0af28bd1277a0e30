// The scorers of evaluations and the three calls the other parts use: resolveScorers (checks what a
// run or an online job names before anything starts, and fills in thresholds), scoreAll (scores
// one subject with each spec) and scorerByName.
import { Buffer } from 'node:buffer';
import { problem, type FieldError } from '../../../infra/http/problems.js';
import type { Scorer, ScoreOutcome, ScorerHelpers, ScorerSpec, ScoreSubject, TargetType } from '../types.js';
import { clip, isRecord, type ScorerDefinition } from './common.js';
import { entitiesScorer, verdictScorer } from './decision.js';
import { judgeScorer, JUDGE_UNAVAILABLE } from './judge.js';
import { costScorer, latencyScorer } from './performance.js';
import { injectionFollowedScorer, overRefusalScorer, piiLeakScorer, refusalScorer, secretLeakScorer } from './safety.js';
import { containsScorer, exactScorer, jsonSchemaScorer, regexScorer } from './text.js';

export { judgeAvailable, judgeWithTiers, JUDGE_UNAVAILABLE } from './judge.js';

const DEFINITIONS: readonly ScorerDefinition[] = [
  exactScorer,
  containsScorer,
  regexScorer,
  jsonSchemaScorer,
  verdictScorer,
  entitiesScorer,
  refusalScorer,
  overRefusalScorer,
  piiLeakScorer,
  secretLeakScorer,
  injectionFollowedScorer,
  latencyScorer,
  costScorer,
  judgeScorer,
];

export const SCORERS: readonly Scorer[] = DEFINITIONS;

const BY_NAME = new Map<string, ScorerDefinition>(DEFINITIONS.map((scorer) => [scorer.name, scorer]));

export function scorerByName(name: string): Scorer | undefined {
  return BY_NAME.get(name);
}

/** The definitions with their threshold bounds and param checks (the scorers route lists them). */
export function scorerDefinitions(): readonly ScorerDefinition[] {
  return DEFINITIONS;
}

/** Scorers used when a run or an online job names none. */
export const DEFAULT_SCORERS: Readonly<Record<TargetType | 'online', readonly string[]>> = {
  guard: ['verdict', 'entities'],
  model: ['refusal', 'pii_leak', 'secret_leak', 'injection_followed'],
  http: ['refusal', 'pii_leak', 'secret_leak', 'injection_followed'],
  online: ['verdict', 'refusal', 'latency'],
};

/** Scorers one run may name at most. */
export const MAX_SCORERS = DEFINITIONS.length;
/** Serialized params of one scorer at most (a json_schema schema is the largest). */
const MAX_PARAMS_BYTES = 20 * 1024;

function refuse(index: number, detail: string, field = ''): never {
  const errors: FieldError[] = [{ field: `/scorers/${index}${field}`, message: detail }];
  throw problem('refused', `scorers[${index}]: ${detail}`, errors);
}

function invalid(index: number, detail: string, field = ''): never {
  const errors: FieldError[] = [{ field: `/scorers/${index}${field}`, message: detail }];
  throw problem('invalid-request', `scorers[${index}]: ${detail}`, errors);
}

/** Serialized size; a value too deep to serialize counts as too large. */
function paramsBytes(params: Record<string, unknown>): number {
  try {
    return Buffer.byteLength(JSON.stringify(params), 'utf8');
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value;
}

/**
 * Checks scorer names, params and thresholds against the target type and returns the specs with the
 * threshold filled in. Unknown names, scorers that do not apply to the target, duplicates, params
 * that do not compile (a pattern, a schema) and `judge` without a tier (when `options.judge` is
 * given and null) are refused (422); a spec of the wrong shape, a param of the wrong type, a
 * missing required param or a threshold out of range is invalid (400). Empty or absent: the
 * target's defaults.
 */
export function resolveScorers(
  raw: ReadonlyArray<string | ScorerSpec> | undefined,
  target: TargetType | 'online',
  options?: Pick<ScorerHelpers, 'judge'>,
): ScorerSpec[] {
  const items: ReadonlyArray<unknown> = raw === undefined || raw.length === 0 ? DEFAULT_SCORERS[target] : raw;
  if (!Array.isArray(items)) throw problem('invalid-request', 'scorers must be a list of names or {name, params?, threshold?} objects');
  if (items.length > MAX_SCORERS) throw problem('invalid-request', `at most ${MAX_SCORERS} scorers`);
  const seen = new Set<string>();
  const resolved: ScorerSpec[] = [];
  items.forEach((item, index) => {
    const spec: unknown = typeof item === 'string' ? { name: item } : item;
    if (!isRecord(spec)) invalid(index, 'must be a scorer name or an object {name, params?, threshold?}');
    const extra = Object.keys(spec).filter((key) => !['name', 'params', 'threshold'].includes(key));
    if (extra.length > 0) invalid(index, `unknown field ${clip(extra[0] as string, 64)}; a scorer takes name, params and threshold`);
    const { name, params = {}, threshold } = spec as { name?: unknown; params?: unknown; threshold?: unknown };
    if (typeof name !== 'string') invalid(index, 'name must be a string', '/name');
    const scorer = BY_NAME.get(name);
    if (scorer === undefined) refuse(index, `unknown scorer ${JSON.stringify(clip(name, 64))}; known: ${DEFINITIONS.map((known) => known.name).join(', ')}`, '/name');
    if (!scorer.appliesTo.includes(target)) {
      refuse(index, `scorer ${name} does not apply to ${target === 'online' ? 'online scoring' : `a ${target} target`}; it applies to ${scorer.appliesTo.join(', ')}`, '/name');
    }
    if (seen.has(name)) refuse(index, `scorer ${name} is named twice`, '/name');
    seen.add(name);
    if (!isRecord(params)) invalid(index, 'params must be an object', '/params');
    if (paramsBytes(params) > MAX_PARAMS_BYTES) invalid(index, `params are larger than ${MAX_PARAMS_BYTES} bytes or nest too deeply`, '/params');
    for (const key of Object.keys(params)) {
      const declared = scorer.params.find((param) => param.name === key);
      if (declared === undefined) {
        const names = scorer.params.map((param) => param.name);
        invalid(index, `${name} takes no param ${JSON.stringify(clip(key, 64))}${names.length > 0 ? `; it takes ${names.join(', ')}` : '; it takes none'}`, `/params/${key}`);
      }
      const type = typeOf(params[key]);
      if (type !== declared.type || (type === 'number' && !Number.isFinite(params[key]))) invalid(index, `${name} param ${key} must be a ${declared.type}`, `/params/${key}`);
    }
    for (const param of scorer.params) {
      if (param.required && params[param.name] === undefined) invalid(index, `${name} needs param ${param.name}: ${param.description}`, `/params/${param.name}`);
    }
    if (threshold !== undefined) {
      const range = scorer.thresholdRange;
      if (range === null) invalid(index, `${name} is pass/fail and takes no threshold`, '/threshold');
      if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold < range[0] || threshold > range[1]) {
        invalid(index, `${name} threshold must be a number from ${range[0]} to ${range[1]}`, '/threshold');
      }
    }
    const problemWithParams = scorer.checkParams?.(params) ?? null;
    if (problemWithParams !== null) refuse(index, `${name}: ${problemWithParams}`, '/params');
    if (name === 'judge' && options !== undefined && options.judge === null) refuse(index, `judge ${JUDGE_UNAVAILABLE}`, '/name');
    const out: ScorerSpec = { name };
    if (Object.keys(params).length > 0) out.params = params;
    const filled = scorer.thresholdFor({ name, params, ...(threshold === undefined ? {} : { threshold: threshold as number }) });
    if (filled !== null) out.threshold = filled;
    resolved.push(out);
  });
  return resolved;
}

/**
 * Scores one subject with each spec, in the specs' order; outcome null = not applicable (no row is
 * written). A scorer that throws fails the subject with the reason rather than the run.
 */
export async function scoreAll(
  subject: ScoreSubject,
  specs: readonly ScorerSpec[],
  helpers: ScorerHelpers,
): Promise<Array<{ spec: ScorerSpec; outcome: ScoreOutcome | null }>> {
  return Promise.all(
    specs.map(async (spec) => {
      const scorer = BY_NAME.get(spec.name);
      if (scorer === undefined) return { spec, outcome: { score: null, passed: false, threshold: spec.threshold ?? null, reason: `unknown scorer ${clip(spec.name, 64)}` } };
      try {
        return { spec, outcome: await scorer.score(subject, spec, helpers) };
      } catch (error) {
        return { spec, outcome: { score: null, passed: false, threshold: scorer.thresholdFor(spec), reason: clip(`the scorer failed: ${(error as Error).message}`) } };
      }
    }),
  );
}
