// The operator's own injection classifier: a sequence-classification model in ONNX form (a BERT-
// family export with a WordPiece vocab.txt) from the local folder in
// `injection_classifier_model_path`, run by the optional package onnxruntime-node. It takes the
// place of the shipped primary model; weights are never fetched, and a missing package, file or
// vocabulary leaves injection.classifier unavailable with the reason. Loading (and one probe run
// that checks the output shape) happens once at start; detect() does no I/O.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { bertFeeds, openLocalModel, type OnnxRuntime } from '../onnx/runtime.js';

/** Probability of the injection label at or over which the model flags. */
export const ONNX_THRESHOLD = 0.5;
/** Longest sequence fed to the model, [CLS] and [SEP] included (BERT's limit). */
const MAX_SEQUENCE = 512;
/** Tokens shared by consecutive windows of a long text, so an instruction on a border is seen whole. */
const WINDOW_OVERLAP = 64;
/** Windows per text at most: the runner hands over texts of up to 16 K characters, about this many windows. */
const MAX_WINDOWS = 8;

const INJECTION_LABEL = /inject|jailbreak|unsafe|malicious/i;
const NEGATED_LABEL = /(?:^|[^a-z])(?:not|non|no)(?:[^a-z]|$)/i;

/**
 * Which output is the injection one: the first label of config.json's id2label naming an
 * injection (and not its negation, like NOT_INJECTION), else index 1 (the usual [safe, unsafe]).
 */
export function injectionLabel(config: unknown): { index: number; name: string } {
  const id2label = (config as { id2label?: unknown } | null)?.id2label;
  if (typeof id2label === 'object' && id2label !== null) {
    const labels = Object.entries(id2label as Record<string, unknown>)
      .map(([key, name]) => ({ index: Number(key), name: String(name) }))
      .filter((label) => Number.isInteger(label.index) && label.index >= 0)
      .sort((a, b) => a.index - b.index);
    const found = labels.find((label) => INJECTION_LABEL.test(label.name) && !NEGATED_LABEL.test(label.name));
    if (found !== undefined) return found;
    const second = labels.find((label) => label.index === 1);
    if (second !== undefined) return second;
  }
  return { index: 1, name: 'LABEL_1' };
}

/** The injection label's probability: softmax over the logits, or a sigmoid when the model has one output. */
export function injectionProbability(logits: ArrayLike<number>, index: number): number {
  if (logits.length === 1) return 1 / (1 + Math.exp(-Number(logits[0])));
  let max = -Infinity;
  for (let k = 0; k < logits.length; k += 1) max = Math.max(max, Number(logits[k]));
  let sum = 0;
  for (let k = 0; k < logits.length; k += 1) sum += Math.exp(Number(logits[k]) - max);
  return Math.exp(Number(logits[index]) - max) / sum;
}

export interface OnnxVerdict {
  /** Highest injection probability over the windows read (0 for a text without tokens). */
  probability: number;
  flagged: boolean;
  /** The window that scored highest, as offsets in the text (the whole text when it fits one window). */
  start: number;
  end: number;
}

export interface OnnxClassifier {
  modelFile: string;
  /** The injection label's name, for explanations. */
  label: string;
  score(text: string, deadline?: number): Promise<OnnxVerdict>;
}

export type LoadedOnnxClassifier = { ok: true; classifier: OnnxClassifier } | { ok: false; reason: string };

/**
 * Loads the model a setting names (a folder with model.onnx, vocab.txt and optionally config.json,
 * or the .onnx file with them beside it) with the given runtime, or the installed one when
 * `runtime` is undefined (null stands for "not installed").
 */
export async function loadOnnxClassifier(modelPath: string, runtime?: OnnxRuntime | null): Promise<LoadedOnnxClassifier> {
  const model = await openLocalModel('injection_classifier_model_path', modelPath, runtime, { maxTokens: MAX_SEQUENCE });
  if (!model.ok) return model;
  const { ort, session, tokenizer, folder, modelFile } = model;
  const configFile = path.join(folder, 'config.json');
  let config: unknown = null;
  if (existsSync(configFile)) {
    try {
      config = JSON.parse(readFileSync(configFile, 'utf8'));
    } catch (error) {
      return { ok: false, reason: `the model configuration ${configFile} could not be read: ${(error as Error).message}` };
    }
  }
  if (!session.inputNames.includes('input_ids')) return { ok: false, reason: `the model at ${modelFile} has no input_ids input (inputs: ${session.inputNames.join(', ')})` };
  const label = injectionLabel(config);
  const positions = Number((config as { max_position_embeddings?: unknown } | null)?.max_position_embeddings);
  const sequence = Number.isInteger(positions) && positions > 2 ? Math.min(MAX_SEQUENCE, positions) : MAX_SEQUENCE;
  const outputName = session.outputNames.includes('logits') ? 'logits' : (session.outputNames[0] as string);

  const run = async (ids: readonly number[]): Promise<number> => {
    const output = (await session.run(bertFeeds(ort, session, [tokenizer.cls, ...ids, tokenizer.sep])))[outputName];
    if (output === undefined) throw new Error(`the model returned no ${outputName} output`);
    const classes = output.dims[output.dims.length - 1] ?? 0;
    if (output.dims.length !== 2 || output.dims[0] !== 1 || classes < 1 || output.data.length !== classes) throw new Error(`expected logits of shape [1, n], got [${output.dims.join(', ')}]`);
    if (classes > 1 && label.index >= classes) throw new Error(`the injection label ${label.name} is index ${label.index} but the model has ${classes} outputs`);
    return injectionProbability(output.data, label.index);
  };
  try {
    await run(tokenizer.tokenize('Hello, how are you?', sequence - 2).ids);
  } catch (error) {
    return { ok: false, reason: `the model at ${modelFile} could not classify a probe text: ${(error as Error).message}` };
  }

  const content = sequence - 2;
  const stride = Math.max(1, content - WINDOW_OVERLAP);
  const limit = content + stride * (MAX_WINDOWS - 1);
  return {
    ok: true,
    classifier: {
      modelFile,
      label: label.name,
      async score(text, deadline) {
        const tokens = tokenizer.tokenize(text, limit);
        const verdict: OnnxVerdict = { probability: 0, flagged: false, start: 0, end: text.length };
        const count = tokens.ids.length;
        for (let from = 0; from < count; from += stride) {
          const started = Date.now();
          const to = Math.min(count, from + content);
          const probability = await run(tokens.ids.slice(from, to));
          if (probability > verdict.probability) {
            const whole = from === 0 && to === count;
            Object.assign(verdict, { probability, start: whole ? 0 : (tokens.starts[from] as number), end: whole ? text.length : (tokens.ends[to - 1] as number) });
          }
          if (to === count || verdict.probability >= ONNX_THRESHOLD) break;
          // Start another window only if one more as long as this one still ends in time.
          if (deadline !== undefined && Date.now() + (Date.now() - started) > deadline) break;
        }
        verdict.flagged = verdict.probability >= ONNX_THRESHOLD;
        return verdict;
      },
    },
  };
}
