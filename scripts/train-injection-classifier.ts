// Trains the shipped injection classifier (models/injection-classifier.json) from the development
// set (../shared/datasets, or PARAPET_DATASETS): two L2-regularised logistic regressions over
// hashed n-grams, the primary (character 3-5-grams and word 1-2-grams) and a high-threshold
// backstop (word 1-3-grams, another hash seed). Deterministic: fixed seeds, fixed order.
//
// It first scores the models with grouped cross-validation (no source group is both trained on
// and scored: a CyberSecEval technique with all its translations, an InjecAgent tool template, an
// AgentDojo suite, a T0 template, a block of consecutive rows of the other files), picks the
// thresholds on those out-of-fold scores and prints per-category figures; then it trains on
// everything and writes the weight file.
//
//   npx tsx scripts/train-injection-classifier.ts            # evaluate and write the model
//   npx tsx scripts/train-injection-classifier.ts --no-write # evaluate only
//   npx tsx scripts/train-injection-classifier.ts --bench    # time the shipped model per 1 KB
import { readFileSync, writeFileSync } from 'node:fs';
import { Featurizer, normalise, type FeatureSpec, type SparseVector } from '../src/engine/detectors/classifier/features.js';
import { InjectionClassifier, LinearModel, MODEL_FORMAT, quantise, sigmoid, type StoredClassifier, type StoredModel } from '../src/engine/detectors/classifier/model.js';
import { injectionHeuristic } from '../src/engine/detectors/injection/heuristic.js';
import { DATASET_DIR, DATASET_FILES, loadDataset, score, type DatasetCase, type Score } from '../src/engine/detectors/quality/datasets.js';
import { packagePath } from '../src/infra/lib/package-root.js';

const SEED = 20261125;
const FOLDS = 5;
const WINDOW = 512;
const PRIMARY_FEATURES: FeatureSpec = { bits: 18, seed: 0x5eed0001, chars: [3, 5], words: 2 };
const BACKSTOP_FEATURES: FeatureSpec = { bits: 18, seed: 0x5eed0002, chars: [0, 0], words: 3 };
/** Operating points, chosen on out-of-fold scores of benign cases. */
const PRIMARY_MAX_FP = 0.01;
const PRIMARY_MAX_FP_PER_FILE = 0.02;
const BACKSTOP_MAX_FP = 0.005;

interface TrainOptions {
  epochs: number;
  learningRate: number;
  l2: number;
  batch: number;
}
const TRAIN: TrainOptions = { epochs: 12, learningRate: 0.05, l2: 1e-6, batch: 128 };

const FILES = [
  DATASET_FILES.injection,
  DATASET_FILES.injectionIndirect,
  DATASET_FILES.benignWildguard,
  DATASET_FILES.benignSelfInstruct,
  DATASET_FILES.benignPersonas,
] as const;

type Case = DatasetCase & { file: string; group: string; variant?: string; user_tool?: string; suite?: string; template?: string };

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** The source group of a case: everything that shares wording with it sits in the same group. */
function groupOf(item: Case, index: number): string {
  const c = item.category;
  if (c.startsWith('cse_')) return `cse:${item.variant ?? 'none'}`;
  if (c.startsWith('injecagent')) return `injecagent:${item.user_tool ?? 'none'}`;
  if (c.startsWith('agentdojo')) return `agentdojo:${item.suite ?? 'none'}`;
  if (c === 't0_prompt') return `t0:${item.template ?? 'none'}`;
  return `${c}:block${Math.floor(index / 50)}`;
}

function loadCases(): Case[] {
  const cases: Case[] = [];
  for (const file of FILES) {
    const perCategory = new Map<string, number>();
    for (const raw of loadDataset(file)) {
      const item = raw as Case;
      const index = perCategory.get(item.category) ?? 0;
      perCategory.set(item.category, index + 1);
      item.file = file;
      item.group = groupOf(item, index);
      cases.push(item);
    }
  }
  return cases;
}

/** Per-case loss weight: both classes weigh the same in total; benign a little more, to keep false alarms down. */
function caseWeights(cases: Case[]): Float32Array {
  const positives = cases.filter((item) => item.label === 'injection').length;
  const negatives = cases.length - positives;
  const weights = new Float32Array(cases.length);
  cases.forEach((item, i) => {
    weights[i] = item.label === 'injection' ? cases.length / (2 * positives) : (1.5 * cases.length) / (2 * negatives);
  });
  return weights;
}

