// Phone-number shape analysis for PII.US_PHONE: splits a candidate run of digits and separators
// into groups and decides which part (if any) is shaped like a phone number, and how strongly.
// Pure, bounded work per candidate (the run is at most ~30 characters); hot path: no I/O here.

/**
 * How sure the shape alone makes us.
 * - `nanp`: North American number with separators, area and exchange codes starting 2–9.
 * - `international`: "+CC …" or "00CC …" with enough digits.
 * - `nanp-like`: the 3-3-4 layout with codes outside the plan (fictional 555-123-4567 numbers).
 * - `separated`: other grouped digits (national formats worldwide); needs a phone word nearby.
 * - `plain`: one unbroken digit run; needs a phone word nearby.
 */
export type PhoneShape = 'nanp' | 'international' | 'nanp-like' | 'separated' | 'plain';

export interface PhoneMatch {
  shape: PhoneShape;
  /** Offsets into the analysed text, end exclusive. */
  start: number;
  end: number;
  digitCount: number;
}

interface DigitGroup {
  start: number;
  end: number;
  digits: string;
  /** "(0)" inside an international number: the national trunk prefix, not a dialled digit. */
  trunk: boolean;
}

const SHAPE_RANK: Readonly<Record<PhoneShape, number>> = { nanp: 4, international: 4, 'nanp-like': 3, separated: 2, plain: 1 };

