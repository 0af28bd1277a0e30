// Hot path: no I/O here. injection.similarity (opt-in, spec 01 §2.4): how close the checked text
// comes to a corpus of known attacks (corpus.ts). The text is cut into sentences, runs of short
// sentences joined, long ones cut into overlapping windows; each piece is compared with every
// corpus entry by cosine over hashed character n-grams (ngram.ts). The closest piece at or above
// SIMILARITY_THRESHOLD is reported as INJECTION.SEMANTIC_SIMILARITY, at most one per text.
//
// Score: the similarity mapped onto [0.7, 0.99] from the threshold up, so a reported match reaches
// the baseline pack's injection thresholds (0.7 on input, 0.6 elsewhere); the raw cosine and the
// corpus technique are in the explanation. With `similarity_model_path` set, an ONNX sentence
// embedding model replaces the n-grams (embedding.ts, bound at start by index.ts).
//
// Cost: linear in the text (a few dozen operations per character); the segmenter is a single
// linear regex. The threshold was chosen on the development set (README.md): benign files stay at
// or under 2% false positives.
import { INJECTION_SURFACES_FOR_SIMILARITY, type SimilarityBackend } from './backend.js';
import { CORPUS_ENTRIES } from './corpus.js';
import { NgramIndex, fold } from './ngram.js';
import type { Availability, Detection, DetectContext, Detector } from '../types.js';

/** Cosine at or above which a piece counts as a known attack (n-gram backend). */
export const SIMILARITY_THRESHOLD = 0.38;
const REPORTED_FLOOR = 0.7;
const REPORTED_CEILING = 0.99;

/** Pieces shorter than this are joined with the next sentence; longer ones are cut into windows. */
const MIN_PIECE = 80;
const MAX_PIECE = 360;
const WINDOW_STEP = 180;
const DEADLINE_CHECK_EVERY = 32;

/**
 * A sentence: up to and including its end punctuation, a line break, an escaped line break (`\\n`
 * inside quoted JSON or YAML) or a structural character (quotes, brackets, pipes), so that a field
 * of a record is compared without its neighbours. Linear: one negated class, then terminators that
 * the class excludes.
 */
const SENTENCE = /[^.!?\n\r"{}[\]<>|\\]*(?:[.!?]+|[\n\r"{}[\]<>|]+|(?:\\[nrt]?)+|$)/gy;

export interface Piece {
  start: number;
  end: number;
}

/** Sentences of the text, short ones joined, long ones cut into overlapping windows. */
export function pieces(text: string): Piece[] {
  const sentences: Piece[] = [];
  let pending: Piece | null = null;
  SENTENCE.lastIndex = 0;
  while (SENTENCE.lastIndex < text.length) {
    const start = SENTENCE.lastIndex;
    const match = SENTENCE.exec(text);
    if (match === null || SENTENCE.lastIndex === start) {
      SENTENCE.lastIndex = start + 1;
      continue;
    }
    const end = SENTENCE.lastIndex;
    const piece: Piece = pending === null ? { start, end } : { start: pending.start, end };
    if (piece.end - piece.start < MIN_PIECE) pending = piece;
    else {
      sentences.push(piece);
      pending = null;
    }
  }
  if (pending !== null) sentences.push(pending);

  const out: Piece[] = [];
  for (const sentence of sentences) {
    const length = sentence.end - sentence.start;
    if (length > MAX_PIECE) {
      for (let start = sentence.start; start < sentence.end; start += WINDOW_STEP) {
        out.push({ start, end: Math.min(sentence.end, start + MAX_PIECE) });
        if (start + MAX_PIECE >= sentence.end) break;
      }
      continue;
    }
    out.push(sentence);
  }
  return out;
}

let ngramIndex: NgramIndex | null = null;
const index = (): NgramIndex => (ngramIndex ??= new NgramIndex(CORPUS_ENTRIES.map((entry) => entry.text)));

/** The best-matching piece of the text by n-gram cosine: its span, corpus entry and similarity. */
export function closestPiece(text: string, deadline?: number): { piece: Piece; entry: number; similarity: number } | null {
  const ngrams = index();
  let best: { piece: Piece; entry: number; similarity: number } | null = null;
  const all = pieces(text);
  for (let position = 0; position < all.length; position += 1) {
    if (deadline !== undefined && position % DEADLINE_CHECK_EVERY === DEADLINE_CHECK_EVERY - 1 && Date.now() > deadline) break;
    const piece = all[position] as Piece;
    const found = ngrams.best(fold(text.slice(piece.start, piece.end)));
    if (found.entry >= 0 && (best === null || found.similarity > best.similarity)) best = { piece, entry: found.entry, similarity: found.similarity };
  }
  return best;
}

/** The reported score: the threshold maps to 0.7, a perfect match to 0.99. */
export function reportedScore(similarity: number, threshold: number): number {
  const scaled = REPORTED_FLOOR + ((REPORTED_CEILING - REPORTED_FLOOR) * (similarity - threshold)) / (1 - threshold);
  return Math.round(Math.min(REPORTED_CEILING, Math.max(REPORTED_FLOOR, scaled)) * 1000) / 1000;
}

function detection(piece: Piece, entry: number, similarity: number, threshold: number, method: string): Detection {
  const known = CORPUS_ENTRIES[entry];
  return {
    entity: 'INJECTION.SEMANTIC_SIMILARITY',
    score: reportedScore(similarity, threshold),
    start: piece.start,
    end: piece.end,
    explanation: `close to a known ${known?.technique ?? 'attack'} prompt of the corpus (${method} similarity ${similarity.toFixed(3)}, threshold ${threshold})`,
    pattern: `corpus:${known?.technique ?? 'unknown'}#${entry}`,
  };
}

export const ngramBackend: SimilarityBackend = {
  method: 'n-gram cosine',
  threshold: SIMILARITY_THRESHOLD,
  available: () => ({ available: true }),
  detect(text, context) {
    const best = closestPiece(text, context.deadline);
    if (best === null || best.similarity < SIMILARITY_THRESHOLD) return [];
    return [detection(best.piece, best.entry, best.similarity, SIMILARITY_THRESHOLD, 'n-gram cosine')];
  },
  warmUp: () => {
    index();
  },
};

/** injection.similarity over a backend: the n-gram one by default, the embedding model when configured (index.ts). */
export function createSimilarityDetector(backend: SimilarityBackend): Detector {
  const detector: Detector = {
    key: 'injection.similarity',
    surfaces: INJECTION_SURFACES_FOR_SIMILARITY,
    entityTypes: ['INJECTION.SEMANTIC_SIMILARITY'],
    costRank: 52,
    timeoutMs: 150,
    optIn: true,
    available: (): Availability => backend.available(),
    detect: (text: string, context: DetectContext) => backend.detect(text, context),
  };
  if (backend.warmUp !== undefined) detector.warmUp = backend.warmUp;
  return detector;
}

export const injectionSimilarity: Detector = createSimilarityDetector(ngramBackend);

export { detection as similarityDetection };
