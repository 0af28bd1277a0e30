// injection.classifier (spec 01 §2.4): the project's own offline classifier, a primary linear
// model with a second high-threshold backstop, trained by scripts/train-injection-classifier.ts
// and shipped as models/injection-classifier.json. The weights are read once (warmUp() or the
// first available()); detect() does no I/O. Opt-in: it runs only when listed in enabled_detectors.
// With `injection_classifier_model_path` set, an operator's ONNX model (onnx.ts) takes the place
// of the primary model; the shipped backstop still runs beside it.
import { readFileSync } from 'node:fs';
import { packagePath } from '../../../infra/lib/package-root.js';
import { SURFACES, type Availability, type Detection, type Detector, type Surface } from '../types.js';
import { InjectionClassifier, type StoredClassifier, type Verdict } from './model.js';
import { ONNX_THRESHOLD, type LoadedOnnxClassifier } from './onnx.js';

/** The surfaces injection detectors cover (spec 01 §2.4): all but completion. */
const CLASSIFIER_SURFACES: readonly Surface[] = SURFACES.filter((surface) => surface !== 'completion');

/** The shipped weight file. */
export const MODEL_PATH = packagePath('models', 'injection-classifier.json');

/**
 * A model's probability at its own threshold maps to this detection score, and 1 to 1: the shipped
 * packs block injections at 0.7 on input and 0.6 elsewhere, so every flag the classifier raises
 * is over those, and higher probabilities read higher.
 */
const SCORE_AT_THRESHOLD = 0.7;

function detectionScore(probability: number, threshold: number): number {
  const over = threshold >= 1 ? 1 : (probability - threshold) / (1 - threshold);
  return Number((SCORE_AT_THRESHOLD + (1 - SCORE_AT_THRESHOLD) * Math.min(1, Math.max(0, over))).toFixed(4));
}

/** The detection for a verdict of the shipped models. */
function shippedDetection(verdict: Verdict): Detection {
  const byPrimary = verdict.by === 'primary';
  const { probability, threshold } = verdict;
  return {
    entity: 'INJECTION.JAILBREAK',
    score: detectionScore(probability, threshold),
    start: verdict.start,
    end: verdict.end,
    pattern: byPrimary ? 'classifier.primary' : 'classifier.backstop',
    explanation: byPrimary
      ? `injection classifier: probability ${probability.toFixed(3)} is over its threshold ${threshold.toFixed(3)}`
      : `injection classifier backstop: probability ${probability.toFixed(3)} is over its high threshold ${threshold.toFixed(3)}`,
  };
}

/**
 * Builds the detector over a weight file; the registry uses the shipped one. With `onnx` (the
 * operator's model, loaded at start), that model replaces the primary and the file's backstop
 * runs first beside it; a model that could not load makes the detector unavailable with the reason.
 */
export function createInjectionClassifier(modelPath: string = MODEL_PATH, onnx?: LoadedOnnxClassifier): Detector {
  let classifier: InjectionClassifier | null = null;
  let availability: Availability | null = null;

  const load = (): Availability => {
    if (availability !== null) return availability;
    if (onnx !== undefined && !onnx.ok) return (availability = { available: false, reason: onnx.reason });
    try {
      const stored = JSON.parse(readFileSync(modelPath, 'utf8')) as StoredClassifier;
      classifier = InjectionClassifier.fromStored(stored);
      availability = { available: true };
    } catch (error) {
      availability = { available: false, reason: `needs its local weights at ${modelPath}: ${(error as Error).message}` };
    }
    return availability;
  };
  const loaded = (): InjectionClassifier => {
    if (classifier === null && !load().available) throw new Error(`injection.classifier: not available (${availability?.reason ?? 'no weights'})`);
    return classifier as InjectionClassifier;
  };

  const detector: Detector = {
    key: 'injection.classifier',
    surfaces: CLASSIFIER_SURFACES,
    entityTypes: ['INJECTION.JAILBREAK'],
    costRank: 55,
    timeoutMs: 250,
    optIn: true,
    available: load,
    warmUp: () => {
      load();
    },
    detect(text: string): Detection[] {
      const verdict = loaded().score(text);
      return verdict.flagged ? [shippedDetection(verdict)] : [];
    },
  };
  if (onnx === undefined || !onnx.ok) return detector;
  const model = onnx.classifier;
  return {
    ...detector,
    async detect(text, context) {
      const backstop = loaded().score(text, true);
      if (backstop.flagged) return [shippedDetection(backstop)];
      const verdict = await model.score(text, context.deadline);
      if (!verdict.flagged) return [];
      return [
        {
          entity: 'INJECTION.JAILBREAK',
          score: detectionScore(verdict.probability, ONNX_THRESHOLD),
          start: verdict.start,
          end: verdict.end,
          pattern: 'classifier.onnx',
          explanation: `injection classifier (ONNX model): probability ${verdict.probability.toFixed(3)} of ${model.label} is over its threshold ${ONNX_THRESHOLD.toFixed(3)}`,
        },
      ];
    },
  };
}

export const injectionClassifier: Detector = createInjectionClassifier();
