// The shipped injection classifier's weight file (models/injection-classifier.json) and its
// inference: two logistic-regression models over hashed n-grams (features.ts), a primary and a
// high-threshold backstop on different features (spec 01 §2.4). Weights are int8 with one scale
// per model, base64 in JSON, so the file stays small and is read once at start.
import { Featurizer, normalise, type FeatureSpec } from './features.js';

export const MODEL_FORMAT = 'parapet-injection-classifier/1';

/** Lines shorter than this (normalised characters) are not scored on their own. */
const MIN_LINE = 40;

/** One model as stored. */
export interface StoredModel {
  features: FeatureSpec;
  bias: number;
  /** Weight = int8 value × scale. */
  scale: number;
  /** Probability at or over which this model flags. */
  threshold: number;
  /** base64 of the int8 weights, 2^bits of them. */
  weights: string;
}

export interface StoredClassifier {
  format: typeof MODEL_FORMAT;
  /** How and from what the file was built (for the record; not read by inference). */
  training: Record<string, unknown>;
  /** Texts longer than this are also scored in windows of this many characters (half overlapping). */
  window: number;
  /** The primary's threshold for parts of a text (windows and lines). */
  part_threshold: number;
  primary: StoredModel;
  backstop: StoredModel;
}

/** A model ready to score: its weights (int8 with a scale, or float with scale 1) and featurizer. */
export class LinearModel {
  readonly featurizer: Featurizer;

  constructor(
    features: FeatureSpec,
    readonly weights: Int8Array | Float32Array,
    readonly scale: number,
    readonly bias: number,
    readonly threshold: number,
  ) {
    if (weights.length !== 1 << features.bits) throw new Error(`expected ${1 << features.bits} weights, got ${weights.length}`);
    this.featurizer = new Featurizer(features);
  }

  static fromStored(stored: StoredModel): LinearModel {
    const bytes = Buffer.from(stored.weights, 'base64');
    const weights = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length).slice();
    return new LinearModel(stored.features, weights, stored.scale, stored.bias, stored.threshold);
  }

  /** Prefix sums of n-gram weights and counts by position of the (normalised) text. */
  prefix(normalised: string): { sums: Float64Array; counts: Float64Array } {
    const sums = new Float64Array(normalised.length + 1);
    const counts = new Float64Array(normalised.length + 1);
    this.featurizer.walk(normalised, this.weights, sums, counts);
    for (let i = 1; i <= normalised.length; i++) {
      sums[i] = (sums[i] as number) + (sums[i - 1] as number);
      counts[i] = (counts[i] as number) + (counts[i - 1] as number);
    }
    return { sums, counts };
  }

  /** Probability for the n-grams starting in [from, to) of a text, from its prefix sums. */
  windowProbability(prefix: { sums: Float64Array; counts: Float64Array }, from: number, to: number): number {
    const n = (prefix.counts[to] as number) - (prefix.counts[from] as number);
    const sum = (prefix.sums[to] as number) - (prefix.sums[from] as number);
    return sigmoid(this.bias + (n === 0 ? 0 : (this.scale * sum) / Math.sqrt(n)));
  }
}

export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** int8 quantisation with one scale (largest magnitude → 127). */
export function quantise(weights: Float32Array): { scale: number; bytes: Buffer } {
  let max = 0;
  for (const w of weights) max = Math.max(max, Math.abs(w));
  const scale = max === 0 ? 1 : max / 127;
  const bytes = Buffer.alloc(weights.length);
  for (let i = 0; i < weights.length; i++) bytes[i] = Math.round((weights[i] as number) / scale) & 0xff;
  return { scale, bytes };
}

export interface Verdict {
  /** Primary probability of the whole text. */
  primary: number;
  /** Highest primary probability over the parts (windows and lines); 0 when there are none. */
  primaryPart: number;
  /** Highest backstop probability over the whole text and its parts. */
  backstop: number;
  flagged: boolean;
  /** Which model flagged: the primary over its threshold, or the backstop over its high one. */
  by: 'primary' | 'backstop' | null;
  /** The flagging model's probability and the threshold it passed (0 and 1 when not flagged). */
  probability: number;
  threshold: number;
  /** Where the part that scored highest over its threshold is (the whole text when none did better). */
  start: number;
  end: number;
}

