// The `pii.native` detector: runs the pattern packs of ./packs.ts over a text, validates each
// candidate, scores it by context words and removes overlaps. Hot path: no I/O here; every regex
// is linear-time, and patterns that need a context word only scan the text around such words.
import { LiteralAutomaton, type LiteralEntry } from '../literals/automaton.js';
import { minimumDigits } from '../literals/required.js';
import { SURFACES, type DetectContext, type Detection, type Detector } from '../types.js';
import { DEFAULT_PACKS, PII_PATTERNS, type PiiPattern, type Verdict } from './packs.js';

const DEFAULT_CONTEXT_BEFORE = 48;
const DEFAULT_CONTEXT_AFTER = 20;
/** Longest value a context-only pattern reports (a spelled-out date); sizes the context windows. */
const MAX_VALUE_LENGTH = 40;

/** A pattern with its context-word regexes compiled once at load time. */
interface CompiledPattern {
  pattern: PiiPattern;
  context?: RegExp;
  /** `context` with the `g` flag, for finding every context word. */
  contextAll?: RegExp;
  negative?: RegExp;
  /** A text with fewer ASCII digits cannot hold a match. */
  minDigits: number;
  /** Owner id of the context words in CONTEXT_GATE, or -1 when they cannot be gated. */
  contextOwner: number;
}

function escapeRegex(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * One case-insensitive regex matching any of the words as a whole word. Letters and digits on either
 * side break the match, so "tin" does not fire inside "routine" nor "ni" inside "nice". Spaces inside
 * a phrase accept one whitespace, "-" or "_" ("date-of-birth", "date\nof birth").
 */
function wordRegex(words: readonly string[] | undefined): RegExp | undefined {
  if (words === undefined || words.length === 0) return undefined;
  const alternatives = [...words]
    .sort((a, b) => b.length - a.length)
    .map((word) => escapeRegex(word).replace(/ /g, '[\\s_-]'));
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'iu');
}

const contextEntries: LiteralEntry[] = [];
const COMPILED: readonly CompiledPattern[] = PII_PATTERNS.map((pattern, index) => {
  const context = wordRegex(pattern.contextWords);
  // Patterns that report only next to a context word need one: the automaton, run over the
  // lower-cased text, says whether any word's first token is there ("date" of "date of birth").
  const literals =
    pattern.baseScore === 0 && pattern.contextWords !== undefined && pattern.contextWords.length > 0
      ? pattern.contextWords.map((word) => word.toLowerCase().split(' ')[0]!)
      : undefined;
  for (const literal of literals ?? []) contextEntries.push({ literal, owner: index });
  return {
    pattern,
    context,
    contextAll: context === undefined ? undefined : new RegExp(context.source, `${context.flags}g`),
    negative: wordRegex(pattern.negativeWords),
    minDigits: minimumDigits(pattern.regex),
    contextOwner: literals === undefined ? -1 : index,
  };
});
const CONTEXT_GATE = new LiteralAutomaton(contextEntries);

function countDigits(text: string): number {
  let digits = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) digits += 1;
  }
  return digits;
}

export const PII_ENTITY_TYPES: readonly string[] = [...new Set(PII_PATTERNS.map((pattern) => pattern.entity))];

interface Candidate extends Detection {
  precedence: number;
}

/**
 * The context word found around [start, end), if any. With `adjacent`, a word is ignored when digits
 * stand between it and the value: in "born in 1990, moved on 12/03/2015" the later date is not the
 * birth date.
 */
function findWord(
  word: RegExp | undefined,
  text: string,
  start: number,
  end: number,
  before: number,
  after: number,
  adjacent = false,
): string | undefined {
  if (word === undefined) return undefined;
  const windowStart = Math.max(0, start - before);
  const ahead = word.exec(text.slice(windowStart, start));
  if (ahead !== null) {
    if (!adjacent) return ahead[0];
    // The nearest occurrence decides; windows are short, so scanning them all is cheap.
    const all = new RegExp(word.source, `${word.flags}g`);
    let nearestEnd = -1;
    let nearestWord = '';
    const window = text.slice(windowStart, start);
    for (let hit = all.exec(window); hit !== null; hit = all.exec(window)) {
      nearestEnd = hit.index + hit[0].length;
      nearestWord = hit[0];
    }
    if (!/\d/.test(window.slice(nearestEnd))) return nearestWord;
  }
  if (after <= 0) return undefined;
  const following = text.slice(end, end + after);
  const behind = word.exec(following);
  if (behind === null || (adjacent && /\d/.test(following.slice(0, behind.index)))) return undefined;
  return behind[0];
}

/**
 * Merged [start, end) ranges around every context word where a value could sit: a value up to
 * `before` characters after the word or `after` characters before it (plus its own length).
 */
function contextWindows(global: RegExp, text: string, before: number, after: number): Array<readonly [number, number]> {
  global.lastIndex = 0;
  const windows: Array<[number, number]> = [];
  for (let hit = global.exec(text); hit !== null; hit = global.exec(text)) {
    const start = Math.max(0, hit.index - after - MAX_VALUE_LENGTH);
    const end = Math.min(text.length, hit.index + hit[0].length + before);
    const last = windows[windows.length - 1];
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else windows.push([start, end]);
  }
  return windows;
}

