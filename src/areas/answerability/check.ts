// The answerability check: is a question inside an agent's boundary? Pure and deterministic (the
// route and the input detector both call it); no I/O, time linear in the question's length.
// The rules are documented in README.md "How a question is checked".

export const REASON_CODES = ['outside_coverage_dates', 'entity_type_not_covered', 'out_of_scope_topic', 'source_stale', 'no_boundary'] as const;
export type ReasonCode = (typeof REASON_CODES)[number];
export const OUTCOMES = ['answerable', 'not_answerable', 'partial'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const BOUNDARY_MODES = ['observe', 'enforce'] as const;
export type BoundaryMode = (typeof BOUNDARY_MODES)[number];

export interface Boundary {
  agent: string;
  systems_of_record: string[];
  coverage_months: number | null;
  coverage_start: string | null;
  entity_types: string[];
  answerable_types: string[];
  out_of_scope_topics: string[];
  freshness_hours: number | null;
  mode: BoundaryMode;
  updated_by: string;
  updated_at: string;
}

/** What the source registry says of a system of record; undefined: not registered. */
export interface SourceFreshness {
  updated_at_source: string | null;
  freshness_sla_hours: number | null;
  deprecated: boolean;
}

export interface Reason {
  code: ReasonCode;
  detail: string;
}

export interface CheckInput {
  question: string;
  /** Types of the entities the question is about (already resolved by the caller). */
  knownEntityTypes: readonly string[];
  boundary: Boundary | null;
  sources: ReadonlyMap<string, SourceFreshness>;
  now: Date;
}

export interface CheckResult {
  outcome: Outcome;
  reasons: Reason[];
  /** Where in the question the first out-of-bounds part is (offsets); null when none is in the text. */
  span: { start: number; end: number } | null;
}

/** At most this many reasons of one code: a pasted document must not yield thousands. */
const MAX_REASONS_PER_CODE = 10;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

export function checkQuestion(input: CheckInput): CheckResult {
  const { boundary, question, now } = input;
  if (boundary === null) {
    return { outcome: 'answerable', reasons: [{ code: 'no_boundary', detail: 'the agent has no answerability boundary: nothing is checked' }], span: null };
  }
  const clauses = clausesOf(question);
  // Reasons found in the text carry the clause they came from; the others concern the whole question.
  const found: Array<Reason & { clause: number | null; start: number; end: number }> = [];
  const add = (code: ReasonCode, detail: string, at: { start: number; end: number } | null) => {
    if (found.filter((reason) => reason.code === code).length >= MAX_REASONS_PER_CODE) return;
    if (found.some((reason) => reason.code === code && reason.detail === detail)) return;
    found.push({ code, detail, clause: at === null ? null : clauseAt(clauses, at.start), start: at?.start ?? 0, end: at?.end ?? question.length });
  };

  const window = coverageWindow(boundary, now);
  if (window !== null) {
    for (const mention of dateMentions(question, now)) {
      const end = mention.from < now.getTime() ? Math.min(mention.to, now.getTime()) : mention.to;
      if (mention.from < window.from || end > window.to) {
        add(
          'outside_coverage_dates',
          `"${mention.text}" (${day(mention.from)} to ${day(mention.to)}) is outside the coverage ${day(window.from)} to ${day(window.to)}`,
          { start: mention.start, end: mention.end },
        );
      }
    }
  }

  for (const topic of topicMatches(question, boundary.out_of_scope_topics)) {
    add('out_of_scope_topic', `"${topic.phrase}" is out of scope for this agent`, topic);
  }

  if (boundary.entity_types.length > 0) {
    const covered = new Set(boundary.entity_types.map(normalType));
    for (const type of input.knownEntityTypes) {
      if (!covered.has(normalType(type))) {
        add('entity_type_not_covered', `entity type "${type}" is not among the covered types (${boundary.entity_types.join(', ')})`, null);
      }
    }
  }

  for (const key of boundary.systems_of_record) {
    const stale = staleness(key, input.sources.get(key), boundary.freshness_hours, now);
    if (stale !== null) add('source_stale', stale, null);
  }

  const reasons = found.map(({ code, detail }) => ({ code, detail }));
  const hard = found.filter((reason) => reason.code !== 'source_stale');
  const firstInText = found.find((reason) => reason.clause !== null);
  const span = firstInText === undefined ? null : { start: firstInText.start, end: firstInText.end };
  if (hard.length === 0) return { outcome: found.length === 0 ? 'answerable' : 'partial', reasons, span };
  // Partial: every hard reason sits in a clause of the text and another clause asks something inside.
  const outClauses = new Set(hard.map((reason) => reason.clause));
  const clauseBound = !outClauses.has(null);
  const coveredClause = clauses.some((clause, index) => !outClauses.has(index) && asksSomething(question, clause));
  return { outcome: clauseBound && coveredClause ? 'partial' : 'not_answerable', reasons, span };
}

/** The reasons as one sentence (a detection's explanation, the refusal's why). */
export function describeReasons(reasons: readonly Reason[]): string {
  return reasons.map((reason) => `${reason.code}: ${reason.detail}`).join('; ');
}

// --- coverage window ---

export function coverageWindow(boundary: Pick<Boundary, 'coverage_start' | 'coverage_months'>, now: Date): { from: number; to: number } | null {
  const { coverage_start: start, coverage_months: months } = boundary;
  if (start !== null) {
    const from = Date.parse(`${start}T00:00:00Z`);
    return { from, to: months === null ? now.getTime() : addMonthsUtc(from, months) };
  }
  if (months !== null) return { from: addMonthsUtc(now.getTime(), -months), to: now.getTime() };
  return null;
}

/** `months` calendar months from `at` (UTC); a day the month lacks becomes its last day. */
function addMonthsUtc(at: number, months: number): number {
  const date = new Date(at);
  const dayOfMonth = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + months);
  const last = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(dayOfMonth, last));
  return date.getTime();
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A calendar date `YYYY-MM-DD` that exists (not 2023-02-30). */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (match === null) return false;
  const [year, month, dayOfMonth] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, dayOfMonth));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === dayOfMonth;
}