/** Mini-batch Adam on the logistic loss with L2 on the weights (not the bias). */
function train(vectors: SparseVector[], labels: Uint8Array, weights: Float32Array, dim: number, options: TrainOptions, seed: number): { w: Float32Array; bias: number } {
  const w = new Float32Array(dim);
  const m = new Float32Array(dim);
  const v = new Float32Array(dim);
  const grad = new Float32Array(dim);
  let bias = 0;
  let mb = 0;
  let vb = 0;
  const beta1 = 0.9;
  const beta2 = 0.999;
  const eps = 1e-8;
  const random = mulberry32(seed);
  const order = Array.from(vectors.keys());
  let step = 0;
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    shuffle(order, random);
    for (let from = 0; from < order.length; from += options.batch) {
      const batch = order.slice(from, from + options.batch);
      grad.fill(0);
      let gradBias = 0;
      const batchWeight = batch.reduce((sum, i) => sum + (weights[i] as number), 0);
      for (const i of batch) {
        const { indices, values } = vectors[i] as SparseVector;
        let z = bias;
        for (let k = 0; k < indices.length; k++) z += (w[indices[k] as number] as number) * (values[k] as number);
        const error = ((sigmoid(z) - (labels[i] as number)) * (weights[i] as number)) / batchWeight;
        gradBias += error;
        for (let k = 0; k < indices.length; k++) grad[indices[k] as number] = (grad[indices[k] as number] as number) + error * (values[k] as number);
      }
      step += 1;
      const lr = (options.learningRate * Math.sqrt(1 - beta2 ** step)) / (1 - beta1 ** step);
      for (let j = 0; j < dim; j++) {
        const g = (grad[j] as number) + options.l2 * (w[j] as number);
        if (g === 0 && m[j] === 0) continue;
        m[j] = beta1 * (m[j] as number) + (1 - beta1) * g;
        v[j] = beta2 * (v[j] as number) + (1 - beta2) * g * g;
        w[j] = (w[j] as number) - (lr * (m[j] as number)) / (Math.sqrt(v[j] as number) + eps);
      }
      mb = beta1 * mb + (1 - beta1) * gradBias;
      vb = beta2 * vb + (1 - beta2) * gradBias * gradBias;
      bias -= (lr * mb) / (Math.sqrt(vb) + eps);
    }
  }
  return { w, bias };
}

function vectorise(cases: Case[], spec: FeatureSpec): SparseVector[] {
  const featurizer = new Featurizer(spec);
  return cases.map((item) => featurizer.vector(normalise(item.text)));
}

interface Trained {
  primary: { w: Float32Array; bias: number };
  backstop: { w: Float32Array; bias: number };
}

function trainBoth(indices: number[], cases: Case[], primaryVectors: SparseVector[], backstopVectors: SparseVector[], seed: number): Trained {
  const subset = indices.map((i) => cases[i] as Case);
  const labels = Uint8Array.from(subset, (item) => (item.label === 'injection' ? 1 : 0));
  const weights = caseWeights(subset);
  return {
    primary: train(indices.map((i) => primaryVectors[i] as SparseVector), labels, weights, 1 << PRIMARY_FEATURES.bits, TRAIN, seed),
    backstop: train(indices.map((i) => backstopVectors[i] as SparseVector), labels, weights, 1 << BACKSTOP_FEATURES.bits, TRAIN, seed + 1),
  };
}

/**
 * The smallest threshold whose false-positive rate on benign scores stays within the limits,
 * counting the cases another threshold already flags (`already`).
 */
function pickThreshold(benign: Array<{ file: string; score: number; already: boolean }>, maxFp: number, maxFpPerFile: number): number {
  const candidates = [...new Set(benign.map(({ score: s }) => s))].sort((a, b) => a - b);
  const files = [...new Set(benign.map(({ file }) => file))];
  const ok = (threshold: number) => {
    const over = benign.filter(({ score: s, already }) => already || s >= threshold);
    if (over.length > maxFp * benign.length) return false;
    return files.every((file) => over.filter((b) => b.file === file).length <= maxFpPerFile * benign.filter((b) => b.file === file).length);
  };
  for (const candidate of [0.5, ...candidates.map((c) => Math.min(0.999, c + 1e-6))].filter((c) => c >= 0.5).sort((a, b) => a - b)) {
    if (ok(candidate)) return Number(candidate.toFixed(6));
  }
  return 0.999;
}

const print = (line: string) => process.stdout.write(`${line}\n`);
const pct = (value: number) => `${(value * 100).toFixed(1)}%`;

