// What every scorer shares: one way to declare a scorer (which subjects it applies to, how its
// threshold is found), the rule that a subject with an error fails every applicable scorer, and
// small readers for the loosely typed `expected`, `context` and `params` objects.
import type { Scorer, ScoreOutcome, ScorerHelpers, ScorerParam, ScoreSubject, ScorerSpec, TargetType } from '../types.js';

/** Longest reason kept: a reason is read by a person, not a dump of the answer. */
export const MAX_REASON_CHARS = 500;

/** A scorer with what `resolveScorers` needs to check a spec before a run starts. */
export interface ScorerDefinition extends Scorer {
  /** Bounds of an explicit threshold; null: the scorer takes no threshold. */
  thresholdRange: readonly [number, number] | null;
  /** What the scorer needs beyond its declared param types (a pattern that compiles …); the problem, or null. */
  checkParams?(params: Record<string, unknown>): string | null;
  /** The threshold a spec stands for when it names none (params such as `max_ms` may set it). */
  thresholdFor(spec: ScorerSpec): number | null;
}

interface Definition {
  name: string;
  description: string;
  params: readonly ScorerParam[];
  appliesTo: ReadonlyArray<TargetType | 'online'>;
  thresholdKind: 'min' | 'max' | null;
  defaultThreshold: number | null;
  thresholdRange?: readonly [number, number] | null;
  checkParams?(params: Record<string, unknown>): string | null;
  /** The threshold when the spec names none; default: `defaultThreshold`. */
  implicitThreshold?(params: Record<string, unknown>): number | null;
  /**
   * Whether the scorer says anything about this subject, judged from what the case asserts (its
   * expected, labels, context) — never from the answer, so a subject with an error still counts
   * as failed where it would have been scored.
   */
  relevant(subject: ScoreSubject, params: Record<string, unknown>): boolean;
  /** The outcome for a subject with an answer; null when the answer leaves nothing to score. */
  evaluate(subject: ScoreSubject, params: Record<string, unknown>, threshold: number | null, helpers: ScorerHelpers): ScoreOutcome | null | Promise<ScoreOutcome | null>;
}

export function defineScorer(definition: Definition): ScorerDefinition {
  const thresholdFor = (spec: ScorerSpec): number | null => {
    if (spec.threshold !== undefined) return spec.threshold;
    const params = spec.params ?? {};
    return definition.implicitThreshold !== undefined ? definition.implicitThreshold(params) : definition.defaultThreshold;
  };
  return {
    name: definition.name,
    description: definition.description,
    params: definition.params,
    appliesTo: definition.appliesTo,
    thresholdKind: definition.thresholdKind,
    defaultThreshold: definition.defaultThreshold,
    thresholdRange: definition.thresholdRange ?? null,
    ...(definition.checkParams === undefined ? {} : { checkParams: definition.checkParams }),
    thresholdFor,
    async score(subject, spec, helpers) {
      if (!definition.appliesTo.includes(subject.source)) return null;
      const params = spec.params ?? {};
      if (!definition.relevant(subject, params)) return null;
      const threshold = thresholdFor(spec);
      if (subject.error !== null) return { score: null, passed: false, threshold, reason: clip(`no answer to score: ${subject.error}`) };
      const outcome = await definition.evaluate(subject, params, threshold, helpers);
      return outcome === null ? null : { ...outcome, reason: clip(outcome.reason) };
    },
  };
}

/** Text safe to keep in a reason: well-formed, no control characters, at most `max` characters. */
export function clip(text: string, max = MAX_REASON_CHARS): string {
  const clean = withoutControlCharacters(text.slice(0, max + 1).toWellFormed());
  return clean.length > max ? `${clean.slice(0, max - 1).toWellFormed()}…` : clean;
}

/** Control characters (NUL included; tab and newline kept) as U+FFFD, so a reason reads and stores cleanly. */
function withoutControlCharacters(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    out += (code < 32 && code !== 9 && code !== 10) || code === 127 ? '\uFFFD' : char;
  }
  return out;
}

/** A short quoted excerpt of a value for a reason. */
export function excerpt(text: string, max = 80): string {
  const short = text.length > max ? `${text.slice(0, max)}…` : text;
  return `'${clip(short.replace(/\s+/g, ' '), max + 1)}'`;
}

export function stringParam(params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  return typeof value === 'string' ? value : undefined;
}

export function booleanParam(params: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = params[name];
  return typeof value === 'boolean' ? value : fallback;
}

export function numberParam(params: Record<string, unknown>, name: string): number | undefined {
  const value = params[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A string, or the strings of an array; undefined for anything else. */
export function stringList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return undefined;
}

/** A non-empty string value, else undefined. */
export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Pass or fail against a threshold of the scorer's kind. */
export function meets(score: number, threshold: number, kind: 'min' | 'max'): boolean {
  return kind === 'min' ? score >= threshold : score <= threshold;
}

/** A number for a reason: at most 3 decimals, no trailing zeros. */
export function formatNumber(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}