// A date written with dashes or dots inside the run ("2015-12-22 04") is a timestamp, not a phone.
const ISO_DATE = /(?:^|\D)(?:19|20)\d\d[-.](?:0?[1-9]|1[0-2])[-.](?:0?[1-9]|[12]\d|3[01])(?!\d)/;
const DMY_DATE = /(?:^|\D)(?:0?[1-9]|[12]\d|3[01])[-.](?:0?[1-9]|1[0-2])[-.](?:19|20)?\d\d(?!\d)/;
// Sticky: tested at the end of a number, so no '^' (which would mean the start of the text).
const EXTENSION = / ?(?:x|ext\.?|#) ?\d{1,6}/iy;

function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isWordCode(code: number): boolean {
  return isDigitCode(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

function splitGroups(text: string, start: number, end: number): DigitGroup[] {
  const groups: DigitGroup[] = [];
  let i = start;
  while (i < end) {
    if (!isDigitCode(text.charCodeAt(i))) {
      i += 1;
      continue;
    }
    const groupStart = i;
    while (i < end && isDigitCode(text.charCodeAt(i))) i += 1;
    const digits = text.slice(groupStart, i);
    const trunk = digits === '0' && text[groupStart - 1] === '(' && text[i] === ')' && groups.length > 0;
    groups.push({ start: groupStart, end: i, digits, trunk });
  }
  return groups;
}

function allSame(digits: string): boolean {
  for (let i = 1; i < digits.length; i += 1) if (digits[i] !== digits[0]) return false;
  return true;
}

/** Classifies groups[from..to] (inclusive), or undefined when they are not phone-shaped. */
function classify(text: string, groups: readonly DigitGroup[], from: number, to: number, plus: boolean): PhoneShape | undefined {
  const dialled: string[] = [];
  let previousWasTrunk = false;
  for (let g = from; g <= to; g += 1) {
    const group = groups[g];
    if (group === undefined) return undefined;
    if (g > from) {
      // Groups are joined by at most two separator characters ("-", " ", ") ", " (").
      const previous = groups[g - 1];
      if (previous === undefined || group.start - previous.end > 2) return undefined;
    }
    if (group.trunk) {
      if (g === from) return undefined;
      previousWasTrunk = true;
      continue;
    }
    const isFirst = dialled.length === 0;
    // Lone digits: a country code ("+1"), the area digit after a country code ("+33 1 23 …") or
    // after the trunk prefix ("+46 (0)8 …").
    const afterCountryCode = plus && from === 0 && dialled.length === 1;
    const trunkOne = isFirst && group.digits === '1';
    const shortAllowed = (isFirst && plus) || afterCountryCode || previousWasTrunk || trunkOne;
    if (group.digits.length < 2 && !shortAllowed) return undefined;
    if (group.digits.length > 12) return undefined;
    dialled.push(group.digits);
    previousWasTrunk = false;
  }
  const joined = dialled.join('');
  if (joined.length < 7 || joined.length > 15 || allSame(joined)) return undefined;
  // Runs of only 0s and 1s are binary, never a dialable number (area codes start 2–9 almost everywhere).
  if (/^[01]+$/.test(joined)) return undefined;
  const startsWithPlus = plus && from === 0;

  // North American numbering plan, optionally behind +1 / 1 / 001.
  let national = dialled;
  if (national.length === 4 && (national[0] === '1' || national[0] === '001')) national = national.slice(1);
  if (
    national.length === 3 &&
    national[0]?.length === 3 &&
    national[1]?.length === 3 &&
    national[2]?.length === 4 &&
    /^[2-9]/.test(national[0]) &&
    /^[2-9]/.test(national[1])
  ) {
    return 'nanp';
  }
  // A lone leading "1" without "+" is only the North American long-distance prefix ("1-800-…").
  if (!plus && dialled[0] === '1') return undefined;
  if (startsWithPlus && joined.length >= 8) return 'international';
  if (national.length === 3 && national[0]?.length === 3 && national[1]?.length === 3 && national[2]?.length === 4) return 'nanp-like';
  // "00" international prefix written as its own group with the country code: "0044 20 …", "001-518-…".
  const prefixGroup = dialled[0] ?? '';
  if (dialled.length >= 3 && prefixGroup.startsWith('00') && prefixGroup.length >= 3 && prefixGroup.length <= 5 && joined.length >= 10) {
    return 'international';
  }
  if (dialled.length >= 2) return 'separated';
  // An unbroken run: only a bare number behind "+" reads as a phone by itself.
  const lone = groups[from];
  if (lone !== undefined && text[lone.start - 1] === '+') return joined.length >= 8 ? 'international' : undefined;
  return 'plain';
}

/**
 * The best phone-shaped part of text[start, end): the strongest shape, then the most digits.
 * `end` should be where the candidate run of digits and separators stops.
 */
export function analysePhone(text: string, start: number, end: number): PhoneMatch | undefined {
  const groups = splitGroups(text, start, end);
  let runDigits = 0;
  for (const group of groups) runDigits += group.digits.length;
  if (runDigits < 7) return undefined;
  const run = text.slice(start, end);
  if (ISO_DATE.test(run) || DMY_DATE.test(run)) return undefined;
  const plus = text[(groups[0]?.start ?? start) - 1] === '+' || (text[start] === '+' && text[start + 1] === '(');
  let best: PhoneMatch | undefined;
  for (let from = 0; from < groups.length; from += 1) {
    const first = groups[from];
    if (first === undefined || first.trunk || (first.digits.length < 2 && !(from === 0 && plus) && first.digits !== '1')) continue;
    let digitTotal = 0;
    for (let to = from; to < groups.length; to += 1) {
      const last = groups[to];
      const previous = groups[to - 1];
      if (last === undefined) break;
      // Stop extending once no longer range can be phone-shaped: too many digits, a wide gap, or a
      // lone digit that is neither a country code nor the area code after "(0)".
      if (to > from && (previous === undefined || last.start - previous.end > 2)) break;
      const afterCountryCode = plus && from === 0 && to === 1;
      if (!last.trunk && last.digits.length < 2 && to > from && !(previous?.trunk ?? false) && !afterCountryCode) break;
      digitTotal += last.trunk ? 0 : last.digits.length;
      if (digitTotal > 15) break;
      if (digitTotal < 7) continue;
      // The number must not run on into more digits or letters (a truncated run, "12345abc").
      const after = text.charCodeAt(last.end);
      if (isDigitCode(after)) continue;
      if (isWordCode(after)) {
        EXTENSION.lastIndex = last.end;
        if (!EXTENSION.test(text)) continue;
      }
      const shape = classify(text, groups, from, to, plus);
      if (shape === undefined) continue;
      let matchStart = first.start;
      if (from === 0 && plus) matchStart = text[first.start - 1] === '+' ? first.start - 1 : start;
      if (text[matchStart - 1] === '(' && text.indexOf(')', matchStart) === first.end) matchStart -= 1;
      let matchEnd = last.end;
      EXTENSION.lastIndex = matchEnd;
      const extension = EXTENSION.exec(text);
      if (extension !== null) matchEnd += extension[0].length;
      const candidate: PhoneMatch = { shape, start: matchStart, end: matchEnd, digitCount: digitTotal };
      if (
        best === undefined ||
        SHAPE_RANK[shape] > SHAPE_RANK[best.shape] ||
        (SHAPE_RANK[shape] === SHAPE_RANK[best.shape] && digitTotal > best.digitCount)
      ) {
        best = candidate;
      }
    }
  }
  return best;
}