function report(title: string, cases: Case[], flagged: boolean[]): string {
  const lines = [`\n${title}`, '| set | cases | precision | recall | F1 | FP rate |', '|---|---|---|---|---|---|'];
  const benignIdx = cases.flatMap((item, i) => (item.label === 'benign' ? [i] : []));
  const outcome = (i: number) => ({ positive: cases[i]?.label === 'injection', flagged: flagged[i] as boolean });
  const row = (name: string, s: Score) => {
    const [p, r, f] = s.positives === 0 ? ['—', '—', '—'] : [pct(s.precision), pct(s.recall), s.f1.toFixed(3)];
    lines.push(`| ${name} | ${s.cases} | ${p} | ${r} | ${f} | ${pct(s.falsePositiveRate)} |`);
  };
  const all = cases.map((_, i) => i);
  row('all (attacks vs all benign)', score(all.map(outcome)));
  const nonCse = all.filter((i) => !cases[i]?.category.startsWith('cse_'));
  row('all but CyberSecEval', score(nonCse.map(outcome)));
  for (const file of FILES) {
    const inFile = all.filter((i) => cases[i]?.file === file);
    const attacks = inFile.filter((i) => cases[i]?.label === 'injection');
    // An attack file is scored against every benign case (as the bench does); a benign file alone.
    row(file.replace('.jsonl', ''), score((attacks.length > 0 ? [...inFile, ...benignIdx.filter((i) => cases[i]?.file !== file)] : inFile).map(outcome)));
  }
  for (const category of [...new Set(cases.map((item) => item.category))]) {
    const inCategory = all.filter((i) => cases[i]?.category === category);
    const attacks = inCategory.filter((i) => cases[i]?.label === 'injection').length > 0;
    row(`  ${category}`, score((attacks ? [...inCategory, ...benignIdx] : inCategory).map(outcome)));
  }
  return lines.join('\n');
}

function storedModel(features: FeatureSpec, trained: { w: Float32Array; bias: number }, threshold: number): StoredModel {
  const { scale, bytes } = quantise(trained.w);
  return { features, bias: trained.bias, scale, threshold, weights: bytes.toString('base64') };
}

