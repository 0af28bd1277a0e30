// Compiles one custom rule into a matcher over a text: keywords as whole words, patterns with the
// linear-time engine, sequences of steps in order within a distance. Compiled once per rule change,
// run on every check, so run() is pure and linear in the text: keyword lists become one regular
// expression of escaped literals (no operator syntax reaches RegExp), patterns go to re2js.
import type { RE2JS } from 're2js';
import type { Surface } from '../../engine/detectors/types.js';
import type { FieldError } from '../../infra/http/problems.js';
import type { Effect } from '../../engine/policy/schema.js';
import { compileSafeRegex, UnsafePattern } from './safe-regex.js';
import { DEFAULT_WITHIN, type Example, type OnBlock, type Polarity, type RuleKind, type SequenceSpec } from './schemas.js';

/**
 * A custom rule with every default filled in: what is stored (as JSON) and compiled.
 * @example
 * const rule: CustomRuleDefinition = { ...defaults, key: 'falcon', name: 'Project Falcon', kind: 'keyword', entries: ['project falcon'] };
 */
export interface CustomRuleDefinition {
  key: string;
  name: string;
  kind: RuleKind;
  polarity: Polarity;
  entries: string[];
  examples: Example[];
  description: string | null;
  /** Empty: every surface. */
  surfaces: Surface[];
  /** Empty: every agent (enforced by the policy rule, the detector has no agent). */
  agents: string[];
  case_sensitive: boolean;
  sequence: SequenceSpec | null;
  enabled: boolean;
  effect: Effect;
  message: string | null;
  on_block: OnBlock | null;
  severity: 'critical' | 'high' | 'medium' | 'low' | null;
}

export interface MatchSpan {
  /** UTF-16 offsets into the text, end exclusive. */
  start: number;
  end: number;
  /** The keyword, pattern or sequence steps that matched. */
  entry: string;
}

export interface RuleOutcome {
  matched: boolean;
  /** deny: matched; require: not matched. */
  fires: boolean;
  spans: MatchSpan[];
  /** False when matching stopped at the deadline (then a require rule does not fire). */
  complete: boolean;
}

export interface CompiledCustomRule {
  definition: CustomRuleDefinition;
  entity: string;
  ruleId: string;
  run(text: string, options?: { deadline?: number; maxSpans?: number }): RuleOutcome;
}

/** A rule that cannot be compiled; `errors` name the fields (for a problem+json 400). */
export class RuleInvalid extends Error {
  override name = 'RuleInvalid';
  constructor(readonly errors: FieldError[]) {
    super(errors.map((error) => `${error.field}: ${error.message}`).join('; '));
  }
}

