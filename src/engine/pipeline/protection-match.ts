// An agent's protection words and avoided topics, matched as whole words in a checked text
// (POST /api/agents/{slug}/protection). The decision pipeline calls this on every check, so it is
// pure, does no I/O and runs in time linear in the text: one Aho-Corasick pass over code points,
// never a regular expression built from operator input.

/**
 * What an agent's stored protections say about content: words it must not see or say, topics to
 * avoid, and the refusal text shown when one of them blocks. Treat a value as immutable: the
 * matcher built for it is cached by object identity.
 * @example const settings = protectionsOf({ words: ['acme'], avoid: 'layoffs, merger', message: 'Not here.' })
 */
export interface ProtectionSettings {
  words: string[];
  avoid: string[];
  message: string | null;
}

export interface ProtectionMatch {
  /** The term as the operator wrote it (trimmed). */
  term: string;
  /** UTF-16 offsets into the content, end exclusive. */
  start: number;
  end: number;
  kind: 'word' | 'avoid';
}

/**
 * Reads the matcher's settings from an agent's `protections` JSON object. `avoid` is stored as
 * comma-separated topic words; a list is accepted too. Anything malformed is ignored, never thrown:
 * the stored object was validated when it was written.
 */
export function protectionsOf(json: Record<string, unknown>): ProtectionSettings {
  const terms = (value: unknown): string[] => {
    const list = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : [];
    const out: string[] = [];
    for (const item of list) {
      if (typeof item !== 'string') continue;
      const term = item.trim();
      if (term !== '') out.push(term);
    }
    return out;
  };
  return {
    words: terms(Array.isArray(json.words) ? json.words : []),
    avoid: terms(json.avoid),
    message: typeof json.message === 'string' && json.message !== '' ? json.message : null,
  };
}

/**
 * The first protection term found in `content` as a whole word (case-insensitive), or null. A term
 * is not matched inside a longer word: where the term begins (ends) with a word character, the
 * character before (after) it must not be one. Word characters are letters, marks, digits and
 * connector punctuation of any script (Unicode's \w, UTS #18 annex C), so "ñandú" and "東京" are
 * words too. Among terms ending at the same place, the longest wins; `words` win over `avoid`.
 */
export function matchProtection(settings: ProtectionSettings, content: string): ProtectionMatch | null {
  let matcher = matchers.get(settings);
  if (matcher === undefined) {
    matcher = new TermMatcher(settings);
    matchers.set(settings, matcher);
  }
  return matcher.first(content);
}

const matchers = new WeakMap<ProtectionSettings, TermMatcher>();

// Case folding per code point: upper then lower maps the variants of a letter to one form (final
// and medial sigma, the Kelvin sign), keeping one code point for one code point so that offsets
// into the content stay exact. Letters whose folding is longer (ß → SS) keep their lower case.
const foldCache = new Int32Array(0x10000);

function fold(cp: number): number {
  if (cp < 0x80) return cp >= 65 && cp <= 90 ? cp + 32 : cp;
  if (cp < 0x10000) {
    const cached = foldCache[cp] as number;
    if (cached !== 0) return cached - 1;
    const folded = foldSlow(cp);
    foldCache[cp] = folded + 1;
    return folded;
  }
  return foldSlow(cp);
}

function foldSlow(cp: number): number {
  const char = String.fromCodePoint(cp);
  for (const candidate of [char.toUpperCase().toLowerCase(), char.toLowerCase()]) {
    const first = candidate.codePointAt(0) as number;
    if (candidate.length === (first > 0xffff ? 2 : 1)) return first;
  }
  return cp;
}

const WORD_CHAR = /^[\p{L}\p{M}\p{N}\p{Pc}]$/u;
/** BMP code point -> 0 unknown, 1 not a word character, 2 a word character. */
const wordCache = new Uint8Array(0x10000);

function isWordCp(cp: number): boolean {
  if (cp < 0x80) return (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122) || cp === 95;
  if (cp < 0x10000) {
    let known = wordCache[cp] as number;
    if (known === 0) {
      known = WORD_CHAR.test(String.fromCharCode(cp)) ? 2 : 1;
      wordCache[cp] = known;
    }
    return known === 2;
  }
  return WORD_CHAR.test(String.fromCodePoint(cp));
}

interface Term {
  text: string;
  kind: 'word' | 'avoid';
  /** Length in code points. */
  length: number;
  wordStart: boolean;
  wordEnd: boolean;
}

