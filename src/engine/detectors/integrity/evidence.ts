// Hot path: no I/O here. Reads the evidence a guard call carries (its `context` array, handed to
// detectors as DetectContext.evidence) into one typed shape, and says what was malformed so that
// the integrity detector can report that its check could not be completed (integrity_error).
// The shapes are documented in this folder's README.

export const TIERS = ['system_of_record', 'approved', 'unverified', 'external'] as const;
export type Tier = (typeof TIERS)[number];

export interface Chunk {
  /** 1-based position among the call's chunks: what an answer's `[n]` refers to. */
  position: number;
  id: string | null;
  source: string;
  text: string;
  classes: string[];
}

export interface Requirements {
  aiDisclosure: boolean;
  register: 'formal' | 'plain' | null;
  /** False only when the call says commitments are allowed (`no_commitments: false`). */
  noCommitments: boolean;
}

export interface Evidence {
  /** The grounded record: scalar facts only (nested values are skipped, not malformed). */
  facts: Map<string, string>;
  chunks: Chunk[];
  /** Tiers by source key, from `sources` items. */
  tiers: Map<string, Tier>;
  /** Data classes the subject may not see (union of all `entitlements` items, minus nothing). */
  mayNotSee: Set<string>;
  hasEntitlements: boolean;
  requirements: Requirements;
  /** The user's question, when a `question` item carries it (premise checks). */
  question: string;
  /** What was malformed, one line each, capped. */
  problems: string[];
  /** What the checks derive from the evidence once per call (the runner may scan an answer in pieces). */
  derived: Map<string, unknown>;
}

export function derive<T>(evidence: Evidence, name: string, build: () => T): T {
  if (evidence.derived.has(name)) return evidence.derived.get(name) as T;
  const value = build();
  evidence.derived.set(name, value);
  return value;
}

export const MAX_CHUNKS = 1000;
export const MAX_CHUNK_CHARS = 32_768;
const MAX_FACTS = 500;
const MAX_PROBLEMS = 20;
const MAX_QUESTION_CHARS = 32_768;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** Parsed evidence per evidence array: the three detectors of a call share one parse. */
const parsed = new WeakMap<readonly unknown[], Evidence>();

export function readEvidence(items: readonly unknown[] | undefined): Evidence | null {
  if (items === undefined || items.length === 0) return null;
  const known = parsed.get(items);
  if (known !== undefined) return known;
  const evidence = parse(items);
  parsed.set(items, evidence);
  return evidence;
}

function parse(items: readonly unknown[]): Evidence {
  const evidence: Evidence = {
    facts: new Map(),
    chunks: [],
    tiers: new Map(),
    mayNotSee: new Set(),
    hasEntitlements: false,
    requirements: { aiDisclosure: false, register: null, noCommitments: true },
    question: '',
    problems: [],
    derived: new Map(),
  };
  const problem = (index: number, what: string) => {
    if (evidence.problems.length < MAX_PROBLEMS) evidence.problems.push(`context[${index}]: ${what}`);
  };
  items.forEach((item, index) => {
    if (!isObject(item) || typeof item.kind !== 'string') {
      problem(index, 'not an object with a string `kind`');
      return;
    }
    switch (item.kind) {
      case 'record':
        readRecord(item, evidence, (what) => problem(index, what));
        break;
      case 'chunk':
        readChunk(item, evidence, (what) => problem(index, what));
        break;
      case 'sources':
        readSources(item, evidence, (what) => problem(index, what));
        break;
      case 'entitlements':
        readEntitlements(item, evidence, (what) => problem(index, what));
        break;
      case 'requirements':
        readRequirements(item, evidence, (what) => problem(index, what));
        break;
      case 'question':
        if (typeof item.text !== 'string') problem(index, 'question without a string `text`');
        else evidence.question += `${item.text.slice(0, MAX_QUESTION_CHARS)}\n`;
        break;
      default:
        // Unknown kinds belong to other consumers of the context array.
        break;
    }
  });
  return evidence;
}

function readRecord(item: Record<string, unknown>, evidence: Evidence, problem: (what: string) => void): void {
  if (!isObject(item.facts)) {
    problem('record without an object `facts`');
    return;
  }
  for (const [key, value] of Object.entries(item.facts)) {
    if (evidence.facts.size >= MAX_FACTS) return;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') evidence.facts.set(key, String(value));
  }
}

function readChunk(item: Record<string, unknown>, evidence: Evidence, problem: (what: string) => void): void {
  if (typeof item.source !== 'string' || item.source === '' || typeof item.text !== 'string') {
    problem('chunk without a string `source` and `text`');
    return;
  }
  if (item.classes !== undefined && !isStringArray(item.classes)) {
    problem('chunk `classes` is not an array of strings');
    return;
  }
  if (item.id !== undefined && typeof item.id !== 'string') {
    problem('chunk `id` is not a string');
    return;
  }
  if (item.text.length > MAX_CHUNK_CHARS) {
    problem(`chunk text longer than ${MAX_CHUNK_CHARS} characters`);
    return;
  }
  if (evidence.chunks.length >= MAX_CHUNKS) {
    problem(`more than ${MAX_CHUNKS} chunks`);
    return;
  }
  evidence.chunks.push({
    position: evidence.chunks.length + 1,
    id: typeof item.id === 'string' ? item.id : null,
    source: item.source,
    text: item.text,
    classes: (item.classes as string[] | undefined)?.map((name) => name.toLowerCase()) ?? [],
  });
}

function readSources(item: Record<string, unknown>, evidence: Evidence, problem: (what: string) => void): void {
  if (!Array.isArray(item.items)) {
    problem('sources without an `items` array');
    return;
  }
  for (const entry of item.items.slice(0, MAX_CHUNKS)) {
    if (!isObject(entry) || typeof entry.key !== 'string' || !(TIERS as readonly unknown[]).includes(entry.tier)) {
      problem(`sources item is not {key, tier} with tier one of ${TIERS.join('|')}`);
      return;
    }
    evidence.tiers.set(entry.key, entry.tier as Tier);
  }
}

function readEntitlements(item: Record<string, unknown>, evidence: Evidence, problem: (what: string) => void): void {
  if ((item.may_see !== undefined && !isStringArray(item.may_see)) || !isStringArray(item.may_not_see)) {
    problem('entitlements without string arrays `may_not_see` (and optional `may_see`)');
    return;
  }
  evidence.hasEntitlements = true;
  for (const name of item.may_not_see) evidence.mayNotSee.add(name.toLowerCase());
}

function readRequirements(item: Record<string, unknown>, evidence: Evidence, problem: (what: string) => void): void {
  const { ai_disclosure: ai, register, no_commitments: noCommitments } = item;
  if (
    (ai !== undefined && typeof ai !== 'boolean') ||
    (noCommitments !== undefined && typeof noCommitments !== 'boolean') ||
    (register !== undefined && register !== 'formal' && register !== 'plain')
  ) {
    problem('requirements with `ai_disclosure`/`no_commitments` not booleans or `register` not formal|plain');
    return;
  }
  if (ai === true) evidence.requirements.aiDisclosure = true;
  if (register === 'formal' || register === 'plain') evidence.requirements.register = register;
  if (noCommitments === false) evidence.requirements.noCommitments = false;
}
