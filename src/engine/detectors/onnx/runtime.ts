// The optional ONNX runtime the model-backed detectors share (injection.similarity's embedding
// model, injection.classifier's sequence-classification model): `onnxruntime-node`, an optional
// peer package the operator installs (`npm install onnxruntime-node`). It is imported only when a
// model path is configured, and weights are only ever read from local files, never fetched.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { WordPiece } from './wordpiece.js';

/** One output tensor as the runtime returns it. */
export interface OnnxOutput {
  data: ArrayLike<number>;
  dims: readonly number[];
}

/** The part of onnxruntime-node the detectors use. */
export interface OnnxRuntime {
  InferenceSession: { create(modelPath: string): Promise<OnnxSession> };
  Tensor: new (type: 'int64', data: BigInt64Array, dims: readonly number[]) => unknown;
}
export interface OnnxSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, unknown>): Promise<Record<string, OnnxOutput>>;
}

/** onnxruntime-node when it is installed, else null. */
export async function importOnnxRuntime(): Promise<OnnxRuntime | null> {
  try {
    // A variable specifier keeps tsc and bundlers from requiring the optional package.
    const specifier = 'onnxruntime-node';
    const mod = (await import(specifier)) as OnnxRuntime & { default?: OnnxRuntime };
    return mod.InferenceSession === undefined ? (mod.default ?? null) : mod;
  } catch {
    return null;
  }
}

/** The BERT-style inputs for one sequence of token ids: those of input_ids, attention_mask and token_type_ids the model declares. */
export function bertFeeds(ort: OnnxRuntime, session: OnnxSession, ids: readonly number[]): Record<string, unknown> {
  const tensor = (values: readonly number[]) => new ort.Tensor('int64', BigInt64Array.from(values, (value) => BigInt(value)), [1, values.length]);
  const feeds: Record<string, unknown> = {};
  for (const name of session.inputNames) {
    if (name === 'input_ids') feeds[name] = tensor(ids);
    else if (name === 'attention_mask') feeds[name] = tensor(ids.map(() => 1));
    else if (name === 'token_type_ids') feeds[name] = tensor(ids.map(() => 0));
  }
  return feeds;
}

export type LocalModel =
  | { ok: true; ort: OnnxRuntime; session: OnnxSession; tokenizer: WordPiece; folder: string; modelFile: string }
  | { ok: false; reason: string };

/**
 * Opens the model a setting names (a folder with model.onnx and vocab.txt, or the .onnx file with
 * vocab.txt beside it) with the given runtime, or the installed one when `runtime` is undefined
 * (null stands for "not installed"). A missing file or package, or a model that does not load,
 * comes back as the reason, worded for the operator.
 */
export async function openLocalModel(setting: string, modelPath: string, runtime?: OnnxRuntime | null, options: { maxTokens?: number } = {}): Promise<LocalModel> {
  const folderGiven = existsSync(modelPath) && statSync(modelPath).isDirectory();
  const modelFile = folderGiven ? path.join(modelPath, 'model.onnx') : modelPath;
  const folder = folderGiven ? modelPath : path.dirname(modelPath);
  const vocabFile = path.join(folder, 'vocab.txt');
  if (!existsSync(modelFile)) return { ok: false, reason: `${setting} is set but ${modelFile} does not exist; weights are never downloaded, put the model there` };
  if (!existsSync(vocabFile)) return { ok: false, reason: `${setting} is set but the WordPiece vocabulary ${vocabFile} does not exist` };
  const ort = runtime === undefined ? await importOnnxRuntime() : runtime;
  if (ort === null) return { ok: false, reason: `${setting} is set but the optional package onnxruntime-node is not installed (npm install onnxruntime-node)` };
  try {
    const tokenizer = new WordPiece(readFileSync(vocabFile, 'utf8').split(/\r?\n/).filter((line) => line !== ''), options);
    const session = await ort.InferenceSession.create(modelFile);
    return { ok: true, ort, session, tokenizer, folder, modelFile };
  } catch (error) {
    return { ok: false, reason: `the model at ${modelFile} could not be loaded: ${(error as Error).message}` };
  }
}
