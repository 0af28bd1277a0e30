// Hot path: no I/O here. One linear tokenizer shared by the integrity and disclosure checks:
// words, numbers (amounts, dates, percentages) and the punctuation that ends a sentence or joins a
// label to its value. Every pattern is a single character class with one quantifier, so a match
// never backtracks over more than its own run.

export type TokenKind = 'word' | 'number' | 'join' | 'stop';

export interface Token {
  kind: TokenKind;
  /** Lower-cased; numbers without currency signs and thousands separators. */
  value: string;
  start: number;
  end: number;
}

const TOKEN = /[$€£]?\d[\d,./-]*%?|\p{L}[\p{L}\p{N}'’_-]*|[:=]|[.!?;\n]/gu;

/** Words that carry no meaning in a label or between a label and its value. */
const ARTICLES = new Set(['the', 'a', 'an', 'our', 'your', 'its', 'their', 'his', 'her', 'my', 'this', 'that']);

export function tokenize(text: string, limit = Number.POSITIVE_INFINITY): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(TOKEN)) {
    if (tokens.length >= limit) break;
    const raw = match[0];
    const start = match.index;
    const first = raw.charCodeAt(0);
    if (raw === ':' || raw === '=') tokens.push({ kind: 'join', value: raw, start, end: start + 1 });
    else if (raw.length === 1 && '.!?;\n'.includes(raw)) tokens.push({ kind: 'stop', value: raw, start, end: start + 1 });
    else if ((first >= 48 && first <= 57) || raw.startsWith('$') || raw.startsWith('€') || raw.startsWith('£')) {
      // A number's trailing separator is the sentence's, not the number's.
      const trimmed = raw.replace(/[,./-]+$/u, '');
      tokens.push({ kind: 'number', value: normalizeNumber(trimmed), start, end: start + trimmed.length });
      if (trimmed.length < raw.length && raw[trimmed.length] === '.' && !/%$/u.test(raw)) {
        tokens.push({ kind: 'stop', value: '.', start: start + trimmed.length, end: start + trimmed.length + 1 });
      }
    } else {
      const word = raw.toLowerCase();
      if (!ARTICLES.has(word)) tokens.push({ kind: 'word', value: word, start, end: start + raw.length });
    }
  }
  return tokens;
}

export function normalizeNumber(raw: string): string {
  let value = raw.replace(/^[$€£]/u, '');
  // 1,200 → 1200, but keep dates (2024-03-01, 03/01/2024) as written.
  if (/^\d{1,3}(?:,\d{3})+(?:\.\d+)?%?$/u.test(value)) value = value.replaceAll(',', '');
  if (/^\d+\.\d+$/u.test(value)) value = String(Number(value));
  return value;
}

/** A fact's value as the tokenizer would read it: what an answer's assertion is compared with. */
export function normalizeValue(value: string): string[] {
  return tokenize(value, 8)
    .filter((token) => token.kind === 'word' || token.kind === 'number')
    .map((token) => token.value);
}

/** Words of a label or record key: `due_date`, `dueDate` and `due date` are the same. */
export function labelWords(key: string): string[] {
  return tokenize(key.replace(/([a-z])([A-Z])/gu, '$1 $2').replace(/[_.-]+/gu, ' '), 8)
    .filter((token) => token.kind === 'word' || token.kind === 'number')
    .map((token) => token.value);
}

/** Words between a label and its value that do not change what is asserted. */
const FILLERS = new Set([
  'is', 'are', 'was', 'were', 'be', 'been', 'being', 'will', 'shall', 'has', 'have', 'had', 'of', 'at', 'to', 'on', 'for',
  'currently', 'now', 'still', 'only', 'just', 'exactly', 'about', 'approximately', 'around', 'roughly', 'set', 'stands',
  'equals', 'equal', 'amounts', 'totals', 'reads', 'shows', 'listed', 'as', 'actually', 'indeed', 'due',
]);
const NEGATIONS = new Set(['not', 'no', 'never', "isn't", "wasn't", "aren't", "weren't", 'isn’t', 'wasn’t']);

export interface Assertion {
  /** The value the text asserts right after the label, as tokens (negated: prefixed with `not`). */
  values: Token[];
  negated: boolean;
}

/**
 * What the text asserts for a label found at tokens[at, at + length): the first value tokens after
 * it in the same sentence, fillers skipped, looking at most `window` tokens ahead.
 */
export function assertionAfter(tokens: readonly Token[], at: number, length: number, want: number, numeric: boolean, window = 8): Assertion | null {
  let negated = false;
  const last = Math.min(tokens.length, at + length + window);
  for (let index = at + length; index < last; index += 1) {
    const token = tokens[index] as Token;
    if (token.kind === 'stop') return null;
    if (token.kind === 'join') continue;
    if (token.kind === 'word' && NEGATIONS.has(token.value)) {
      negated = true;
      continue;
    }
    if (token.kind === 'word' && FILLERS.has(token.value)) continue;
    if (numeric && token.kind !== 'number') continue;
    const values: Token[] = [];
    for (let take = index; take < Math.min(tokens.length, index + want); take += 1) {
      const next = tokens[take] as Token;
      if (next.kind === 'stop' || next.kind === 'join') break;
      values.push(next);
    }
    return { values, negated };
  }
  return null;
}

export const sameValue = (asserted: readonly Token[], expected: readonly string[]): boolean => {
  if (asserted.length < expected.length) return false;
  return expected.every((value, index) => {
    const token = asserted[index] as Token;
    if (token.value === value) return true;
    const a = Number(token.value.replace(/%$/u, ''));
    const b = Number(value.replace(/%$/u, ''));
    return token.kind === 'number' && Number.isFinite(a) && Number.isFinite(b) && a === b;
  });
};

export const isNumeric = (values: readonly string[]): boolean => values.length > 0 && /^\d/u.test(values[0] as string);

/** Sentence bounds around a character offset, for windows that must not cross into another sentence. */
export function sentenceStart(text: string, offset: number, maxBack = 400): number {
  const floor = Math.max(0, offset - maxBack);
  for (let index = offset - 1; index >= floor; index -= 1) {
    const char = text[index];
    if (char === '.' || char === '!' || char === '?' || char === '\n') return index + 1;
  }
  return floor;
}