/** Aho-Corasick over folded code points; built once per settings object. */
class TermMatcher {
  private readonly terms: Term[] = [];
  private readonly children: Array<Map<number, number>> = [new Map()];
  private fail: Int32Array = new Int32Array(1);
  /** The term ending exactly at a state, or -1. */
  private out: number[] = [-1];
  /** The nearest state down the failure chain that ends a term, or 0 (the root ends none). */
  private dict: Int32Array = new Int32Array(1);
  /** The same, restricted to terms that end with a non-word character (matchable before a word character). */
  private dictOpenEnd: Int32Array = new Int32Array(1);
  private readonly mask: number;

  constructor(settings: ProtectionSettings) {
    const seen = new Set<string>();
    let longest = 1;
    const add = (raw: string, kind: 'word' | 'avoid') => {
      const text = raw.trim();
      if (text === '') return;
      const cps = Array.from(text, (char) => fold(char.codePointAt(0) as number));
      const key = String.fromCodePoint(...cps);
      if (seen.has(key)) return;
      seen.add(key);
      let state = 0;
      for (const cp of cps) {
        let next = this.children[state]!.get(cp);
        if (next === undefined) {
          next = this.children.length;
          this.children.push(new Map());
          this.out.push(-1);
          this.children[state]!.set(cp, next);
        }
        state = next;
      }
      this.out[state] = this.terms.length;
      this.terms.push({ text, kind, length: cps.length, wordStart: isWordCp(cps[0]!), wordEnd: isWordCp(cps[cps.length - 1]!) });
      longest = Math.max(longest, cps.length);
    };
    for (const word of settings.words) add(word, 'word');
    for (const topic of settings.avoid) add(topic, 'avoid');
    let size = 1;
    while (size <= longest) size *= 2;
    this.mask = size - 1;
    this.link();
  }

  /** Failure and output links, breadth first. */
  private link(): void {
    const count = this.children.length;
    this.fail = new Int32Array(count);
    this.dict = new Int32Array(count);
    this.dictOpenEnd = new Int32Array(count);
    const queue: number[] = [];
    for (const child of this.children[0]!.values()) queue.push(child);
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      const f = this.fail[state]!;
      const fOut = this.out[f]!;
      this.dict[state] = fOut >= 0 ? f : this.dict[f]!;
      this.dictOpenEnd[state] = fOut >= 0 && !this.terms[fOut]!.wordEnd ? f : this.dictOpenEnd[f]!;
      for (const [cp, child] of this.children[state]!) {
        let g = f;
        let target = this.children[g]!.get(cp);
        while (target === undefined && g !== 0) {
          g = this.fail[g]!;
          target = this.children[g]!.get(cp);
        }
        this.fail[child] = target !== undefined && target !== child ? target : 0;
        queue.push(child);
      }
    }
  }

  first(content: string): ProtectionMatch | null {
    if (this.terms.length === 0) return null;
    // Start offsets of the last code points read, to turn a term's length into a start offset.
    const starts = new Int32Array(this.mask + 1);
    let state = 0;
    let read = 0;
    for (let i = 0; i < content.length; ) {
      const raw = content.codePointAt(i) as number;
      const width = raw > 0xffff ? 2 : 1;
      const cp = fold(raw);
      starts[read & this.mask] = i;
      let next = this.children[state]!.get(cp);
      while (next === undefined && state !== 0) {
        state = this.fail[state]!;
        next = this.children[state]!.get(cp);
      }
      state = next ?? 0;
      i += width;
      read += 1;
      if (state === 0) continue;
      const here = this.out[state]!;
      if (here < 0 && this.dict[state] === 0) continue;
      // A word character next means no term ending in a word character can end here.
      const nextIsWord = i < content.length && isWordCp(content.codePointAt(i) as number);
      let candidate = here >= 0 && !(nextIsWord && this.terms[here]!.wordEnd) ? state : nextIsWord ? this.dictOpenEnd[state]! : this.dict[state]!;
      while (candidate !== 0) {
        const term = this.terms[this.out[candidate]!]!;
        const start = starts[(read - term.length) & this.mask]!;
        if (!term.wordStart || start === 0 || !isWordCp(codePointBefore(content, start))) {
          return { term: term.text, start, end: i, kind: term.kind };
        }
        candidate = nextIsWord ? this.dictOpenEnd[candidate]! : this.dict[candidate]!;
      }
    }
    return null;
  }
}

function codePointBefore(content: string, index: number): number {
  const low = content.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = content.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
  }
  return low;
}
