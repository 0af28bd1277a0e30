// Hot path: no I/O here. integrity.answer: an answer (surface `output`) checked against the
// evidence supplied with the call — the grounded record, the retrieved chunks and their sources'
// tiers (see README.md for what it can and cannot see). Deterministic: it compares the value the
// answer asserts right after a label with the value the evidence holds for that label; it does
// not understand paraphrase, so a contradiction it reports is a literal one.
import type { Detection, DetectContext, Detector } from '../types.js';
import { derive, readEvidence, type Evidence, type Tier } from './evidence.js';
import { assertionAfter, isNumeric, labelWords, normalizeValue, sameValue, tokenize, type Token } from './tokens.js';

export const INTEGRITY_ENTITIES = {
  sycophancy: 'INTEGRITY.SYCOPHANCY',
  contradiction: 'INTEGRITY.CONTEXT_CONTRADICTION',
  citation: 'INTEGRITY.FABRICATED_CITATION',
  conflict: 'INTEGRITY.SOURCE_CONFLICT',
  authority: 'INTEGRITY.SOURCE_AUTHORITY',
} as const;

/** Tokens read from the answer and from all chunks together: bounds the work on a 1 MB answer. */
const MAX_ANSWER_TOKENS = 400_000;
const MAX_CHUNK_TOKENS = 400_000;
const MAX_LABEL_WORDS = 6;
/** Detections per check: enough to show a pattern, few enough that one check cannot crowd out another. */
const MAX_PER_CHECK = 20;

