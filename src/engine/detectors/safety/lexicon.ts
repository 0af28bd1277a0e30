// Hot path: no I/O here. safety.lexicon: a small, offline lexicon of harmful-content phrases
// (harm, self-harm, illicit, harassment, extremism) scored by intent and context.
//
// How a match is scored:
// - each category's phrases are folded into ONE case-insensitive alternation, compiled at module
//   load, with three tiers (explicit 0.85, strong 0.6, weak 0.3);
// - an intent cue near the match ("how to make", "step by step", "I want to") adds 0.2–0.3, and a
//   second match of the same category nearby adds 0.1, so a lone ambiguous word stays at or
//   below 0.4 while a clear request reaches 0.8 or more;
// - benign context near the match (news reporting, fiction, prevention, medical dosage for
//   self-harm) halves the score of strong and weak terms, unless a strong intent cue is near
//   (explicit phrases and operational requests are not excused by framing);
// - a benign phrase containing the match ("kill the process", "bath bomb", "suicide prevention")
//   drops it altogether.
//
// Linear time: every pattern is an alternation of literal words joined by separator runs
// (`[\s_-]+`), anchored by one-character lookarounds, so the work per text position is bounded
// by the lexicon's size and never by the input. Cue and context positions are collected in one
// pass each and looked up by binary search; matches per list are capped.
import { LiteralAutomaton, type LiteralEntry } from '../literals/automaton.js';
import { requiredLiterals } from '../literals/required.js';
import type { Detection, DetectContext, Detector } from '../types.js';
import {
  BENIGN_CONTEXT,
  CATEGORIES,
  INTENT_CUES,
  SLOTS,
  STRONG_INTENT_CUES,
  type CategoryLexicon,
} from './lexicon-data.js';

const TIER_SCORES = { explicit: 0.85, strong: 0.6, weak: 0.3 } as const;
type Tier = keyof typeof TIER_SCORES;
const TIERS: readonly Tier[] = ['explicit', 'strong', 'weak'];

const STRONG_CUE_BOOST = 0.3;
const CUE_BOOST = 0.2;
/** Category-specific cues ("tonight", "painless" for self-harm) are precise, so they weigh as strong. */
const CATEGORY_CUE_BOOST = 0.3;
const CORROBORATION_BOOST = 0.1;
const BENIGN_FACTOR = 0.5;
const MAX_SCORE = 0.99;

/** A cue counts when it starts this far before the match or this far after it. */
const CUE_WINDOW_BEFORE = 160;
const CUE_WINDOW_AFTER = 80;
/** Framing such as "according to police" usually sits further away, often a sentence earlier. */
const CONTEXT_WINDOW = 300;
const CORROBORATION_WINDOW = 200;

/** Bounds that keep adversarial input ("bomb bomb bomb …" for a megabyte) cheap in memory and time. */
const MAX_MATCHES_PER_LIST = 10_000;
const MAX_DETECTIONS_PER_CATEGORY = 20;
/** At most this many neighbours are inspected per window lookup. */
const MAX_WINDOW_SCAN = 64;
const DEADLINE_CHECK_EVERY = 512;

// ---------------------------------------------------------------------------------------------
// Compiling the lexicon

/**
 * Between two words: a run of spaces, hyphens or underscores. Not `{1,4}`: irregexp unrolls bounded
 * repeats, which made the alternations ten times slower to compile. The run stays linear because
 * the class never overlaps the letters on either side, so a match attempt backtracks over at most
 * one run.
 */
const SEPARATOR = '[\\s_-]+';

function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** One word of a phrase; an apostrophe also matches the typographic one. */
function wordSource(word: string): string {
  return escapeRegExp(word.toLowerCase()).replace(/'/g, "['\u2019]");
}

function wordsSource(words: string): string {
  return words.trim().split(/\s+/).map(wordSource).join(SEPARATOR);
}

function byLengthDescending(a: string, b: string): number {
  return b.length - a.length;
}