/** `CUSTOM.<KEY>`: upper case, anything but letters and digits becomes `_`. */
export function entityOf(key: string): string {
  return `CUSTOM.${key.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** `custom.<key_snake>`: lower case, anything but letters and digits becomes `_`. */
export function ruleIdOf(key: string): string {
  return `custom.${key.toLowerCase().replace(/[^a-z0-9]/g, '_')}`;
}

/** Spans kept per rule and check: enough to mask every occurrence in any sensible text. */
export const MAX_SPANS = 1000;
/** Occurrences of one sequence step considered; beyond this the text is not a sensible input. */
const MAX_STEP_OCCURRENCES = 20_000;

const WORD_CLASS = '[\\p{L}\\p{M}\\p{N}\\p{Pc}]';
const WORD_CHAR = new RegExp(`^${WORD_CLASS}$`, 'u');

function escapeLiteral(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Whitespace inside a phrase matches any run of whitespace; both ends are trimmed. */
function normalizeWord(word: string): string {
  return word.trim().replace(/\s+/g, ' ');
}

/** Finds occurrences of one kind of entry in a text, in order, without overlaps. */
interface Finder {
  /**
   * Visits occurrences in text order, at most `limit`. `matched` says whether the text matches at
   * all (for patterns this is decided over the whole text even when no span could be located);
   * `complete` is false when the deadline stopped the search.
   */
  each(text: string, limit: number, deadline: number | undefined, visit: (span: MatchSpan) => void): { matched: boolean; complete: boolean };
}

/**
 * Words and phrases as whole words: a word character next to the match breaks it where the
 * keyword itself starts (ends) with a word character, so "ban" does not fire inside "banana" and
 * "C++" still matches before a space. Word characters are letters, marks, digits and connector
 * punctuation of any script, as for agent protections. The expression holds escaped literals only.
 */
function keywordFinder(words: readonly string[], caseSensitive: boolean): Finder {
  const unique = [...new Set(words.map(normalizeWord).filter((word) => word !== ''))].sort((a, b) => b.length - a.length);
  const fold = (text: string) => (caseSensitive ? text : text.toLowerCase());
  const byText = new Map(unique.map((word) => [fold(word), word]));
  const alternatives = unique.map((word) => {
    const chars = Array.from(word);
    const before = WORD_CHAR.test(chars[0] as string) ? `(?<!${WORD_CLASS})` : '';
    const after = WORD_CHAR.test(chars[chars.length - 1] as string) ? `(?!${WORD_CLASS})` : '';
    return `${before}${word.split(' ').map(escapeLiteral).join('\\s+')}${after}`;
  });
  const expression = new RegExp(alternatives.join('|'), caseSensitive ? 'gu' : 'giu');
  return {
    each(text, limit, deadline, visit) {
      expression.lastIndex = 0;
      let count = 0;
      for (let found = expression.exec(text); found !== null; found = expression.exec(text)) {
        const matched = found[0];
        visit({ start: found.index, end: found.index + matched.length, entry: byText.get(fold(matched.replace(/\s+/g, ' '))) ?? matched });
        count += 1;
        if (count >= limit) break;
        if ((count & 63) === 0 && deadline !== undefined && Date.now() > deadline) return { matched: true, complete: false };
      }
      return { matched: count > 0, complete: true };
    },
  };
}

/**
 * Spans are searched in windows of this many characters (overlapping by SPAN_OVERLAP): locating a
 * match costs time proportional to the text times the pattern's program size, so each window is
 * tested first with the fast DFA and only windows that match are searched, with the deadline checked
 * in between. Whether a pattern matches is always decided over the whole text.
 */
export const SPAN_WINDOW = 4096;
const SPAN_OVERLAP = 512;

/** Collects the spans of one pattern window by window; false when the deadline stopped it. */
function locate(compiled: RE2JS, pattern: string, text: string, limit: number, deadline: number | undefined, spans: MatchSpan[]): boolean {
  let count = 0;
  for (let offset = 0; offset < text.length; offset += SPAN_WINDOW - SPAN_OVERLAP) {
    if (deadline !== undefined && Date.now() > deadline) return false;
    const window = offset === 0 && text.length <= SPAN_WINDOW ? text : text.slice(offset, offset + SPAN_WINDOW);
    if (compiled.test(window)) {
      const matcher = compiled.matcher(window);
      while (matcher.find()) {
        const start = offset + matcher.start();
        const end = offset + matcher.end();
        if (end === start) continue;
        spans.push({ start, end, entry: pattern });
        count += 1;
        if (count >= limit) return true;
      }
    }
    if (offset + SPAN_WINDOW >= text.length) break;
  }
  return true;
}

/** Patterns with re2js: a DFA test over the whole text decides; spans are then located where it can. */
function patternFinder(patterns: ReadonlyArray<{ pattern: string; compiled: RE2JS }>): Finder {
  return {
    each(text, limit, deadline, visit) {
      const spans: MatchSpan[] = [];
      let matched = false;
      let complete = true;
      for (const { pattern, compiled } of patterns) {
        if (deadline !== undefined && Date.now() > deadline) {
          complete = false;
          break;
        }
        if (!compiled.test(text)) continue;
        matched = true;
        const before = spans.length;
        const located = locate(compiled, pattern, text, limit, deadline, spans);
        // A match the windows could not place (longer than a window, or cut by the deadline) still
        // counts: it is reported at 0..0, like a require violation.
        if (spans.length === before) spans.push({ start: 0, end: 0, entry: pattern });
        if (!located) {
          complete = false;
          break;
        }
      }
      // Several patterns and overlapping windows: report in text order without overlaps.
      spans.sort((a, b) => a.start - b.start || b.end - a.end);
      let reached = -1;
      let count = 0;
      for (const span of spans) {
        if (span.start < reached || (span.end === span.start && count > 0)) continue;
        visit(span);
        reached = Math.max(span.end, span.start + 1);
        count += 1;
        if (count >= limit) break;
      }
      return { matched, complete };
    },
  };
}

function compilePatterns(patterns: readonly string[], caseSensitive: boolean, fieldOf: (index: number) => string): Array<{ pattern: string; compiled: RE2JS }> {
  const errors: FieldError[] = [];
  const compiled: Array<{ pattern: string; compiled: RE2JS }> = [];
  patterns.forEach((pattern, index) => {
    try {
      compiled.push({ pattern, compiled: compileSafeRegex(pattern, { caseSensitive }) });
    } catch (error) {
      if (!(error instanceof UnsafePattern)) throw error;
      errors.push({ field: fieldOf(index), message: error.message });
    }
  });
  if (errors.length > 0) throw new RuleInvalid(errors);
  return compiled;
}

/**
 * A sequence matches when its steps occur in order, each starting at most `within` characters after
 * the end of the one before. Linear after finding each step's occurrences: for every occurrence of a
 * step, the nearest reachable occurrence of the step before (the latest one ending before it) is
 * the best predecessor, found with one pointer moving forward.
 */
function sequenceFinder(steps: readonly Finder[], labels: readonly string[], within: number): Finder {
  return {
    each(text, limit, deadline, visit) {
      // Reachable occurrences of the current step, each with the start of its chain.
      let reachable: Array<{ start: number; end: number; origin: number }> = [];
      for (let index = 0; index < steps.length; index += 1) {
        const occurrences: MatchSpan[] = [];
        const found = (steps[index] as Finder).each(text, MAX_STEP_OCCURRENCES, deadline, (span) => occurrences.push(span));
        if (!found.complete) return { matched: false, complete: false };
        if (index === 0) {
          reachable = occurrences.map((span) => ({ start: span.start, end: span.end, origin: span.start }));
        } else {
          const next: typeof reachable = [];
          let pointer = -1;
          for (const span of occurrences) {
            while (pointer + 1 < reachable.length && (reachable[pointer + 1] as { end: number }).end <= span.start) pointer += 1;
            const before = reachable[pointer];
            if (before !== undefined && span.start - before.end <= within) next.push({ start: span.start, end: span.end, origin: before.origin });
          }
          reachable = next;
        }
        if (reachable.length === 0) return { matched: false, complete: true };
      }
      const entry = labels.join(' … ');
      let reached = -1;
      let count = 0;
      for (const chain of reachable) {
        if (chain.origin < reached) continue;
        visit({ start: chain.origin, end: chain.end, entry });
        reached = chain.end;
        count += 1;
        if (count >= limit) break;
      }
      return { matched: true, complete: true };
    },
  };
}

/**
 * Compiles a rule (every default already filled in), or throws RuleInvalid naming each bad field.
 * @example compileCustomRule({ ...rule, kind: 'regex', entries: ['acct-\\d{6}'] }).run('acct-123456').fires // true
 */
export function compileCustomRule(definition: CustomRuleDefinition): CompiledCustomRule {
  const { kind, case_sensitive: caseSensitive } = definition;
  let finder: Finder;
  if (kind === 'keyword') {
    const words = definition.entries.map(normalizeWord).filter((word) => word !== '');
    if (words.length === 0) throw new RuleInvalid([{ field: '/entries', message: 'a keyword rule needs at least one word or phrase in entries' }]);
    if (definition.sequence !== null) throw new RuleInvalid([{ field: '/sequence', message: 'only sequence rules take a sequence' }]);
    finder = keywordFinder(words, caseSensitive);
  } else if (kind === 'regex') {
    if (definition.entries.length === 0) throw new RuleInvalid([{ field: '/entries', message: 'a regex rule needs at least one pattern in entries' }]);
    if (definition.sequence !== null) throw new RuleInvalid([{ field: '/sequence', message: 'only sequence rules take a sequence' }]);
    if (definition.entries.length > 100) throw new RuleInvalid([{ field: '/entries', message: 'a regex rule takes at most 100 patterns' }]);
    finder = patternFinder(compilePatterns(definition.entries, caseSensitive, (index) => `/entries/${index}`));
  } else {
    const spec = definition.sequence;
    if (spec === null) throw new RuleInvalid([{ field: '/sequence', message: 'a sequence rule needs a sequence: {steps: [{any: [...]}, {regex: "..."}], within}' }]);
    if (definition.entries.length > 0) throw new RuleInvalid([{ field: '/entries', message: 'a sequence rule takes its words from sequence.steps, not entries' }]);
    const labels: string[] = [];
    const steps = spec.steps.map((step, index): Finder => {
      if ('any' in step) {
        const words = step.any.map(normalizeWord).filter((word) => word !== '');
        if (words.length === 0) throw new RuleInvalid([{ field: `/sequence/steps/${index}/any`, message: 'a step needs at least one word' }]);
        labels.push(words.length === 1 ? (words[0] as string) : `(${words.join(' | ')})`);
        return keywordFinder(words, caseSensitive);
      }
      labels.push(`/${step.regex}/`);
      return patternFinder(compilePatterns([step.regex], caseSensitive, () => `/sequence/steps/${index}/regex`));
    });
    finder = sequenceFinder(steps, labels, spec.within ?? DEFAULT_WITHIN);
  }
  const deny = definition.polarity === 'deny';
  return {
    definition,
    entity: entityOf(definition.key),
    ruleId: ruleIdOf(definition.key),
    run(text, options = {}) {
      const spans: MatchSpan[] = [];
      const { matched, complete } = finder.each(text, options.maxSpans ?? MAX_SPANS, options.deadline, (span) => spans.push(span));
      // Cut short, a require rule cannot know the text lacks a match: it does not fire (the run is degraded).
      return { matched, fires: deny ? matched : complete && !matched, spans, complete };
    },
  };
}

/** What the caller is told when the rule fires: on_block's message for a block, else the message. */
export function callerMessage(definition: CustomRuleDefinition): string {
  const onBlock = definition.on_block;
  const blockMessage = typeof onBlock === 'string' ? onBlock : typeof onBlock?.message === 'string' ? onBlock.message : null;
  if (definition.effect === 'block' && blockMessage !== null) return blockMessage;
  return definition.message ?? `custom rule "${definition.name}" (${definition.key}) ${definition.polarity === 'deny' ? 'matched' : 'found no required text'}`;
}
