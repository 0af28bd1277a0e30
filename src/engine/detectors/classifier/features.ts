// Hashed n-gram features shared by the training script (scripts/train-injection-classifier.ts)
// and the detector, so that both see exactly the same vector. No allocation per n-gram: hashes
// are rolled over character codes (FNV-1a, then a murmur finaliser) straight into bucket indices.

/** How one model turns text into features; stored in the weight file beside the weights. */
export interface FeatureSpec {
  /** log2 of the number of hash buckets. */
  bits: number;
  /** Hash seed: two models with different seeds do not share collisions. */
  seed: number;
  /** Character n-gram lengths [min, max] over the normalised text; [0, 0] for none. */
  chars: [number, number];
  /** Longest word n-gram (1 = unigrams, 2 = uni- and bigrams); 0 for none. */
  words: number;
}

/** A sparse feature vector: bucket indices and their values. */
export interface SparseVector {
  indices: Int32Array;
  values: Float32Array;
}

const FNV_PRIME = 0x01000193;

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// Invisible format characters (zero-width, bidi controls, word joiners, BOM, tag characters) carry
// no meaning for the model and are a known way to split trigger words.
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]|\udb40[\udc00-\udc7f]/g;
const DIGITS = /[0-9]/g;
// Linear-time: one class per run, and a line break checked with at most one space before it.
const SPACES = /[^\S\n]+/g;
const BREAKS = / ?\n[\n ]*/g;

/**
 * The text the n-grams are taken from: NFKC (folds full-width and compatibility forms), lower
 * case, invisible characters dropped, every digit as 0 (ids and dates are not signal), runs of
 * white space as one space (one line break when they hold one: lines are scored on their own),
 * padded with a space so that word edges show in character n-grams.
 */
export function normalise(text: string): string {
  return ` ${text.normalize('NFKC').toLowerCase().replace(INVISIBLE, '').replace(DIGITS, '0').replace(SPACES, ' ').replace(BREAKS, '\n').trim()} `;
}

/** Letters and digits of any script are word characters; ASCII punctuation, spaces and general punctuation are not. */
function isWordChar(code: number): boolean {
  if (code < 0x80) return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x5f;
  if (code >= 0x2000 && code <= 0x206f) return false;
  if (code >= 0x3000 && code <= 0x303f) return false;
  if (code >= 0xff00 && code <= 0xff0f) return false;
  return code !== 0xa0 && code !== 0xab && code !== 0xbb && code !== 0xbf && code !== 0xa1;
}

/**
 * Walks the n-grams of a normalised text. A text's feature vector is each bucket's count over the
 * square root of the number of n-gram occurrences (the L2 norm when no n-gram repeats), so a
 * model's dot product is a sum of weights over that root; because each occurrence sits at a
 * position, the same sum over any window of the text follows from prefix sums, so windows cost
 * nothing extra.
 */
export class Featurizer {
  readonly spec: FeatureSpec;
  private readonly mask: number;

  constructor(spec: FeatureSpec) {
    this.spec = spec;
    this.mask = (1 << spec.bits) - 1;
  }

  /**
   * Adds each n-gram's weight to `sums[p + 1]` and 1 to `counts[p + 1]`, where p is the position
   * where the n-gram starts (a word n-gram: where its last word starts). With `buckets` given
   * instead, pushes the bucket of every occurrence there (training).
   */
  walk(normalised: string, weights: Int8Array | Float32Array | null, sums: Float64Array | null, counts: Float64Array | null, buckets?: number[]): void {
    const { seed, chars, words } = this.spec;
    const mask = this.mask;
    const length = normalised.length;
    const [minN, maxN] = chars;
    if (maxN > 0) {
      for (let i = 0; i + minN <= length; i++) {
        let h = (seed ^ 0x811c9dc5) >>> 0;
        const top = Math.min(maxN, length - i);
        let sum = 0;
        let n = 0;
        for (let k = 0; k < top; k++) {
          h = Math.imul(h ^ normalised.charCodeAt(i + k), FNV_PRIME);
          if (k + 1 < minN) continue;
          const bucket = fmix(h ^ (k + 1)) & mask;
          if (buckets !== undefined) buckets.push(bucket);
          else sum += (weights as Int8Array | Float32Array)[bucket] as number;
          n += 1;
        }
        if (sums !== null && counts !== null) {
          sums[i + 1] = (sums[i + 1] as number) + sum;
          counts[i + 1] = (counts[i + 1] as number) + n;
        }
      }
    }
    if (words > 0) {
      // Rolling word hashes: the previous words' hashes are kept for n-grams up to `words` long.
      let prev1 = 0;
      let prev2 = 0;
      let seen = 0;
      let h = 0;
      let wordStart = 0;
      let inWord = false;
      for (let i = 0; i <= length; i++) {
        const code = i < length ? normalised.charCodeAt(i) : 0x20;
        if (isWordChar(code)) {
          if (!inWord) {
            h = (seed ^ 0x9747b28c) >>> 0;
            inWord = true;
            wordStart = i;
          }
          h = Math.imul(h ^ code, FNV_PRIME);
          continue;
        }
        if (!inWord) continue;
        inWord = false;
        const word = fmix(h);
        let sum = 0;
        let n = 0;
        for (let gram = 1; gram <= words && gram <= seen + 1; gram++) {
          const hash = gram === 1 ? word ^ 0x1000193 : gram === 2 ? Math.imul(prev1, 31) ^ word ^ 0x2000000 : Math.imul(Math.imul(prev2, 31) ^ prev1, 31) ^ word ^ 0x3000000;
          const bucket = fmix(hash) & mask;
          if (buckets !== undefined) buckets.push(bucket);
          else sum += (weights as Int8Array | Float32Array)[bucket] as number;
          n += 1;
        }
        if (sums !== null && counts !== null) {
          sums[wordStart + 1] = (sums[wordStart + 1] as number) + sum;
          counts[wordStart + 1] = (counts[wordStart + 1] as number) + n;
        }
        prev2 = prev1;
        prev1 = word;
        seen += 1;
      }
    }
  }

  /** The text's sparse vector: each bucket's count over the square root of the number of n-grams (for training). */
  vector(normalised: string): SparseVector {
    const buckets: number[] = [];
    this.walk(normalised, null, null, null, buckets);
    const tally = new Map<number, number>();
    for (const bucket of buckets) tally.set(bucket, (tally.get(bucket) ?? 0) + 1);
    const indices = new Int32Array(tally.size);
    const values = new Float32Array(tally.size);
    let j = 0;
    for (const [bucket, count] of tally) {
      indices[j] = bucket;
      values[j] = count / Math.sqrt(buckets.length);
      j += 1;
    }
    return { indices, values };
  }
}
