// The optional embedding backend of injection.similarity: a sentence-embedding model in ONNX form,
// run by `onnxruntime-node` (an optional package the operator installs), from the local folder in
// `similarity_model_path`: `model.onnx` and the BERT WordPiece `vocab.txt` beside it (for example
// an export of a MiniLM sentence model). Weights are never fetched: a missing package, file or
// vocabulary makes the detector unavailable with the reason. The model and the corpus embeddings
// are loaded once at start; each check embeds the text's pieces (detector.ts) and compares them
// with the corpus by cosine (mean pooling over the last hidden state, L2-normalised).
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SimilarityBackend } from './backend.js';
import { CORPUS_ENTRIES } from './corpus.js';
import { pieces, similarityDetection } from './detector.js';

/** Cosine at or above which a piece counts as a known attack with an embedding model (not tuned here: see README.md). */
export const EMBEDDING_THRESHOLD = 0.75;
const MAX_TOKENS = 128;
/** Pieces embedded per check at most; a longer text has its first pieces compared. */
const MAX_PIECES = 64;

/** The part of onnxruntime-node this module uses. */
export interface OnnxRuntime {
  InferenceSession: { create(modelPath: string): Promise<OnnxSession> };
  Tensor: new (type: 'int64', data: BigInt64Array, dims: readonly number[]) => unknown;
}
export interface OnnxSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, unknown>): Promise<Record<string, { data: ArrayLike<number>; dims: readonly number[] }>>;
}

/** BERT WordPiece over a vocabulary (lower-cased, accents stripped, punctuation split). */
export class WordPiece {
  private readonly ids: Map<string, number>;
  readonly cls: number;
  readonly sep: number;
  private readonly unk: number;

  constructor(vocabulary: readonly string[]) {
    this.ids = new Map(vocabulary.map((token, index) => [token, index]));
    const id = (token: string) => {
      const found = this.ids.get(token);
      if (found === undefined) throw new Error(`the vocabulary has no ${token} token`);
      return found;
    };
    this.cls = id('[CLS]');
    this.sep = id('[SEP]');
    this.unk = id('[UNK]');
  }

  /** Token ids with [CLS] and [SEP], at most MAX_TOKENS. */
  encode(text: string): number[] {
    const out = [this.cls];
    const basic = text
      .normalize('NFD')
      .replace(/\p{Mn}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? [];
    for (const word of basic) {
      if (out.length >= MAX_TOKENS - 1) break;
      let start = 0;
      const parts: number[] = [];
      while (start < word.length) {
        let end = word.length;
        let found: number | undefined;
        while (end > start) {
          found = this.ids.get((start > 0 ? '##' : '') + word.slice(start, end));
          if (found !== undefined) break;
          end -= 1;
        }
        if (found === undefined) {
          parts.length = 0;
          parts.push(this.unk);
          break;
        }
        parts.push(found);
        start = end;
      }
      for (const part of parts) if (out.length < MAX_TOKENS - 1) out.push(part);
    }
    out.push(this.sep);
    return out;
  }
}

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
export function pool(output: { data: ArrayLike<number>; dims: readonly number[] }, tokens: number): Float32Array {
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

async function importRuntime(): Promise<OnnxRuntime | null> {
  try {
    // A variable specifier keeps tsc and bundlers from requiring the optional package.
    const specifier = 'onnxruntime-node';
    const mod = (await import(specifier)) as OnnxRuntime & { default?: OnnxRuntime };
    return mod.InferenceSession === undefined ? (mod.default ?? null) : mod;
  } catch {
    return null;
  }
}

/**
 * The embedding backend for the model at `modelPath` (a folder with model.onnx and vocab.txt, or
 * the .onnx file with vocab.txt beside it); an unavailable backend that says why when it cannot load.
 */
export async function loadEmbeddingBackend(modelPath: string, runtime?: OnnxRuntime | null): Promise<SimilarityBackend> {
  const folderGiven = existsSync(modelPath) && statSync(modelPath).isDirectory();
  const modelFile = folderGiven ? path.join(modelPath, 'model.onnx') : modelPath;
  const vocabFile = path.join(folderGiven ? modelPath : path.dirname(modelPath), 'vocab.txt');
  if (!existsSync(modelFile)) return unavailable(`similarity_model_path is set but ${modelFile} does not exist; weights are never downloaded, put the model there`);
  if (!existsSync(vocabFile)) return unavailable(`similarity_model_path is set but the WordPiece vocabulary ${vocabFile} does not exist`);
  const ort = runtime === undefined ? await importRuntime() : runtime;
  if (ort === null) return unavailable('similarity_model_path is set but the optional package onnxruntime-node is not installed (npm install onnxruntime-node)');

  let tokenizer: WordPiece;
  let session: OnnxSession;
  try {
    tokenizer = new WordPiece(readFileSync(vocabFile, 'utf8').split(/\r?\n/).filter((line) => line !== ''));
    session = await ort.InferenceSession.create(modelFile);
  } catch (error) {
    return unavailable(`the embedding model at ${modelFile} could not be loaded: ${(error as Error).message}`);
  }

  const embed = async (text: string): Promise<Float32Array> => {
    const ids = tokenizer.encode(text);
    const tensor = (values: number[]) => new ort.Tensor('int64', BigInt64Array.from(values.map((value) => BigInt(value))), [1, values.length]);
    const feeds: Record<string, unknown> = {};
    for (const name of session.inputNames) {
      if (name === 'input_ids') feeds[name] = tensor(ids);
      else if (name === 'attention_mask') feeds[name] = tensor(ids.map(() => 1));
      else if (name === 'token_type_ids') feeds[name] = tensor(ids.map(() => 0));
    }
    const outputs = await session.run(feeds);
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