// --- dates in the question ---

export interface DateMention {
  text: string;
  start: number;
  end: number;
  /** The period it names, epoch milliseconds, end exclusive. */
  from: number;
  to: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

// One pass of one regular expression with fixed, bounded alternatives (no nested or overlapping
// quantifiers), so the scan is linear in the text. Order matters: an ISO date or "March 2023" is
// taken whole before its year could match on its own.
const DATE_PATTERN =
  /\b(?:(?<isoY>\d{4})-(?<isoM>\d{2})(?:-(?<isoD>\d{2}))?|q(?<qN>[1-4])\s?(?<qY>\d{4})|(?<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?,?[ \t]{1,3}(?:of[ \t]{1,3})?(?<monY>\d{4})|(?<relWhich>last|past|previous|this|current)[ \t]{1,3}(?:(?<relN>\d{1,4})[ \t]{1,3})?(?<relUnit>days?|weeks?|months?|quarters?|years?)|(?<dayWord>today|yesterday)|(?<year>(?:19|20)\d{2}))\b/giu;

export function dateMentions(text: string, now: Date): DateMention[] {
  const mentions: DateMention[] = [];
  for (const match of text.matchAll(DATE_PATTERN)) {
    const groups = match.groups ?? {};
    const period = periodOf(groups, now);
    if (period === null) continue;
    mentions.push({ text: match[0], start: match.index, end: match.index + match[0].length, ...period });
  }
  return mentions;
}

function periodOf(groups: Record<string, string | undefined>, now: Date): { from: number; to: number } | null {
  const utc = (year: number, month: number, dayOfMonth = 1) => Date.UTC(year, month, dayOfMonth);
  if (groups.isoY !== undefined) {
    const year = Number(groups.isoY);
    const month = Number(groups.isoM) - 1;
    if (month < 0 || month > 11) return null;
    if (groups.isoD === undefined) return { from: utc(year, month), to: utc(year, month + 1) };
    if (!isCalendarDate(`${groups.isoY}-${groups.isoM}-${groups.isoD}`)) return null;
    const from = utc(year, month, Number(groups.isoD));
    return { from, to: from + DAY_MS };
  }
  if (groups.qN !== undefined) {
    const first = (Number(groups.qN) - 1) * 3;
    return { from: utc(Number(groups.qY), first), to: utc(Number(groups.qY), first + 3) };
  }
  if (groups.mon !== undefined) {
    const month = MONTHS.indexOf(groups.mon.slice(0, 3).toLowerCase());
    return { from: utc(Number(groups.monY), month), to: utc(Number(groups.monY), month + 1) };
  }
  const today = utc(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (groups.dayWord !== undefined) {
    return groups.dayWord.toLowerCase() === 'today' ? { from: today, to: now.getTime() } : { from: today - DAY_MS, to: today };
  }
  if (groups.relWhich !== undefined && groups.relUnit !== undefined) {
    const which = groups.relWhich.toLowerCase();
    const unit = groups.relUnit.toLowerCase().replace(/s$/, '');
    const count = groups.relN === undefined ? null : Number(groups.relN);
    const nowMs = now.getTime();
    if (count !== null || which === 'past') {
      // "last 3 months", "past week": a rolling period ending now.
      return { from: rollBack(nowMs, unit, count ?? 1), to: nowMs };
    }
    const current = calendarStart(now, unit);
    if (which === 'this' || which === 'current') return { from: current, to: nowMs };
    // "last month", "previous year": the calendar period before the current one.
    return { from: calendarStart(new Date(current - 1), unit), to: current };
  }
  if (groups.year !== undefined) {
    const year = Number(groups.year);
    return { from: utc(year, 0), to: utc(year + 1, 0) };
  }
  return null;
}

function rollBack(nowMs: number, unit: string, count: number): number {
  switch (unit) {
    case 'day':
      return nowMs - count * DAY_MS;
    case 'week':
      return nowMs - count * 7 * DAY_MS;
    case 'month':
      return addMonthsUtc(nowMs, -count);
    case 'quarter':
      return addMonthsUtc(nowMs, -3 * count);
    default:
      return addMonthsUtc(nowMs, -12 * count);
  }
}

/** The start of the calendar day, week (Monday), month, quarter or year that holds `at` (UTC). */
function calendarStart(at: Date, unit: string): number {
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  const today = Date.UTC(year, month, at.getUTCDate());
  switch (unit) {
    case 'day':
      return today;
    case 'week':
      return today - ((at.getUTCDay() + 6) % 7) * DAY_MS;
    case 'month':
      return Date.UTC(year, month, 1);
    case 'quarter':
      return Date.UTC(year, month - (month % 3), 1);
    default:
      return Date.UTC(year, 0, 1);
  }
}

// --- clauses and topics ---

interface Clause {
  start: number;
  end: number;
}

/** Holds a letter or digit: an empty piece between two question marks asks nothing. */
const asksSomething = (text: string, clause: Clause) => /[\p{L}\p{N}]/u.test(text.slice(clause.start, clause.end));

/** The question cut at ? ! ; line breaks and full stops that end a sentence (". " and a capital: not "Sept. 2021"). */
function clausesOf(text: string): Clause[] {
  const clauses: Clause[] = [];
  const cuts = /[?!;\n]|\.(?=\s{1,3}\p{Lu})/gu;
  let start = 0;
  const push = (end: number) => clauses.push({ start, end });
  for (const cut of text.matchAll(cuts)) {
    push(cut.index);
    start = cut.index + 1;
  }
  push(text.length);
  return clauses;
}

function clauseAt(clauses: readonly Clause[], offset: number): number {
  // Binary search: clauses are in order and cover the text.
  let low = 0;
  let high = clauses.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((clauses[middle] as Clause).start <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

interface Word {
  word: string;
  start: number;
  end: number;
}

function wordsOf(text: string): Word[] {
  const words: Word[] = [];
  for (const match of text.matchAll(/[\p{L}\p{N}]+/gu)) words.push({ word: match[0].toLowerCase(), start: match.index, end: match.index + match[0].length });
  return words;
}

interface PhraseNode {
  next: Map<string, PhraseNode>;
  /** The phrase that ends at this word, when one does. */
  phrase?: string;
}

/**
 * Out-of-scope phrases found as whole words, case-insensitive, any punctuation or spacing between
 * their words. The phrases form a trie of words; from each word of the question the walk goes at
 * most as deep as the longest phrase, however many phrases share a first word.
 */
export function topicMatches(text: string, phrases: readonly string[]): Array<{ phrase: string; start: number; end: number }> {
  const root: PhraseNode = { next: new Map() };
  for (const phrase of phrases) {
    const words = wordsOf(phrase);
    if (words.length === 0) continue;
    let node = root;
    for (const { word } of words) {
      let child = node.next.get(word);
      if (child === undefined) {
        child = { next: new Map() };
        node.next.set(word, child);
      }
      node = child;
    }
    node.phrase ??= phrase;
  }
  if (root.next.size === 0) return [];
  const words = wordsOf(text);
  const matched = new Map<string, { phrase: string; start: number; end: number }>();
  for (let index = 0; index < words.length; index++) {
    let node: PhraseNode | undefined = root;
    for (let at = index; at < words.length; at++) {
      node = node.next.get((words[at] as Word).word);
      if (node === undefined) break;
      if (node.phrase !== undefined && !matched.has(node.phrase)) {
        matched.set(node.phrase, { phrase: node.phrase, start: (words[index] as Word).start, end: (words[at] as Word).end });
      }
    }
  }
  return [...matched.values()];
}

const normalType = (type: string) => type.trim().toLowerCase();

// --- freshness of the systems of record ---

/** Why a system of record is stale, or null when it is fresh enough (or no freshness limit applies). */
function staleness(key: string, source: SourceFreshness | undefined, freshnessHours: number | null, now: Date): string | null {
  if (source === undefined) {
    return freshnessHours === null ? null : `system of record "${key}" is not in the source registry: its freshness is unknown`;
  }
  if (source.deprecated) return `system of record "${key}" is deprecated in the source registry`;
  const limit = freshnessHours ?? source.freshness_sla_hours;
  if (limit === null) return null;
  const updated = source.updated_at_source === null ? Number.NaN : Date.parse(source.updated_at_source);
  if (Number.isNaN(updated)) return `system of record "${key}" has no known update time (freshness limit ${limit} h)`;
  const ageHours = (now.getTime() - updated) / HOUR_MS;
  if (ageHours <= limit) return null;
  return `system of record "${key}" was last updated ${source.updated_at_source} (${Math.floor(ageHours)} h ago), past the freshness limit of ${limit} h`;
}