function main(): void {
  const write = !process.argv.includes('--no-write');
  const started = Date.now();
  const cases = loadCases();
  const primaryVectors = vectorise(cases, PRIMARY_FEATURES);
  const backstopVectors = vectorise(cases, BACKSTOP_FEATURES);
  print(`${cases.length} cases (${cases.filter((c) => c.label === 'injection').length} injection) from ${DATASET_DIR}; features in ${Date.now() - started} ms`);

  // Grouped folds: whole groups, shuffled with the seed, dealt round-robin.
  const groups = shuffle([...new Set(cases.map((item) => item.group))].sort(), mulberry32(SEED));
  const foldOf = new Map(groups.map((group, i) => [group, i % FOLDS]));
  const oof = cases.map(() => ({ primary: 0, part: 0, backstop: 0 }));
  for (let fold = 0; fold < FOLDS; fold++) {
    const trainIdx = cases.flatMap((item, i) => (foldOf.get(item.group) !== fold ? [i] : []));
    const testIdx = cases.flatMap((item, i) => (foldOf.get(item.group) === fold ? [i] : []));
    const trained = trainBoth(trainIdx, cases, primaryVectors, backstopVectors, SEED + fold);
    const classifier = new InjectionClassifier(
      new LinearModel(PRIMARY_FEATURES, trained.primary.w, 1, trained.primary.bias, 1),
      new LinearModel(BACKSTOP_FEATURES, trained.backstop.w, 1, trained.backstop.bias, 1),
      WINDOW,
      1,
    );
    for (const i of testIdx) {
      const verdict = classifier.score((cases[i] as Case).text);
      oof[i] = { primary: verdict.primary, part: verdict.primaryPart, backstop: verdict.backstop };
    }
    print(`fold ${fold + 1}/${FOLDS}: trained on ${trainIdx.length}, scored ${testIdx.length} (${Date.now() - started} ms)`);
  }
  type Key = 'primary' | 'part' | 'backstop';
  const benignOf = (key: Key, already: (i: number) => boolean = () => false) =>
    cases.flatMap((item, i) => (item.label === 'benign' ? [{ file: item.file, score: (oof[i] as Record<Key, number>)[key], already: already(i) }] : []));
  // The backstop first (its own small budget), then the primary on parts, then on whole texts, each
  // within the budget left by what the earlier ones already flag, so the limits hold for the union.
  const backstopThreshold = pickThreshold(benignOf('backstop'), BACKSTOP_MAX_FP, BACKSTOP_MAX_FP * 2);
  const byBackstop = (i: number) => (oof[i]?.backstop ?? 0) >= backstopThreshold;
  const partThreshold = pickThreshold(benignOf('part', byBackstop), PRIMARY_MAX_FP / 2, PRIMARY_MAX_FP_PER_FILE / 2);
  const primaryThreshold = pickThreshold(benignOf('primary', (i) => byBackstop(i) || (oof[i]?.part ?? 0) >= partThreshold), PRIMARY_MAX_FP, PRIMARY_MAX_FP_PER_FILE);
  print(`thresholds from out-of-fold benign scores: primary ${primaryThreshold} (parts ${partThreshold}), backstop ${backstopThreshold}`);
  const primaryFlags = oof.map(({ primary, part }) => primary >= primaryThreshold || part >= partThreshold);
  const flaggedOof = oof.map(({ backstop }, i) => (primaryFlags[i] as boolean) || backstop >= backstopThreshold);
  print(report(`Grouped ${FOLDS}-fold cross-validation (primary OR backstop)`, cases, flaggedOof));
  print(report('Cross-validation, primary alone', cases, primaryFlags));
  print(report('Cross-validation, backstop alone', cases, oof.map(({ backstop }) => backstop >= backstopThreshold)));

  const final = trainBoth(cases.map((_, i) => i), cases, primaryVectors, backstopVectors, SEED + 100);
  const stored: StoredClassifier = {
    format: MODEL_FORMAT,
    training: {
      command: 'npx tsx scripts/train-injection-classifier.ts',
      files: FILES,
      cases: cases.length,
      injection: cases.filter((c) => c.label === 'injection').length,
      seed: SEED,
      folds: FOLDS,
      options: TRAIN,
      thresholds: { primary_max_fp: PRIMARY_MAX_FP, primary_max_fp_per_file: PRIMARY_MAX_FP_PER_FILE, backstop_max_fp: BACKSTOP_MAX_FP },
    },
    window: WINDOW,
    part_threshold: partThreshold,
    primary: storedModel(PRIMARY_FEATURES, final.primary, primaryThreshold),
    backstop: storedModel(BACKSTOP_FEATURES, final.backstop, backstopThreshold),
  };
  // Full-set figures through the shipped (quantised) model: a training fit, not a held-out score.
  const shipped = InjectionClassifier.fromStored(stored);
  print(report('Full set, final quantised model (trained on these cases)', cases, cases.map((item) => shipped.score(item.text).flagged)));
  if (write) {
    const target = packagePath('models', 'injection-classifier.json');
    const json = `${JSON.stringify(stored)}\n`;
    writeFileSync(target, json);
    print(`\nwrote ${target} (${(json.length / 1024).toFixed(0)} KB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

/** Median milliseconds per detect() of the shipped model, on texts cut from the development set. */
function bench(): void {
  const stored = JSON.parse(readFileSync(packagePath('models', 'injection-classifier.json'), 'utf8')) as StoredClassifier;
  const classifier = InjectionClassifier.fromStored(stored);
  const corpus = loadCases()
    .map((item) => item.text)
    .join('\n');
  const cut = (size: number, count: number) => Array.from({ length: count }, (_, i) => corpus.slice((i * 7919) % (corpus.length - size), ((i * 7919) % (corpus.length - size)) + size));
  const time = (texts: string[], rounds: number, run: (text: string) => unknown = (text) => classifier.score(text)) => {
    for (const text of texts.slice(0, 50)) run(text);
    const samples: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const text = texts[round % texts.length] as string;
      const started = performance.now();
      run(text);
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    return samples[Math.floor(samples.length / 2)] as number;
  };
  print(`weights: ${(readFileSync(packagePath('models', 'injection-classifier.json')).length / 1024).toFixed(0)} KB`);
  print(`1 KB: ${time(cut(1024, 200), 5000).toFixed(4)} ms median`);
  // The default injection detector on the same texts, as a yardstick for this machine's load.
  const heuristic = (text: string) => injectionHeuristic.detect(text, { surface: 'input', settings: { pii_packs: [] } });
  print(`1 KB, injection.heuristic for comparison: ${time(cut(1024, 200), 5000, heuristic).toFixed(4)} ms median`);
  print(`10 KB: ${time(cut(10 * 1024, 50), 500).toFixed(4)} ms median`);
  for (const [name, text] of Object.entries({ 'one character': 'a'.repeat(16_384), 'nested brackets': '[{('.repeat(5_462), 'repeated "ignore "': 'ignore '.repeat(2_341) })) {
    print(`16 KB piece of ${name}: ${time([text], 50).toFixed(3)} ms`);
  }
}

if (process.argv.includes('--bench')) bench();
else main();
