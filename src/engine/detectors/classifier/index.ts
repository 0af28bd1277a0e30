// Binding the `injection_classifier_model_path` setting: the composition root (src/services.ts)
// replaces the registry's injection.classifier with one over the operator's ONNX model when the
// setting is set. Loading happens once at start; a model that cannot load leaves the detector
// unavailable with the reason (never the shipped primary in its place, so an operator sees what
// they configured).
import type { OnnxRuntime } from '../onnx/runtime.js';
import type { Detector } from '../types.js';
import { MODEL_PATH, createInjectionClassifier } from './classifier.js';
import { loadOnnxClassifier } from './onnx.js';

export { injectionClassifier } from './classifier.js';

/** `runtime` stands in for onnxruntime-node in tests (null: not installed). */
export async function bindClassifierSettings(detectors: readonly Detector[], modelPath: string | null, runtime?: OnnxRuntime | null): Promise<Detector[]> {
  if (modelPath === null || !detectors.some((detector) => detector.key === 'injection.classifier')) return [...detectors];
  const configured = createInjectionClassifier(MODEL_PATH, await loadOnnxClassifier(modelPath, runtime));
  return detectors.map((detector) => (detector.key === 'injection.classifier' ? configured : detector));
}
