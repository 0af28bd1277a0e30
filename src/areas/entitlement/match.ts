// Globs over chunk sources, matched in time linear in the source: the pattern is compiled to a small
// program and run as a set of positions (no backtracking, no RegExp), so no grant an operator writes
// can make a filter call slow.
//
// Syntax: `*` any run of characters within one segment (not `/` or `:`), `?` one such character,
// `**` any run of characters across segments; `**/` (or `**:`) at the start or after a separator
// also matches no segment at all, so `docs/**/faq` matches `docs/faq` and `docs/a/b/faq`.
// A backslash makes the next character literal. Three or more stars in a row are refused.

/** Characters that end a segment. */
const SEPARATORS = new Set(['/', ':']);

const Op = {
  /** Consume exactly `char`. */
  Literal: 0,
  /** Consume one character that is not a separator. */
  One: 1,
  /** Zero or more non-separator characters: stay, or move on without consuming. */
  Star: 2,
  /** Zero or more of any character. */
  AnyRun: 3,
  /** Without consuming, continue at the next instruction or at `jump`. */
  Split: 4,
} as const;
type Op = (typeof Op)[keyof typeof Op];

interface Instruction {
  op: Op;
  char: string;
  jump: number;
}

export class GlobError extends Error {}

export interface Glob {
  readonly pattern: string;
  matches(source: string): boolean;
  /** Positions visited by the last match (0 for globs that need no program): tests read it to prove the work is linear. */
  readonly lastWork: number;
}

/** The longest pattern compiled: bounds the per-character work of a match. */
export const MAX_GLOB_LENGTH = 512;

/** A compiled glob; throws GlobError on a malformed pattern. */
export function compileGlob(pattern: string): Glob {
  if (pattern.length === 0) throw new GlobError('a glob may not be empty');
  if (pattern.length > MAX_GLOB_LENGTH) throw new GlobError(`a glob is at most ${MAX_GLOB_LENGTH} characters`);
  const program: Instruction[] = [];
  let literalPrefix = '';
  let wild = false;
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index] as string;
    if (char === '\\') {
      if (index + 1 >= pattern.length) throw new GlobError('a glob may not end with a lone backslash');
      const escaped = pattern[index + 1] as string;
      program.push({ op: Op.Literal, char: escaped, jump: 0 });
      if (!wild) literalPrefix += escaped;
      index += 2;
      continue;
    }
    if (char === '?') {
      program.push({ op: Op.One, char: '', jump: 0 });
      wild = true;
      index += 1;
      continue;
    }
    if (char !== '*') {
      program.push({ op: Op.Literal, char, jump: 0 });
      if (!wild) literalPrefix += char;
      index += 1;
      continue;
    }
    wild = true;
    let stars = 1;
    while (pattern[index + stars] === '*') stars += 1;
    if (stars > 2) throw new GlobError('a glob may have at most two stars in a row');
    if (stars === 1) {
      program.push({ op: Op.Star, char: '', jump: 0 });
      index += 1;
      continue;
    }
    const before = index === 0 ? undefined : pattern[index - 1];
    const after = pattern[index + 2];
    const atSegmentStart = before === undefined || (SEPARATORS.has(before) && pattern[index - 2] !== '\\');
    if (atSegmentStart && after !== undefined && SEPARATORS.has(after)) {
      // `**/`: either nothing at all, or any run ending in that separator.
      const split = program.length;
      program.push({ op: Op.Split, char: '', jump: 0 });
      program.push({ op: Op.AnyRun, char: '', jump: 0 });
      program.push({ op: Op.Literal, char: after, jump: 0 });
      (program[split] as Instruction).jump = program.length;
      index += 3;
      continue;
    }
    program.push({ op: Op.AnyRun, char: '', jump: 0 });
    index += 2;
  }
  if (!wild) {
    const exact = literalPrefix;
    return { pattern, lastWork: 0, matches: (source) => source === exact };
  }
  if (program.length === 1 && program[0]?.op === Op.AnyRun) return { pattern, lastWork: 0, matches: () => true };
  return new ProgramGlob(pattern, program, literalPrefix);
}

class ProgramGlob implements Glob {
  private current: Int32Array;
  private next: Int32Array;
  /** Generation stamps per position: a position is in the set when its stamp is the current step. */
  private readonly seen: Int32Array;
  private step = 0;
  lastWork = 0;

  constructor(
    readonly pattern: string,
    private readonly program: readonly Instruction[],
    private readonly prefix: string,
  ) {
    const size = program.length + 1;
    this.current = new Int32Array(size);
    this.next = new Int32Array(size);
    this.seen = new Int32Array(size);
  }

  /** O(source length × program length); the literal prefix is checked first, which settles most misses. */
  matches(source: string): boolean {
    if (!source.startsWith(this.prefix)) return false;
    const accept = this.program.length;
    this.bump();
    let count = this.add(this.current, 0, 0);
    let work = count;
    for (let offset = 0; offset < source.length && count > 0; offset += 1) {
      const char = source[offset] as string;
      const separator = SEPARATORS.has(char);
      this.bump();
      let nextCount = 0;
      for (let i = 0; i < count; i += 1) {
        const position = this.current[i] as number;
        if (position === accept) continue;
        const instruction = this.program[position] as Instruction;
        switch (instruction.op) {
          case Op.Literal:
            if (instruction.char === char) nextCount = this.add(this.next, nextCount, position + 1);
            break;
          case Op.One:
            if (!separator) nextCount = this.add(this.next, nextCount, position + 1);
            break;
          case Op.Star:
            if (!separator) nextCount = this.add(this.next, nextCount, position);
            break;
          case Op.AnyRun:
            nextCount = this.add(this.next, nextCount, position);
            break;
          case Op.Split:
            break;
        }
      }
      const swap = this.current;
      this.current = this.next;
      this.next = swap;
      count = nextCount;
      work += count;
    }
    this.lastWork = work;
    for (let i = 0; i < count; i += 1) if (this.current[i] === accept) return true;
    return false;
  }

  private bump(): void {
    this.step += 1;
    if (this.step === 0x7fffffff) {
      this.seen.fill(0);
      this.step = 1;
    }
  }

  /** Adds a position and every position reachable from it without consuming; returns the new count. */
  private add(set: Int32Array, count: number, position: number): number {
    if (this.seen[position] === this.step) return count;
    this.seen[position] = this.step;
    set[count] = position;
    let added = count + 1;
    if (position === this.program.length) return added;
    const instruction = this.program[position] as Instruction;
    if (instruction.op === Op.Star || instruction.op === Op.AnyRun) added = this.add(set, added, position + 1);
    else if (instruction.op === Op.Split) {
      added = this.add(set, added, position + 1);
      added = this.add(set, added, instruction.jump);
    }
    return added;
  }
}