/** Compiles one phrase of the data syntax (see lexicon-data.ts) to a regular-expression source. */
export function phraseSource(phrase: string): string {
  const tokens = phrase.trim().split(/\s+/);
  let source = '';
  tokens.forEach((token, index) => {
    const isLast = index === tokens.length - 1;
    const separator = isLast ? '' : SEPARATOR;
    const slot = /^\{(\w+)(\?)?\}$/.exec(token);
    if (slot === null) {
      source += wordSource(token) + separator;
      return;
    }
    const [, slotName = '', optional] = slot;
    const values = SLOTS[slotName];
    if (values === undefined) throw new Error(`safety lexicon: unknown slot {${slotName}} in "${phrase}"`);
    if (optional !== undefined && isLast) throw new Error(`safety lexicon: optional slot last in "${phrase}"`);
    const alternation = `(?:${[...values].sort(byLengthDescending).map(wordsSource).join('|')})`;
    // An optional slot takes its separator with it so "make bomb" and "make a bomb" both match.
    source += optional !== undefined ? `(?:${alternation}${separator})?` : alternation + separator;
  });
  return source;
}

/** Never matches; stands in for an empty list so group numbering stays fixed. */
const NOTHING = '(?!)';

function alternationSource(phrases: readonly string[]): string {
  if (phrases.length === 0) return NOTHING;
  return [...phrases].sort(byLengthDescending).map(phraseSource).join('|');
}

/** Whole words only: the lookarounds stand in for \b and also work next to digits and dashes. */
function listRegExp(phrases: readonly string[]): RegExp | undefined {
  if (phrases.length === 0) return undefined;
  return new RegExp(`(?<!\\w)(?:${alternationSource(phrases)})(?!\\w)`, 'gi');
}

interface CompiledCategory {
  lexicon: CategoryLexicon;
  /** Groups 1, 2, 3 are the explicit, strong and weak tiers; earlier tiers win at one position. */
  terms: RegExp | undefined;
  intentCues: RegExp | undefined;
  benignContext: RegExp | undefined;
  benignPhrases: RegExp | undefined;
}

function compileCategory(lexicon: CategoryLexicon): CompiledCategory {
  const hasTerms = TIERS.some((tier) => lexicon[tier].length > 0);
  const tierGroups = TIERS.map((tier) => `(${alternationSource(lexicon[tier])})`).join('|');
  return {
    lexicon,
    terms: hasTerms ? new RegExp(`(?<!\\w)(?:${tierGroups})(?!\\w)`, 'gi') : undefined,
    intentCues: listRegExp(lexicon.intentCues ?? []),
    benignContext: listRegExp(lexicon.benignContext ?? []),
    benignPhrases: listRegExp(lexicon.benignPhrases ?? []),
  };
}

const COMPILED_CATEGORIES: readonly CompiledCategory[] = CATEGORIES.map(compileCategory);

/**
 * One case-folded pass tells which categories have a term's required word in the text; the
 * others (nearly all, in ordinary text) skip their regexes. A category whose terms have no
 * required literal is always scanned.
 */
const TERM_GATE = ((): { automaton: LiteralAutomaton; always: boolean[] } => {
  const always: boolean[] = [];
  const entries: LiteralEntry[] = [];
  COMPILED_CATEGORIES.forEach((category, owner) => {
    const literals = category.terms === undefined ? [] : requiredLiterals(category.terms);
    always.push(literals === undefined);
    for (const literal of literals ?? []) entries.push({ literal, owner });
  });
  return { automaton: new LiteralAutomaton(entries, { foldCase: true }), always };
})();
const STRONG_INTENT_RE = listRegExp(STRONG_INTENT_CUES);
const INTENT_RE = listRegExp(INTENT_CUES);
const BENIGN_CONTEXT_RE = listRegExp(BENIGN_CONTEXT);

// ---------------------------------------------------------------------------------------------
// Scanning

interface Hit {
  start: number;
  end: number;
  /** Score weight (cues) or tier index (terms). */
  weight: number;
  text: string;
}

class DeadlinePassed extends Error {}

/**
 * All non-overlapping matches of a global regular expression, in order, capped. The result is
 * sorted by start and, because matches do not overlap, by end as well.
 */
function scan(
  pattern: RegExp | undefined,
  text: string,
  weightOf: (match: RegExpExecArray) => number,
  deadline: number | undefined,
): Hit[] {
  if (pattern === undefined) return [];
  const hits: Hit[] = [];
  pattern.lastIndex = 0;
  let match: RegExpExecArray | null;
  while (hits.length < MAX_MATCHES_PER_LIST && (match = pattern.exec(text)) !== null) {
    hits.push({ start: match.index, end: match.index + match[0].length, weight: weightOf(match), text: match[0] });
    if (deadline !== undefined && hits.length % DEADLINE_CHECK_EVERY === 0 && Date.now() > deadline) {
      pattern.lastIndex = 0;
      throw new DeadlinePassed();
    }
  }
  pattern.lastIndex = 0;
  return hits;
}

