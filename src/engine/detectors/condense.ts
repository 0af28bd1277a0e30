// Condensing: padding is shortened before detectors scan a large text, with a map from the
// shortened text back to the original offsets. Padding is a long run of one character, of a short
// repeated unit ("x.", "lorem ipsum "), or of invisible characters (whitespace, zero-width and
// format characters) in any mix. Such a run adds nothing a detector could find beyond its first
// units, yet it costs scan time and pushes what follows out of reach of timeouts. The run keeps its
// first and last characters, cut on its unit, so the kept text reads exactly like the original
// around it (a pattern that spans under KEEP_HEAD characters matches the same way).
// Hot path: one linear pass that samples every STEP characters; no regex.

/** Runs shorter than this stay as they are. */
export const MIN_RUN = 256;
/** Characters kept at the start and at the end of a condensed run. */
const KEEP_HEAD = 128;
const KEEP_TAIL = 32;
/** The longest repeated unit recognised. */
const MAX_UNIT = 64;
/** A run is looked for every STEP characters; a run of MIN_RUN or more always spans a sample. */
const STEP = 64;
/** Characters compared to accept a period before the run is extended. */
const VERIFY = 32;

/** A text as detectors scan it: `text` is made of ranges of the original, in order. */
export interface Condensed {
  text: string;
  originalLength: number;
  /** The original [start, end) of a span of `text` (end exclusive). */
  toOriginal(start: number, end: number): { start: number; end: number };
}

/** Whitespace, zero-width and format characters (not tag characters, which can carry text). */
function isInvisible(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0xad ||
    code === 0x180e ||
    (code >= 0x2000 && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202f) ||
    (code >= 0x205f && code <= 0x206f) ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

interface Run {
  start: number;
  end: number;
  /** Period of the run; 0 for a mix of invisible characters. */
  unit: number;
}

/** The run of invisible characters or of a repeated unit around `at`, not reaching before `floor`. */
function runAround(text: string, at: number, floor: number): Run | null {
  const n = text.length;
  if (isInvisible(text.charCodeAt(at))) {
    let start = at;
    while (start > floor && isInvisible(text.charCodeAt(start - 1))) start -= 1;
    let end = at + 1;
    while (end < n && isInvisible(text.charCodeAt(end))) end += 1;
    if (end - start >= MIN_RUN) return { start, end, unit: 0 };
  }
  for (let unit = 1; unit <= MAX_UNIT && at + VERIFY + unit <= n; unit += 1) {
    let k = 0;
    while (k < VERIFY && text.charCodeAt(at + k) === text.charCodeAt(at + k + unit)) k += 1;
    if (k < VERIFY) continue;
    let end = at + VERIFY + unit;
    while (end < n && text.charCodeAt(end) === text.charCodeAt(end - unit)) end += 1;
    let start = at;
    while (start > floor && text.charCodeAt(start - 1) === text.charCodeAt(start - 1 + unit)) start -= 1;
    return end - start >= MIN_RUN ? { start, end, unit } : null;
  }
  return null;
}

class RangeText implements Condensed {
  readonly text: string;
  /** Start of each kept range in the condensed text and in the original. */
  private readonly at: Int32Array;
  private readonly from: Int32Array;

  constructor(
    original: string,
    readonly ranges: readonly number[],
    readonly originalLength: number,
  ) {
    const parts: string[] = [];
    this.at = new Int32Array(ranges.length / 2);
    this.from = new Int32Array(ranges.length / 2);
    let length = 0;
    for (let index = 0; index < ranges.length; index += 2) {
      const start = ranges[index]!;
      const end = ranges[index + 1]!;
      this.at[index / 2] = length;
      this.from[index / 2] = start;
      parts.push(original.slice(start, end));
      length += end - start;
    }
    this.text = parts.join('');
  }

  private map(offset: number): number {
    let lo = 0;
    let hi = this.at.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.at[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return this.from[lo]! + offset - this.at[lo]!;
  }

  toOriginal(start: number, end: number): { start: number; end: number } {
    const from = this.map(start);
    return { start: from, end: end > start ? this.map(end - 1) + 1 : from };
  }
}

/**
 * `text` with every run of padding (MIN_RUN characters or more) shortened to its first KEEP_HEAD
 * and last KEEP_TAIL characters; null when the text has no such run.
 */
export function condense(text: string): Condensed | null {
  const n = text.length;
  if (n < MIN_RUN) return null;
  const ranges: number[] = [];
  let keptFrom = 0;
  let floor = 0;
  for (let at = 0; at + VERIFY < n; ) {
    const run = runAround(text, at, floor);
    if (run === null) {
      at += STEP;
      continue;
    }
    const unit = Math.max(1, run.unit);
    const headEnd = run.start + Math.ceil(KEEP_HEAD / unit) * unit;
    // The tail starts on the run's unit too, so head and tail join without a seam.
    const tailStart = run.start + Math.floor((run.end - run.start - KEEP_TAIL) / unit) * unit;
    if (tailStart > headEnd) {
      ranges.push(keptFrom, headEnd);
      keptFrom = tailStart;
    }
    floor = run.end;
    at = run.end;
  }
  if (ranges.length === 0) return null;
  ranges.push(keptFrom, n);
  return new RangeText(text, ranges, n);
}

/**
 * The first and last `maxChars / 2` characters of a (condensed) text, for a text too large to
 * check in full: the head and the tail are always checked.
 */
export function headAndTail(original: string, condensed: Condensed | null, maxChars: number): Condensed {
  const ranges = condensed instanceof RangeText ? condensed.ranges : [0, original.length];
  const length = condensed?.text.length ?? original.length;
  if (length <= maxChars) return condensed ?? new RangeText(original, ranges, original.length);
  const half = Math.floor(maxChars / 2);
  const kept: number[] = [];
  // Walk the ranges in condensed coordinates and keep those parts inside [0, half) or [length - half, length).
  const windows: Array<[number, number]> = [
    [0, half],
    [length - half, length],
  ];
  let position = 0;
  for (let index = 0; index < ranges.length; index += 2) {
    const start = ranges[index]!;
    const end = ranges[index + 1]!;
    const next = position + end - start;
    for (const [from, to] of windows) {
      const a = Math.max(from, position);
      const b = Math.min(to, next);
      if (a < b) kept.push(start + a - position, start + b - position);
    }
    position = next;
  }
  return new RangeText(original, kept, original.length);
}