const DEFAULT_PACK_SET: ReadonlySet<string> = new Set(DEFAULT_PACKS);
/** The configured pack list is the same array on every call: its set is built once. */
const packSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function packsInUse(context: DetectContext | undefined): ReadonlySet<string> {
  const configured = context?.settings?.pii_packs;
  if (configured === undefined) return DEFAULT_PACK_SET;
  let packs = packSets.get(configured);
  if (packs === undefined) {
    packs = new Set(configured.map((pack) => pack.toLowerCase()));
    packSets.set(configured, packs);
  }
  return packs;
}

function runPattern(compiled: CompiledPattern, text: string, deadline: number | undefined, out: Candidate[]): void {
  const { pattern, contextAll } = compiled;
  if (pattern.requires !== undefined && !pattern.requires.some((needle) => text.includes(needle))) return;
  const before = pattern.contextBefore ?? DEFAULT_CONTEXT_BEFORE;
  const after = pattern.contextAfter ?? DEFAULT_CONTEXT_AFTER;
  // A pattern that only reports with a context word need only look near the context words.
  const windows = pattern.baseScore === 0 && contextAll !== undefined ? contextWindows(contextAll, text, before, after) : [[0, text.length] as const];
  // Detection is synchronous, so the shared compiled regex can be reset and reused.
  const regex = pattern.regex;
  regex.lastIndex = 0;
  let seen = 0;
  for (const [windowStart, windowEnd] of windows) {
    regex.lastIndex = Math.max(windowStart, regex.lastIndex);
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      if (match.index >= windowEnd) {
        // This match belongs to a later window (or none): let that window find it again.
        regex.lastIndex = match.index;
        break;
      }
      seen += 1;
      if (deadline !== undefined && (seen & 1023) === 0 && Date.now() > deadline) return;
      considerMatch(compiled, match, text, regex, out);
    }
  }
}

/** Validates one regex match, scores it by context and adds it to `out`. */
function considerMatch(compiled: CompiledPattern, match: RegExpExecArray, text: string, regex: RegExp, out: Candidate[]): void {
  const { pattern, context, negative } = compiled;
  const verdict: Verdict = pattern.validate === undefined ? { ok: true, check: 'format only' } : pattern.validate(match, text);
  if (!verdict.ok) return;
  const start = verdict.start ?? match.index;
  const end = verdict.end ?? match.index + match[0].length;
  // The validator may have cut the match short (an IBAN's length, a phone inside a longer run):
  // resume scanning where the value ended so a value right behind it is not skipped.
  if (end < regex.lastIndex && end > match.index) regex.lastIndex = end;

  const before = pattern.contextBefore ?? DEFAULT_CONTEXT_BEFORE;
  const after = pattern.contextAfter ?? DEFAULT_CONTEXT_AFTER;
  const contextWord = findWord(context, text, start, end, before, after, pattern.contextAdjacent === true);
  if (contextWord === undefined && findWord(negative, text, start, end, before, 0) !== undefined) return;
  const score = contextWord === undefined ? (verdict.baseScore ?? pattern.baseScore) : (verdict.contextScore ?? pattern.contextScore);
  if (score <= 0) return;
  const contextNote = contextWord === undefined ? 'no context word' : `context word "${contextWord.toLowerCase()}" nearby`;
  out.push({
    entity: pattern.entity,
    score,
    start,
    end,
    explanation: `${pattern.entity} from pattern ${pattern.name} (${pattern.pack} pack); ${verdict.check}; ${contextNote}.`,
    pattern: pattern.name,
    validator: verdict.check,
    precedence: pattern.precedence,
  });
}

/**
 * Keeps the best of overlapping detections: higher score, then the more specific type, then the
 * longer span. An IBAN's digits are therefore not also a phone number, nor a card a phone.
 */
export function removeOverlaps<T extends Detection & { precedence: number }>(candidates: readonly T[], textLength: number): T[] {
  if (candidates.length < 2) return [...candidates];
  const ranked = [...candidates].sort(
    (a, b) => b.score - a.score || a.precedence - b.precedence || b.end - b.start - (a.end - a.start) || a.start - b.start,
  );
  // One flag per character: total work is the summed span length, linear in the text.
  const claimed = new Uint8Array(textLength);
  const kept: T[] = [];
  for (const candidate of ranked) {
    let free = true;
    for (let i = candidate.start; i < candidate.end && free; i += 1) if (claimed[i] === 1) free = false;
    if (!free) continue;
    claimed.fill(1, candidate.start, candidate.end);
    kept.push(candidate);
  }
  return kept.sort((a, b) => a.start - b.start);
}

export function detectPii(text: string, context?: DetectContext): Detection[] {
  if (text.length === 0) return [];
  const packs = packsInUse(context);
  const deadline = context?.deadline;
  const candidates: Candidate[] = [];
  const digits = countDigits(text);
  const contextPresent = CONTEXT_GATE.scan(text.toLowerCase());
  for (const compiled of COMPILED) {
    if (!packs.has(compiled.pattern.pack) || digits < compiled.minDigits) continue;
    if (compiled.contextOwner >= 0 && contextPresent[compiled.contextOwner] !== 1) continue;
    if (deadline !== undefined && Date.now() > deadline) break;
    runPattern(compiled, text, deadline, candidates);
  }
  return removeOverlaps(candidates, text.length).map(({ precedence: _precedence, ...detection }) => detection);
}

export const piiNative: Detector = {
  key: 'pii.native',
  surfaces: SURFACES,
  entityTypes: PII_ENTITY_TYPES,
  costRank: 2,
  available: () => ({ available: true }),
  detect: (text, context) => detectPii(text, context),
};
