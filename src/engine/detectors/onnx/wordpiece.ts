// BERT WordPiece tokenisation over a model's vocab.txt (uncased: lower-cased, accents stripped,
// punctuation split, control and invisible format characters dropped so that a zero-width space
// does not split a word), for the ONNX models the detectors run. Token offsets point into the text as
// given, so a classifier can say which part of a long text it flagged.

/** Longer words are one [UNK], as in BERT's own tokenizer; it also bounds the greedy search. */
const MAX_WORD_CHARS = 100;

/** Words (invisible format characters inside them included) and single punctuation marks of the original text. */
const WORD = /[\p{L}\p{N}\p{M}\p{Cf}]+|[^\s\p{L}\p{N}\p{M}\p{Cf}\p{Cc}]/gu;
/** The same split after normalisation (a spacing mark left over stands alone). */
const BASIC = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

export interface Tokens {
  ids: number[];
  /** Offsets in the given text of the word each token comes from (end exclusive). */
  starts: number[];
  ends: number[];
}

export class WordPiece {
  private readonly ids: Map<string, number>;
  readonly cls: number;
  readonly sep: number;
  private readonly unk: number;
  /** Longest sequence encode() returns, [CLS] and [SEP] included. */
  readonly maxTokens: number;

  constructor(vocabulary: readonly string[], options: { maxTokens?: number } = {}) {
    this.ids = new Map(vocabulary.map((token, index) => [token, index]));
    const id = (token: string) => {
      const found = this.ids.get(token);
      if (found === undefined) throw new Error(`the vocabulary has no ${token} token`);
      return found;
    };
    this.cls = id('[CLS]');
    this.sep = id('[SEP]');
    this.unk = id('[UNK]');
    this.maxTokens = options.maxTokens ?? 128;
  }

  /** Token ids with [CLS] and [SEP], at most maxTokens. */
  encode(text: string): number[] {
    return [this.cls, ...this.tokenize(text, this.maxTokens - 2).ids, this.sep];
  }

  /** The first `limit` tokens of a text, without [CLS] and [SEP]; stops reading at the limit. */
  tokenize(text: string, limit: number): Tokens {
    const out: Tokens = { ids: [], starts: [], ends: [] };
    const words = new RegExp(WORD.source, WORD.flags);
    for (let match = words.exec(text); match !== null && out.ids.length < limit; match = words.exec(text)) {
      const start = match.index;
      const end = start + match[0].length;
      const basic = match[0].normalize('NFD').replace(/[\p{Mn}\p{Cf}]/gu, '').toLowerCase().match(BASIC) ?? [];
      for (const word of basic) {
        for (const id of this.pieces(word)) {
          if (out.ids.length >= limit) break;
          out.ids.push(id);
          out.starts.push(start);
          out.ends.push(end);
        }
      }
    }
    return out;
  }

  /** Greedy longest-match-first sub-words of one word; [UNK] when it cannot be split. */
  private pieces(word: string): number[] {
    if (word.length > MAX_WORD_CHARS) return [this.unk];
    const parts: number[] = [];
    let start = 0;
    while (start < word.length) {
      let end = word.length;
      let found: number | undefined;
      while (end > start) {
        found = this.ids.get((start > 0 ? '##' : '') + word.slice(start, end));
        if (found !== undefined) break;
        end -= 1;
      }
      if (found === undefined) return [this.unk];
      parts.push(found);
      start = end;
    }
    return parts;
  }
}