/** Words after which a short value follows in a chunk: `X is 30`, `X: 30`, `X = 30`. */
const CHUNK_JOINS = new Set(['is', 'are', 'was', 'were']);
/** A word value this short list begins is no value (`the status is with the bank`). */
const NOT_VALUES = new Set([
  'and', 'or', 'in', 'with', 'by', 'from', 'what', 'which', 'who', 'how', 'it', 'there', 'very', 'also', 'so', 'if', 'because',
  'but', 'you', 'we', 'i', 'they', 'he', 'she', 'correct', 'right', 'wrong', 'available', 'unknown', 'shown', 'below', 'above',
]);
/** Phrases with which an answer takes up what the user said: a wrong value after them is a premise adopted. */
const AGREEMENT = /\b(?:you(?:'re| are) (?:right|correct)|that(?:'s| is) (?:right|correct)|as you (?:said|mentioned|noted|stated)|you(?:'re| are) absolutely|good catch|indeed|yes,)/giu;

const RANK: Record<Tier, number> = { system_of_record: 0, approved: 1, unverified: 2, external: 3 };

interface ChunkFact {
  value: string;
  source: string;
  tier: Tier | null;
}

function detect(text: string, context: DetectContext): Detection[] {
  const evidence = readEvidence(context.evidence);
  if (evidence === null) return [];
  const found: Detection[] = [];
  const tokens = tokenize(text, MAX_ANSWER_TOKENS);
  checkRecord(text, tokens, evidence, found);
  checkChunkFacts(tokens, evidence, found);
  checkCitations(text, evidence, found);
  return found;
}

/** Labels indexed by their first word, longest first, so one pass over the answer finds them all. */
function indexLabels<T>(labels: Iterable<[string[], T]>): Map<string, Array<{ words: string[]; item: T }>> {
  const index = new Map<string, Array<{ words: string[]; item: T }>>();
  for (const [words, item] of labels) {
    if (words.length === 0 || words.length > MAX_LABEL_WORDS) continue;
    const first = words[0] as string;
    const list = index.get(first) ?? [];
    list.push({ words, item });
    index.set(first, list);
  }
  for (const list of index.values()) list.sort((a, b) => b.words.length - a.words.length);
  return index;
}

/** Each place the answer names a label: the token index and the label's item. */
function* labelHits<T>(tokens: readonly Token[], index: Map<string, Array<{ words: string[]; item: T }>>): Generator<{ at: number; length: number; item: T }> {
  for (let at = 0; at < tokens.length; at += 1) {
    const token = tokens[at] as Token;
    if (token.kind !== 'word') continue;
    const candidates = index.get(token.value);
    if (candidates === undefined) continue;
    const match = candidates.find(({ words }) => words.every((word, offset) => tokens[at + offset]?.value === word));
    if (match === undefined) continue;
    yield { at, length: match.words.length, item: match.item };
    at += match.words.length - 1;
  }
}

function checkRecord(text: string, tokens: readonly Token[], evidence: Evidence, found: Detection[]): void {
  if (evidence.facts.size === 0) return;
  const index = derive(evidence, 'integrity.record', () =>
    indexLabels([...evidence.facts].map(([key, value]) => [labelWords(key), { key, expected: normalizeValue(value), raw: value }] as [string[], { key: string; expected: string[]; raw: string }])),
  );
  const questionValues = derive(evidence, 'integrity.question', () => new Set(tokenize(evidence.question, 20_000).map((token) => token.value)));
  const agreements = [...text.slice(0, 1_000_000).matchAll(AGREEMENT)].map((match) => match.index);
  let count = 0;
  for (const hit of labelHits(tokens, index)) {
    if (count >= MAX_PER_CHECK) return;
    const { key, expected, raw } = hit.item;
    if (expected.length === 0) continue;
    const numeric = isNumeric(expected);
    const assertion = assertionAfter(tokens, hit.at, hit.length, expected.length, numeric);
    if (assertion === null || assertion.values.length === 0) continue;
    const first = assertion.values[0] as Token;
    if (!numeric && (first.kind !== 'word' || NOT_VALUES.has(first.value))) continue;
    const same = sameValue(assertion.values, expected);
    if (same !== assertion.negated) continue;
    const start = (tokens[hit.at] as Token).start;
    const end = (assertion.values[assertion.values.length - 1] as Token).end;
    const said = text.slice(first.start, end);
    count += 1;
    const adopted = assertion.values.every((token) => questionValues.has(token.value)) || agreements.some((at) => at <= start && start - at <= 300);
    found.push({
      entity: adopted ? INTEGRITY_ENTITIES.sycophancy : INTEGRITY_ENTITIES.contradiction,
      score: numeric ? 0.85 : 0.7,
      start,
      end,
      pattern: `record.${key}`,
      explanation: adopted
        ? `The answer takes up the user's premise that ${key} is ${assertion.negated ? 'not ' : ''}"${said}", but the grounded record says "${raw}".`
        : `The answer says ${key} is ${assertion.negated ? 'not ' : ''}"${said}", but the grounded record says "${raw}".`,
    });
  }
}

/** Numeric facts the chunks state (`the refund window is 30 days`), by label. */
function chunkFacts(evidence: Evidence): Map<string, ChunkFact[]> {
  const facts = new Map<string, ChunkFact[]>();
  let budget = MAX_CHUNK_TOKENS;
  for (const chunk of evidence.chunks) {
    if (budget <= 0) break;
    const tokens = tokenize(chunk.text, budget);
    budget -= tokens.length;
    const tier = evidence.tiers.get(chunk.source) ?? null;
    for (let at = 0; at < tokens.length; at += 1) {
      const token = tokens[at] as Token;
      if (!(token.kind === 'join' || (token.kind === 'word' && CHUNK_JOINS.has(token.value)))) continue;
      const words: string[] = [];
      for (let back = at - 1; back >= 0 && words.length < 3; back -= 1) {
        const before = tokens[back] as Token;
        if (before.kind !== 'word' || CHUNK_JOINS.has(before.value)) break;
        words.unshift(before.value);
      }
      if (words.length === 0) continue;
      const assertion = assertionAfter(tokens, at, 1, 1, true, 4);
      if (assertion === null || assertion.negated || assertion.values.length === 0) continue;
      const label = words.join(' ');
      const list = facts.get(label) ?? [];
      list.push({ value: canonical((assertion.values[0] as Token).value), source: chunk.source, tier });
      facts.set(label, list);
    }
  }
  return facts;
}

const canonical = (value: string): string => {
  const number = Number(value.replace(/%$/u, ''));
  return Number.isFinite(number) ? `${number}${value.endsWith('%') ? '%' : ''}` : value;
};

function checkChunkFacts(tokens: readonly Token[], evidence: Evidence, found: Detection[]): void {
  if (evidence.chunks.length < 2) return;
  const index = derive(evidence, 'integrity.disputed', () => {
    const disputed = [...chunkFacts(evidence)].filter(([, list]) => new Set(list.map((fact) => fact.value)).size > 1);
    return indexLabels(disputed.map(([label, list]) => [label.split(' '), { label, list }] as [string[], { label: string; list: ChunkFact[] }]));
  });
  if (index.size === 0) return;
  const reported = new Set<string>();
  for (const hit of labelHits(tokens, index)) {
    const { label, list } = hit.item;
    if (reported.has(label)) continue;
    const assertion = assertionAfter(tokens, hit.at, hit.length, 1, true);
    if (assertion === null || assertion.negated || assertion.values.length === 0) continue;
    const used = canonical((assertion.values[0] as Token).value);
    const start = (tokens[hit.at] as Token).start;
    const end = (assertion.values[0] as Token).end;
    const authoritative = list.filter((fact) => fact.tier === 'system_of_record');
    const authorityValues = new Set(authoritative.map((fact) => fact.value));
    const describe = (facts: readonly ChunkFact[]) => facts.map((fact) => `${fact.source}${fact.tier === null ? '' : ` (${fact.tier})`}: ${fact.value}`).join(', ');
    reported.add(label);
    if (authorityValues.size === 1) {
      if (authorityValues.has(used)) continue;
      const lower = list.filter((fact) => fact.value === used && fact.tier !== 'system_of_record');
      if (lower.length > 0) {
        const weakest = lower.reduce((a, b) => ((b.tier === null ? 4 : RANK[b.tier]) > (a.tier === null ? 4 : RANK[a.tier]) ? b : a));
        found.push({
          entity: INTEGRITY_ENTITIES.authority,
          score: 0.8,
          start,
          end,
          pattern: `chunks.${label}`,
          explanation: `The answer gives ${label} as ${used} from ${weakest.source}${weakest.tier === null ? '' : ` (${weakest.tier})`}, but the system of record ${authoritative[0]?.source ?? ''} says ${[...authorityValues][0] ?? ''}.`,
        });
        continue;
      }
    }
    found.push({
      entity: INTEGRITY_ENTITIES.conflict,
      score: 0.75,
      start,
      end,
      pattern: `chunks.${label}`,
      explanation: `The answer states ${label} (${used}), on which the supplied sources disagree: ${describe(list.slice(0, 6))}.`,
    });
  }
}

/**
 * integrity.evidence: the checks that need the whole answer at once, kept apart so that the
 * others can be scanned in pieces — evidence that could not be read (the integrity check could not
 * be completed), a required AI disclosure the answer does not make, and trajectory drift. O(evidence) and one
 * literal-alternation search.
 */
export const EVIDENCE_ENTITIES = {
  malformed: 'INTEGRITY.EVIDENCE_MALFORMED',
  aiMissing: 'DISCLOSURE.AI_MISSING',
  drift: 'INTEGRITY.TRAJECTORY_DRIFT',
} as const;

/**
 * Trajectory drift: an answer of at least DRIFT_MIN_WORDS distinct content words (four letters or
 * more) of which under DRIFT_MAX_SHARED appear anywhere in the question, the record or the chunks
 * has wandered off what it was asked and given. Lexical only: a faithful paraphrase in wholly other
 * words would be reported too, so it needs a question and some grounding to compare with.
 */
const DRIFT_MIN_WORDS = 20;
const DRIFT_MAX_SHARED = 0.15;
const DRIFT_TOKENS = 200_000;

function contentWords(text: string, into: Set<string>, limit = DRIFT_TOKENS): Set<string> {
  for (const token of tokenize(text, limit)) if (token.kind === 'word' && token.value.length >= 4) into.add(token.value);
  return into;
}

function driftOf(text: string, evidence: Evidence): Detection | null {
  if (evidence.question === '' || (evidence.facts.size === 0 && evidence.chunks.length === 0)) return null;
  const answer = contentWords(text, new Set());
  if (answer.size < DRIFT_MIN_WORDS) return null;
  const grounded = contentWords(evidence.question, new Set());
  for (const [key, value] of evidence.facts) contentWords(`${key} ${value}`, grounded);
  for (const chunk of evidence.chunks) contentWords(chunk.text, grounded);
  let shared = 0;
  for (const word of answer) if (grounded.has(word)) shared += 1;
  const ratio = shared / answer.size;
  if (ratio >= DRIFT_MAX_SHARED) return null;
  return {
    entity: EVIDENCE_ENTITIES.drift,
    score: 0.7,
    start: 0,
    end: 0,
    pattern: 'trajectory_drift',
    explanation: `The answer has drifted from the question and the evidence: ${shared} of its ${answer.size} content words appear in them (under ${Math.round(DRIFT_MAX_SHARED * 100)}%).`,
  };
}
const AI_SAID =
  /\b(?:AI|A\.I\.|artificial intelligence|automated (?:assistant|system|agent|service|response)|virtual (?:assistant|agent)|digital assistant|chat ?bot|bot|language model|not a (?:human|person)|an assistant powered by)\b/iu;

function detectWhole(text: string, context: DetectContext): Detection[] {
  const evidence = readEvidence(context.evidence);
  if (evidence === null) return [];
  const found: Detection[] = [];
  if (evidence.problems.length > 0) {
    found.push({
      entity: EVIDENCE_ENTITIES.malformed,
      score: 0.9,
      start: 0,
      end: 0,
      pattern: 'evidence_shape',
      explanation: `The evidence supplied with the call is malformed, so the answer could not be checked against it: ${evidence.problems.slice(0, 3).join('; ')}.`,
    });
  }
  if (evidence.requirements.aiDisclosure && !AI_SAID.test(text)) {
    found.push({
      entity: EVIDENCE_ENTITIES.aiMissing,
      score: 0.8,
      start: 0,
      end: 0,
      pattern: 'requirements.ai_disclosure',
      explanation: 'The call requires the answer to say it comes from an AI or automated assistant, and it does not.',
    });
  }
  const drift = driftOf(text, evidence);
  if (drift !== null) found.push(drift);
  return found;
}

export const integrityEvidence: Detector = {
  key: 'integrity.evidence',
  surfaces: ['output'],
  entityTypes: Object.values(EVIDENCE_ENTITIES),
  costRank: 2,
  // Whether the answer says it is an AI anywhere is a property of the whole answer, not of a piece.
  wholeText: true,
  available: () => ({ available: true }),
  detect: detectWhole,
};

const CITED_SOURCE = /\bsources?\s{0,3}:\s{0,3}([^)\]\n]{1,200})/giu;
const BRACKET = /\[([^[\]\n]{1,80})\](?!\()/gu;
const URL = /\bhttps?:\/\/[^\s<>"'()[\]]{1,2000}/giu;
const ACCORDING = /\baccording to ([^.,;:!?\n()[\]]{1,80})/giu;
const KEYLIKE = /^[\p{L}\p{N}]+[-_./:][\p{L}\p{N}\-_./:]*$/u;
const MAX_CITATIONS = 200;
const MAX_FABRICATED = 20;

const squash = (value: string): string => value.toLowerCase().replace(/[-_./:]+/gu, ' ').replace(/\s+/gu, ' ').trim();
const trimUrl = (url: string): string => url.replace(/[.,;:!?]+$/u, '');

function checkCitations(text: string, evidence: Evidence, found: Detection[]): void {
  if (evidence.chunks.length === 0 && evidence.tiers.size === 0) return;
  const { known, squashed, chunkUrls } = derive(evidence, 'integrity.cited', () => {
    const known = new Set<string>();
    for (const chunk of evidence.chunks) {
      known.add(chunk.source.toLowerCase());
      if (chunk.id !== null) known.add(chunk.id.toLowerCase());
    }
    for (const key of evidence.tiers.keys()) known.add(key.toLowerCase());
    const chunkUrls = new Set<string>();
    for (const chunk of evidence.chunks) for (const match of chunk.text.matchAll(URL)) chunkUrls.add(trimUrl(match[0]).toLowerCase());
    return { known, squashed: [...known].map(squash).filter((key) => key.length > 0), chunkUrls };
  });
  const isKnown = (cited: string): boolean => {
    const lower = cited.toLowerCase().trim();
    if (known.has(lower)) return true;
    const flat = squash(cited);
    return flat.length > 0 && squashed.some((key) => key === flat || (key.length >= 3 && flat.includes(key)) || (flat.length >= 3 && key.includes(flat)));
  };
  const reported = new Set<string>();
  let seen = 0;
  const fabricated = (cited: string, start: number, end: number, how: string) => {
    const key = cited.toLowerCase();
    if (reported.has(key) || reported.size >= MAX_FABRICATED) return;
    reported.add(key);
    found.push({
      entity: INTEGRITY_ENTITIES.citation,
      score: 0.85,
      start,
      end,
      pattern: how,
      explanation: `The answer cites "${cited.slice(0, 120)}", which is not among the sources supplied with the call (${evidence.chunks.length} chunks).`,
    });
  };
  const numbered = (list: string): string[] => list.split(/[,;–-]/u).map((part) => part.trim());
  for (const match of text.matchAll(BRACKET)) {
    if (++seen > MAX_CITATIONS) return;
    const inner = (match[1] as string).trim();
    const parts = numbered(inner);
    if (parts.every((part) => /^\d{1,6}$/u.test(part))) {
      for (const part of parts) {
        const n = Number(part);
        if (n < 1 || n > evidence.chunks.length) fabricated(`[${part}]`, match.index, match.index + match[0].length, 'citation.number');
      }
      continue;
    }
    const named = inner.replace(/^sources?\s{0,3}:\s{0,3}/iu, '');
    if (named !== inner) continue; // `[source: X]` is read by CITED_SOURCE below.
    if (KEYLIKE.test(named) && !/^https?:/iu.test(named) && !isKnown(named)) fabricated(named, match.index, match.index + match[0].length, 'citation.key');
  }
  for (const match of text.matchAll(CITED_SOURCE)) {
    if (++seen > MAX_CITATIONS) return;
    const start = match.index;
    // A list ends with its sentence: `Source: hr-handbook. The window is…`.
    const list = (match[1] as string).split(/\.\s/u)[0] as string;
    for (const raw of list.split(/[,;]|\band\b/u)) {
      const cited = raw.trim().replace(/[.]+$/u, '').replace(/^\[|\]$/gu, '');
      if (cited === '' || /^https?:/iu.test(cited)) continue;
      if (/^\d{1,6}$/u.test(cited)) {
        const n = Number(cited);
        if (n < 1 || n > evidence.chunks.length) fabricated(`[${cited}]`, start, start + match[0].length, 'citation.number');
        continue;
      }
      if (!isKnown(cited)) fabricated(cited, start, start + match[0].length, 'citation.source');
    }
  }
  for (const match of text.matchAll(URL)) {
    if (++seen > MAX_CITATIONS) return;
    const url = trimUrl(match[0]);
    const lower = url.toLowerCase();
    if (chunkUrls.has(lower) || known.has(lower) || [...known].some((key) => key.startsWith('http') && lower.startsWith(key))) continue;
    fabricated(url, match.index, match.index + url.length, 'citation.url');
  }
  for (const match of text.matchAll(ACCORDING)) {
    if (++seen > MAX_CITATIONS) return;
    const phrase = (match[1] as string).trim();
    const words = phrase
      .split(/\s+/u)
      .filter((word) => !['the', 'a', 'an'].includes(word.toLowerCase()))
      .slice(0, 6);
    // Only a named source is a citation: "according to the Smith Report", "according to hr-policy-7";
    // "according to your records" names none.
    const named = words.some((word) => /^\p{Lu}/u.test(word) || KEYLIKE.test(word));
    if (!named || isKnown(words.join(' '))) continue;
    fabricated(words.join(' '), match.index, match.index + match[0].length, 'citation.according_to');
  }
}

export const integrityAnswer: Detector = {
  key: 'integrity.answer',
  surfaces: ['output'],
  entityTypes: Object.values(INTEGRITY_ENTITIES),
  costRank: 6,
  available: () => ({ available: true }),
  detect,
};