/**
 * Scores a text: the whole of it and its parts: when it is longer than `window` (normalised
 * characters), half-overlapping windows, and each line long enough to carry an instruction (a
 * field of a record, a line of a page), so that a short instruction planted in a long record is
 * not diluted by the rest. Parts have their own, higher primary threshold (a text has many parts,
 * so one of them looks odd more often). The text is normalised and walked once per model; parts
 * come from prefix sums.
 */
export class InjectionClassifier {
  constructor(
    readonly primary: LinearModel,
    readonly backstop: LinearModel,
    readonly window: number,
    /** Primary threshold for parts. */
    readonly partThreshold: number,
  ) {}

  static fromStored(stored: StoredClassifier): InjectionClassifier {
    if (stored.format !== MODEL_FORMAT) throw new Error(`unknown classifier format ${String(stored.format)}`);
    return new InjectionClassifier(LinearModel.fromStored(stored.primary), LinearModel.fromStored(stored.backstop), stored.window, stored.part_threshold);
  }

  /** `backstopOnly`: the backstop alone (beside an operator's ONNX model, which replaces the primary). */
  score(text: string, backstopOnly = false): Verdict {
    const normalised = normalise(text);
    const length = normalised.length;
    const primary = backstopOnly ? null : this.primary.prefix(normalised);
    const backstop = this.backstop.prefix(normalised);
    const whole = primary === null ? 0 : this.primary.windowProbability(primary, 0, length);
    const verdict: Verdict = { primary: whole, primaryPart: 0, backstop: 0, flagged: false, by: null, probability: 0, threshold: 1, start: 0, end: text.length };
    // The best candidate so far: how far over its threshold, and where.
    let best = -Infinity;
    let bestFrom = 0;
    let bestTo = length;
    const candidate = (by: 'primary' | 'backstop', probability: number, threshold: number, from: number, to: number) => {
      if (probability - threshold <= best) return;
      best = probability - threshold;
      bestFrom = from;
      bestTo = to;
      if (probability >= threshold) Object.assign(verdict, { by, probability, threshold });
    };
    if (primary !== null) candidate('primary', whole, this.primary.threshold, 0, length);
    const considerBackstop = (from: number, to: number) => {
      const q = this.backstop.windowProbability(backstop, from, to);
      if (q > verdict.backstop) verdict.backstop = q;
      candidate('backstop', q, this.backstop.threshold, from, to);
    };
    considerBackstop(0, length);
    const considerPart = (from: number, to: number) => {
      if (primary !== null) {
        const p = this.primary.windowProbability(primary, from, to);
        if (p > verdict.primaryPart) verdict.primaryPart = p;
        candidate('primary', p, this.partThreshold, from, to);
      }
      considerBackstop(from, to);
    };
    if (this.window > 0 && length > this.window) {
      const step = Math.max(1, Math.floor(this.window / 2));
      for (let from = 0; from < length - step; from += step) considerPart(from, Math.min(length, from + this.window));
    }
    if (normalised.includes('\n')) {
      let from = 0;
      while (from < length) {
        let to = normalised.indexOf('\n', from);
        if (to === -1) to = length;
        if (to - from >= MIN_LINE && (from > 0 || to < length)) considerPart(from, to);
        from = to + 1;
      }
    }
    verdict.flagged = verdict.by !== null;
    // Part bounds are in the normalised text; map them back in proportion, widened by half a
    // window, so the span covers the flagged passage in the original.
    if (verdict.flagged && (bestFrom > 0 || bestTo < length)) {
      const ratio = text.length / length;
      const pad = Math.floor(this.window / 2);
      verdict.start = Math.max(0, Math.floor(bestFrom * ratio) - pad);
      verdict.end = Math.min(text.length, Math.ceil(bestTo * ratio) + pad);
    }
    return verdict;
  }
}