/** Index of the first hit starting at or after `position`. */
function firstStartingAtOrAfter(hits: readonly Hit[], position: number): number {
  let low = 0;
  let high = hits.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((hits[middle] as Hit).start < position) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The heaviest hit starting inside [from, to), if any. */
function heaviestStartingIn(hits: readonly Hit[], from: number, to: number, skip?: Hit): Hit | undefined {
  let best: Hit | undefined;
  const first = firstStartingAtOrAfter(hits, from);
  for (let index = first; index < hits.length && index < first + MAX_WINDOW_SCAN; index += 1) {
    const hit = hits[index] as Hit;
    if (hit.start >= to) break;
    if (hit !== skip && (best === undefined || hit.weight > best.weight)) best = hit;
  }
  return best;
}

/** Whether any hit overlaps [start, end). Hits do not overlap each other, so one look suffices. */
function overlapsAny(hits: readonly Hit[], start: number, end: number): boolean {
  const candidate = hits[firstStartingAtOrAfter(hits, end) - 1];
  return candidate !== undefined && candidate.end > start;
}

function heaviestIn(lists: ReadonlyArray<readonly Hit[]>, from: number, to: number): Hit | undefined {
  let best: Hit | undefined;
  for (const hits of lists) {
    const hit = heaviestStartingIn(hits, from, to);
    if (hit !== undefined && (best === undefined || hit.weight > best.weight)) best = hit;
  }
  return best;
}

/** Lower-cased, whitespace-collapsed and shortened, for explanations. */
function quote(matched: string): string {
  const collapsed = matched.replace(/\s+/g, ' ').toLowerCase();
  return `"${collapsed.length > 60 ? `${collapsed.slice(0, 57)}...` : collapsed}"`;
}

const tierOf = (match: RegExpExecArray): number => (match[1] !== undefined ? 0 : match[2] !== undefined ? 1 : 2);

/** Shared cue and context positions, computed once per text and only when some term matched. */
interface SharedContext {
  intentCues: Hit[];
  benignContext: Hit[];
}

function sharedContext(text: string, deadline: number | undefined): SharedContext {
  const benignContext = scan(BENIGN_CONTEXT_RE, text, () => 1, deadline);
  // A cue inside benign framing ("how to prevent", "how can I help") is no cue at all.
  const cues = [
    ...scan(STRONG_INTENT_RE, text, () => STRONG_CUE_BOOST, deadline),
    ...scan(INTENT_RE, text, () => CUE_BOOST, deadline),
  ].filter((cue) => !overlapsAny(benignContext, cue.start, cue.end));
  return { intentCues: dedupeSorted(cues), benignContext };
}

/**
 * Merges cue hits from two scans into one start-sorted list without overlaps (the heavier of two
 * overlapping cues is kept), so the binary searches above stay valid.
 */
function dedupeSorted(hits: Hit[]): Hit[] {
  hits.sort((a, b) => a.start - b.start || b.weight - a.weight);
  const merged: Hit[] = [];
  for (const hit of hits) {
    const previous = merged[merged.length - 1];
    if (previous !== undefined && hit.start < previous.end) {
      if (hit.weight > previous.weight) merged[merged.length - 1] = hit;
      continue;
    }
    merged.push(hit);
  }
  return merged;
}

function scoreCategory(
  category: CompiledCategory,
  text: string,
  getShared: () => SharedContext,
  deadline: number | undefined,
): Detection[] {
  const terms = scan(category.terms, text, tierOf, deadline);
  if (terms.length === 0) return [];
  const benignPhrases = scan(category.benignPhrases, text, () => 1, deadline);
  const kept = terms.filter((term) => !overlapsAny(benignPhrases, term.start, term.end));
  if (kept.length === 0) return [];

  const shared = getShared();
  const categoryCues = scan(category.intentCues, text, () => CATEGORY_CUE_BOOST, deadline).filter(
    (cue) => !overlapsAny(shared.benignContext, cue.start, cue.end),
  );
  const cueLists = [shared.intentCues, categoryCues];
  const contextLists = [shared.benignContext, scan(category.benignContext, text, () => 1, deadline)];
  const { name, entity } = category.lexicon;

  const scored = kept.map((term): Detection => {
    const tier = TIERS[term.weight] as Tier;
    const cue = heaviestIn(cueLists, term.start - CUE_WINDOW_BEFORE, term.end + CUE_WINDOW_AFTER);
    const neighbour = heaviestStartingIn(
      kept,
      term.start - CORROBORATION_WINDOW,
      term.end + CORROBORATION_WINDOW,
      term,
    );
    const benign = heaviestIn(contextLists, term.start - CONTEXT_WINDOW, term.end + CONTEXT_WINDOW);
    let score = TIER_SCORES[tier] + (cue?.weight ?? 0) + (neighbour !== undefined ? CORROBORATION_BOOST : 0);
    // Framing excuses neither an explicit phrase nor an operational request ("step by step",
    // "without getting caught"): "according to the news, how to make a pipe bomb" stays high.
    const dampened = benign !== undefined && tier !== 'explicit' && (cue?.weight ?? 0) < STRONG_CUE_BOOST;
    if (dampened) score *= BENIGN_FACTOR;
    score = Math.round(Math.min(MAX_SCORE, score) * 100) / 100;

    const reasons = [`${name} lexicon, ${tier} term ${quote(term.text)}`];
    if (cue !== undefined) reasons.push(`intent cue ${quote(cue.text)} nearby`);
    if (neighbour !== undefined) reasons.push('another term of the same category nearby');
    if (dampened) reasons.push(`benign context ${quote(benign.text)} halved the score`);
    return {
      entity,
      score,
      start: term.start,
      end: term.end,
      explanation: `${reasons.join('; ')}.`,
      pattern: `safety.${name}.${tier}`,
    };
  });

  if (scored.length <= MAX_DETECTIONS_PER_CATEGORY) return scored;
  // Keep the strongest findings, reported in text order.
  return scored
    .sort((a, b) => b.score - a.score || a.start - b.start)
    .slice(0, MAX_DETECTIONS_PER_CATEGORY)
    .sort((a, b) => a.start - b.start);
}

function detectSafety(text: string, context: DetectContext): Detection[] {
  const deadline = context.deadline;
  let shared: SharedContext | undefined;
  const getShared = (): SharedContext => (shared ??= sharedContext(text, deadline));
  const detections: Detection[] = [];
  try {
    const present = TERM_GATE.automaton.scan(text);
    COMPILED_CATEGORIES.forEach((category, index) => {
      if (present[index] === 1 || TERM_GATE.always[index] === true) {
        detections.push(...scoreCategory(category, text, getShared, deadline));
      }
    });
  } catch (error) {
    // Past the deadline: return what the finished categories found (the contract asks for that).
    if (!(error instanceof DeadlinePassed)) throw error;
  }
  return withoutShadowedWeakTerms(detections);
}

/**
 * Drops a weak term that lies inside a stronger term of another category: the "kill" of
 * "I want to kill myself" is self-harm, not a second, vaguer harm finding. At most a hundred
 * detections reach here (twenty per category), so the quadratic pass is cheap.
 */
function withoutShadowedWeakTerms(detections: Detection[]): Detection[] {
  const isWeak = (detection: Detection): boolean => detection.pattern?.endsWith('.weak') === true;
  return detections.filter(
    (weak) =>
      !isWeak(weak) ||
      !detections.some(
        (other) =>
          other.entity !== weak.entity && !isWeak(other) && other.start <= weak.start && other.end >= weak.end,
      ),
  );
}

/**
 * V8 compiles a regular expression lazily: to bytecode on its first run and to machine code on
 * the second. Running every pattern twice here moves those ~20 ms from the first checked request
 * to module load.
 */
function warmUp(): void {
  const sample = 'How to make a pipe bomb, step by step; I want to kill myself; according to the news.';
  for (let run = 0; run < 2; run += 1) detectSafety(sample, { surface: 'input', settings: { pii_packs: [] } });
}
warmUp();

export const safetyLexicon: Detector = {
  key: 'safety.lexicon',
  surfaces: ['input', 'output', 'retrieved', 'tool_result', 'completion'],
  entityTypes: CATEGORIES.map((category) => category.entity),
  costRank: 1,
  available: () => ({ available: true }),
  detect: detectSafety,
};
