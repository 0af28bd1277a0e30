// Hashed character n-gram vectors and an inverted index over the attack corpus: the offline method
// of injection.similarity. Text is folded (NFKC, lower case, every run of non-letters and
// non-digits to one space, function words dropped), its 4- and 5-grams hashed (FNV-1a) into 2^16
// dimensions with sublinear term frequency, and compared by cosine. The corpus side is an inverted
// index, so one segment costs its own grams times their posting lists, not the corpus size.
// Hot path: no I/O; typed arrays reused across calls (single-threaded).

export const DIMENSIONS = 1 << 16;
const MASK = DIMENSIONS - 1;
const MIN_GRAM = 4;
const MAX_GRAM = 5;
/**
 * Pieces with fewer distinct grams (about 30 letters of content words) score 0: a lone word such as
 * "instructions" would otherwise match a corpus entry by itself.
 */
const MIN_DISTINCT_GRAMS = 60;

/**
 * English function words: they carry no sign of an attack and would make any two sentences look
 * alike, so they are left out before the grams are taken.
 */
const STOPWORDS = new Set(
  ('a an the and or but if then so of to in on at by for with from as into about than this that these those it its ' +
    'is are was were be been being am do does did have has had will would can could should may might must shall ' +
    'i me my we our you your he she his her they them their what which who whom how when where why there here ' +
    'not no all any each some such very just also only own same too up out over again more most other please').split(' '),
);

/** Lower-cased, compatibility-folded words without function words, joined by single spaces. */
export function fold(text: string): string {
  const words = text.normalize('NFKC').toLowerCase().split(/[^\p{L}\p{N}]+/u);
  let out = ' ';
  for (const word of words) if (word !== '' && !STOPWORDS.has(word)) out += `${word} `;
  return out;
}

/** Term frequencies of the folded text's grams, accumulated into `weights` (touched dimensions listed once). */
function countGrams(folded: string, weights: Float32Array, touched: number[]): void {
  const length = folded.length;
  for (let start = 0; start + MIN_GRAM <= length; start += 1) {
    let hash = 0x811c9dc5;
    const last = Math.min(length, start + MAX_GRAM);
    for (let index = start; index < last; index += 1) {
      hash = Math.imul(hash ^ folded.charCodeAt(index), 0x01000193);
      if (index - start + 1 >= MIN_GRAM) {
        // The gram size goes into the hash so that "abc" as a 3-gram and inside a 4-gram differ.
        const dimension = (hash ^ (index - start)) & MASK;
        if (weights[dimension] === 0) touched.push(dimension);
        weights[dimension] = (weights[dimension] as number) + 1;
      }
    }
  }
}

/** Sublinear weights (1 + ln tf) in place; returns the vector's norm. */
function dampen(weights: Float32Array, touched: readonly number[]): number {
  let sum = 0;
  for (const dimension of touched) {
    const weight = 1 + Math.log(weights[dimension] as number);
    weights[dimension] = weight;
    sum += weight * weight;
  }
  return Math.sqrt(sum);
}

/** An inverted index of unit vectors: per dimension, the entries that have it and their weight. */
export class NgramIndex {
  private readonly offsets: Int32Array;
  private readonly postingEntry: Int32Array;
  private readonly postingWeight: Float32Array;
  private readonly scratch = new Float32Array(DIMENSIONS);
  private readonly accumulator: Float32Array;
  readonly size: number;

  constructor(texts: readonly string[]) {
    this.size = texts.length;
    this.accumulator = new Float32Array(texts.length);
    const vectors: Array<{ dims: number[]; weights: number[] }> = [];
    const counts = new Int32Array(DIMENSIONS + 1);
    for (const text of texts) {
      const touched: number[] = [];
      countGrams(fold(text), this.scratch, touched);
      const norm = dampen(this.scratch, touched) || 1;
      vectors.push({ dims: touched, weights: touched.map((d) => (this.scratch[d] as number) / norm) });
      for (const d of touched) {
        counts[d + 1] = (counts[d + 1] as number) + 1;
        this.scratch[d] = 0;
      }
    }
    for (let d = 0; d < DIMENSIONS; d += 1) counts[d + 1] = (counts[d + 1] as number) + (counts[d] as number);
    this.offsets = counts;
    const total = counts[DIMENSIONS] as number;
    this.postingEntry = new Int32Array(total);
    this.postingWeight = new Float32Array(total);
    const fill = Int32Array.from(counts.subarray(0, DIMENSIONS));
    vectors.forEach(({ dims, weights }, entry) => {
      dims.forEach((d, k) => {
        const at = fill[d] as number;
        this.postingEntry[at] = entry;
        this.postingWeight[at] = weights[k] as number;
        fill[d] = at + 1;
      });
    });
  }

  /**
   * The corpus entry most similar (cosine) to the folded text, and its similarity (0 for texts
   * with fewer than `minGrams` distinct grams).
   */
  best(folded: string, minGrams = MIN_DISTINCT_GRAMS): { entry: number; similarity: number } {
    const touched: number[] = [];
    const { scratch, accumulator } = this;
    countGrams(folded, scratch, touched);
    if (touched.length < minGrams) {
      for (const d of touched) scratch[d] = 0;
      return { entry: -1, similarity: 0 };
    }
    const norm = dampen(scratch, touched);
    accumulator.fill(0);
    for (const d of touched) {
      const weight = scratch[d] as number;
      scratch[d] = 0;
      const end = this.offsets[d + 1] as number;
      for (let k = this.offsets[d] as number; k < end; k += 1) {
        const entry = this.postingEntry[k] as number;
        accumulator[entry] = (accumulator[entry] as number) + weight * (this.postingWeight[k] as number);
      }
    }
    let entry = -1;
    let similarity = 0;
    for (let index = 0; index < accumulator.length; index += 1) {
      if ((accumulator[index] as number) > similarity) {
        similarity = accumulator[index] as number;
        entry = index;
      }
    }
    return { entry, similarity: similarity / norm };
  }
}
