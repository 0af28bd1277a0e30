// A file's text split into lines once, with the offset of each line, so that every scanner walks
// lines (bounded in length) and any character offset maps back to its 1-based line.

import { storableText } from '../../../../infra/lib/storable-text.js';

/** Characters of one line that line scanners look at; the rest of a longer (minified) line is not read. */
export const MAX_LINE_CHARS = 4_000;
/** How far a shape looks ahead for its name (`Agent(` … `name="x"` on a following line). */
export const LOOKAHEAD_LINES = 8;
const MAX_NAME_CHARS = 128;

export class SourceText {
  /** Each line without its line break, cut to MAX_LINE_CHARS. */
  readonly lines: string[] = [];
  /** Offset in `text` where each line starts. */
  readonly starts: number[] = [];

  constructor(readonly text: string) {
    let start = 0;
    while (start <= text.length) {
      const newline = text.indexOf('\n', start);
      const end = newline === -1 ? text.length : newline;
      const lineEnd = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
      this.starts.push(start);
      this.lines.push(text.slice(start, Math.min(lineEnd, start + MAX_LINE_CHARS)));
      if (newline === -1) break;
      start = newline + 1;
    }
  }

  /** The 1-based line holding a character offset. */
  lineAt(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

/** A name read from code, as it may be stored: trimmed, bounded, without control characters. */
export function cleanName(raw: string, maxChars = MAX_NAME_CHARS): string {
  let out = '';
  for (const ch of raw.trim().slice(0, maxChars)) {
    const code = ch.charCodeAt(0);
    out += code < 32 || code === 127 ? ' ' : ch;
  }
  return storableText(out.trim());
}

/** A pattern and a literal every match of it contains, tested first because it is cheaper. */
export interface Needle {
  pattern: RegExp;
  literal: string;
}

/** A pattern's last capture on a line (or on the next lines up to `lookahead`), with its 1-based line. */
export function findAhead(source: SourceText, index: number, needle: Needle, lookahead = LOOKAHEAD_LINES, fromColumn = 0): { value: string; line: number } | null {
  const last = Math.min(source.lines.length - 1, index + lookahead);
  for (let i = index; i <= last; i += 1) {
    const line = i === index ? (source.lines[i] ?? '').slice(fromColumn) : (source.lines[i] ?? '');
    if (!line.includes(needle.literal)) continue;
    const match = needle.pattern.exec(line);
    const value = match?.[match.length - 1];
    if (value !== undefined) return { value, line: i + 1 };
  }
  return null;
}

const JSON_KEY = /"((?:[^"\\\n]|\\.){0,200})"\s*:/g;

/**
 * The 0-based line of the first `"key":` of each key at or after line `from`, in one pass (a
 * parsed JSON object's keys are then placed on their lines without a search per key).
 */
export function jsonKeyLines(source: SourceText, from: number): Map<string, number> {
  const lines = new Map<string, number>();
  for (let i = Math.max(0, from); i < source.lines.length; i += 1) {
    const line = source.lines[i] ?? '';
    if (!line.includes('"')) continue;
    JSON_KEY.lastIndex = 0;
    for (let match = JSON_KEY.exec(line); match !== null; match = JSON_KEY.exec(line)) {
      const raw = match[1] ?? '';
      let key = raw;
      if (raw.includes('\\')) {
        try {
          key = JSON.parse(`"${raw}"`) as string;
        } catch {
          continue;
        }
      }
      if (!lines.has(key)) lines.set(key, i);
    }
  }
  return lines;
}
