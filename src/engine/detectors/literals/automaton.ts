// One pass over a text that tells which of many literal strings occur in it (Aho-Corasick), so a
// detector runs only the expressions whose required literals are present. Written here rather
// than taken from a package: the packages measured (modern-ahocorasick 3.3, with grapheme-aware
// matching) cost 45 µs per KB or more, a fifth of the whole 1 KB budget of all default detectors;
// this table-driven form costs a few µs per KB.

export interface LiteralEntry {
  literal: string;
  /** Small integer naming who asked for the literal (a phrase family, a pattern row). */
  owner: number;
}

export interface AutomatonOptions {
  /**
   * Match ASCII letters case-insensitively (literals are folded to lower case). The Kelvin sign and
   * long s fold too, as they do in a case-insensitive Unicode regex.
   */
  foldCase?: boolean;
}

const KELVIN = 0x212a;
const LONG_S = 0x17f;

function foldUnit(code: number): number {
  if (code >= 65 && code <= 90) return code + 32;
  if (code === KELVIN) return 107;
  if (code === LONG_S) return 115;
  return code;
}

export class LiteralAutomaton {
  readonly ownerCount: number;
  private readonly fold: boolean;
  /**
   * Code unit -> alphabet class (0 = occurs in no literal). ASCII characters get the low classes,
   * so that they can index a dense table.
   */
  private readonly classOf = new Uint16Array(65536);
  /** Classes below this (ASCII and "no literal") have a dense transition table. */
  private readonly width: number = 1;
  /** Transitions on ASCII classes, complete (failure links folded in): state * width + class. */
  private readonly delta: Int32Array | Uint16Array;
  /** Trie children and failure links, for the other classes (non-Latin dictionaries are large). */
  private readonly children: Array<Map<number, number>>;
  private readonly failure: Int32Array;
  /** Owners reported at each state (including those of its failure chain), as CSR ranges. */
  private readonly outputStart: Int32Array;
  private readonly outputOwners: Int32Array;
  private readonly outputLengths: Int32Array;

  constructor(entries: readonly LiteralEntry[], options: AutomatonOptions = {}) {
    this.fold = options.foldCase === true;
    this.ownerCount = entries.reduce((max, e) => Math.max(max, e.owner + 1), 0);
    const unitsOf = (literal: string): number[] =>
      Array.from({ length: literal.length }, (_, i) => (this.fold ? foldUnit(literal.charCodeAt(i)) : literal.charCodeAt(i)));
    let classes = 1;
    for (const ascii of [true, false]) {
      for (const { literal } of entries) {
        for (const unit of unitsOf(literal)) if (unit < 0x80 === ascii && this.classOf[unit] === 0) this.classOf[unit] = classes++;
      }
      if (ascii) this.width = classes;
    }
    const children: Array<Map<number, number>> = [new Map()];
    // Per state: the (owner, literal length) pairs ending there, keyed owner * 2^16 + length.
    const owners: Array<Set<number>> = [new Set()];
    for (const { literal, owner } of entries) {
      if (literal.length === 0) throw new Error('LiteralAutomaton: empty literal');
      let state = 0;
      for (const unit of unitsOf(literal)) {
        const cls = this.classOf[unit]!;
        let next = children[state]!.get(cls);
        if (next === undefined) {
          next = children.length;
          children.push(new Map());
          owners.push(new Set());
          children[state]!.set(cls, next);
        }
        state = next;
      }
      owners[state]!.add(owner * 65536 + literal.length);
    }
    this.children = children;
    // Breadth-first: failure links, and outputs merged along them.
    const failure = new Int32Array(children.length);
    const order: number[] = [0];
    for (let head = 0; head < order.length; head += 1) {
      const state = order[head]!;
      for (const [cls, child] of children[state]!) {
        if (state !== 0) {
          let f = failure[state]!;
          while (f !== 0 && !children[f]!.has(cls)) f = failure[f]!;
          const target = children[f]!.get(cls);
          failure[child] = target !== undefined && target !== child ? target : 0;
        }
        for (const o of owners[failure[child]!]!) owners[child]!.add(o);
        order.push(child);
      }
    }
    this.failure = failure;
    this.outputStart = new Int32Array(children.length + 1);
    const flatOwners: number[] = [];
    const flatLengths: number[] = [];
    for (let s = 0; s < children.length; s += 1) {
      this.outputStart[s] = flatOwners.length;
      for (const key of owners[s]!) {
        flatOwners.push(Math.floor(key / 65536));
        flatLengths.push(key % 65536);
      }
    }
    this.outputStart[children.length] = flatOwners.length;
    this.outputOwners = Int32Array.from(flatOwners);
    this.outputLengths = Int32Array.from(flatLengths);
    const width = this.width;
    // 16-bit states where they fit: half the table, and the table is what the scan touches.
    const delta = children.length <= 0xffff ? new Uint16Array(children.length * width) : new Int32Array(children.length * width);
    for (const state of order) {
      for (let cls = 1; cls < width; cls += 1) {
        const child = children[state]!.get(cls);
        delta[state * width + cls] = child ?? (state === 0 ? 0 : delta[failure[state]! * width + cls]!);
      }
    }
    this.delta = delta;
  }

  /** Marks in `found` (one byte per owner) every owner with a literal in `text`; returns `found`. */
  scan(text: string, found: Uint8Array = new Uint8Array(this.ownerCount)): Uint8Array {
    const { outputStart, outputOwners } = this;
    let state = 0;
    for (let i = 0; i < text.length; i += 1) {
      state = this.advance(state, text.charCodeAt(i));
      for (let k = outputStart[state]!; k < outputStart[state + 1]!; k += 1) found[outputOwners[k]!] = 1;
    }
    return found;
  }

  /**
   * Every occurrence of every literal, as where it starts, grouped by owner: `starts[owner]` lists
   * the start offsets in the order the literals end (not necessarily ascending), or is undefined.
   */
  starts(text: string): Array<number[] | undefined> {
    const { outputStart, outputOwners, outputLengths } = this;
    const starts: Array<number[] | undefined> = [];
    let state = 0;
    for (let i = 0; i < text.length; i += 1) {
      state = this.advance(state, text.charCodeAt(i));
      for (let k = outputStart[state]!; k < outputStart[state + 1]!; k += 1) (starts[outputOwners[k]!] ??= []).push(i + 1 - outputLengths[k]!);
    }
    return starts;
  }

  /** The state after reading one code unit (small enough for V8 to inline into the loops above). */
  private advance(state: number, code: number): number {
    const cls = this.classOf[this.fold ? foldUnit(code) : code]!;
    if (cls === 0) return 0;
    if (cls < this.width) return this.delta[state * this.width + cls]!;
    return this.step(state, cls);
  }

  private step(state: number, cls: number): number {
    for (;;) {
      const next = this.children[state]!.get(cls);
      if (next !== undefined) return next;
      if (state === 0) return 0;
      state = this.failure[state]!;
    }
  }
}
