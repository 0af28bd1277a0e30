// The optional embedding backend of injection.similarity: a sentence-embedding model in ONNX form,
// run by `onnxruntime-node` (an optional package the operator installs), from the local folder in
// `similarity_model_path`: `model.onnx` and the BERT WordPiece `vocab.txt` beside it (for example
// an export of a MiniLM sentence model). Weights are never fetched: a missing package, file or
// vocabulary makes the detector unavailable with the reason (checks, runtime and tokenizer shared
// with injection.classifier in ../onnx/). The model and the corpus embeddings are loaded once at
// start; each check embeds the text's pieces (detector.ts) and compares them with the corpus by
// cosine (mean pooling over the last hidden state, L2-normalised).
import { bertFeeds, openLocalModel, type OnnxOutput, type OnnxRuntime } from '../onnx/runtime.js';
import type { SimilarityBackend } from './backend.js';
import { CORPUS_ENTRIES } from './corpus.js';
import { pieces, similarityDetection } from './detector.js';

/** Cosine at or above which a piece counts as a known attack with an embedding model (not tuned here: see README.md). */
export const EMBEDDING_THRESHOLD = 0.75;
const MAX_TOKENS = 128;
/** Pieces embedded per check at most; a longer text has its first pieces compared. */
const MAX_PIECES = 64;

function unavailable(reason: string): SimilarityBackend {
  return {
    method: 'embedding cosine',
    threshold: EMBEDDING_THRESHOLD,
    available: () => ({ available: false, reason }),
    detect: () => {
      throw new Error(`injection.similarity: not available (${reason})`);
    },
  };
}

/** Mean of the token vectors under the attention mask, L2-normalised; a pooled [1, H] output as it is. */
export function pool(output: OnnxOutput, tokens: number): Float32Array {
  const hidden = output.dims[output.dims.length - 1] as number;
  const vector = new Float32Array(hidden);
  const rows = output.dims.length === 3 ? Math.min(tokens, output.dims[1] as number) : 1;
  for (let row = 0; row < rows; row += 1) for (let k = 0; k < hidden; k += 1) vector[k] = (vector[k] as number) + Number(output.data[row * hidden + k]);
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (let k = 0; k < hidden; k += 1) vector[k] = (vector[k] as number) / norm;
  return vector;
}

const dot = (a: Float32Array, b: Float32Array) => {
  let sum = 0;
  for (let k = 0; k < a.length; k += 1) sum += (a[k] as number) * (b[k] as number);
  return sum;
};

/**
 * The embedding backend for the model at `modelPath` (a folder with model.onnx and vocab.txt, or
 * the .onnx file with vocab.txt beside it); an unavailable backend that says why when it cannot load.
 */
export async function loadEmbeddingBackend(modelPath: string, runtime?: OnnxRuntime | null): Promise<SimilarityBackend> {
  const model = await openLocalModel('similarity_model_path', modelPath, runtime, { maxTokens: MAX_TOKENS });
  if (!model.ok) return unavailable(model.reason);
  const { ort, session, tokenizer, modelFile } = model;

  const embed = async (text: string): Promise<Float32Array> => {
    const ids = tokenizer.encode(text);
    const outputs = await session.run(bertFeeds(ort, session, ids));
    const output = outputs[session.outputNames[0] as string];
    if (output === undefined) throw new Error('the model returned no output');
    return pool(output, ids.length);
  };

  let corpus: Float32Array[];
  try {
    corpus = [];
    for (const entry of CORPUS_ENTRIES) corpus.push(await embed(entry.text));
  } catch (error) {
    return unavailable(`the embedding model at ${modelFile} could not embed the attack corpus: ${(error as Error).message}`);
  }

  return {
    method: 'embedding cosine',
    threshold: EMBEDDING_THRESHOLD,
    available: () => ({ available: true }),
    async detect(text, context) {
      let best = { index: -1, similarity: 0, piece: { start: 0, end: 0 } };
      for (const piece of pieces(text).slice(0, MAX_PIECES)) {
        if (context.deadline !== undefined && Date.now() > context.deadline) break;
        const vector = await embed(text.slice(piece.start, piece.end));
        corpus.forEach((known, index) => {
          const similarity = dot(vector, known);
          if (similarity > best.similarity) best = { index, similarity, piece };
        });
      }
      if (best.index < 0 || best.similarity < EMBEDDING_THRESHOLD) return [];
      return [similarityDetection(best.piece, best.index, best.similarity, EMBEDDING_THRESHOLD, 'embedding cosine')];
    },
  };
}
