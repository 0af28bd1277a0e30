// Binding the `similarity_model_path` setting: the composition root (src/services.ts) replaces the
// registry's n-gram injection.similarity with one over the ONNX embedding model when the setting
// is set. Loading happens once at start; a model that cannot load leaves the detector unavailable
// with the reason (never the n-gram method in its place, so an operator sees what they configured).
import type { Detector } from '../types.js';
import { createSimilarityDetector } from './detector.js';
import { loadEmbeddingBackend } from './embedding.js';

export { injectionSimilarity } from './detector.js';

export async function bindSimilaritySettings(detectors: readonly Detector[], modelPath: string | null): Promise<Detector[]> {
  if (modelPath === null || !detectors.some((detector) => detector.key === 'injection.similarity')) return [...detectors];
  const configured = createSimilarityDetector(await loadEmbeddingBackend(modelPath));
  return detectors.map((detector) => (detector.key === 'injection.similarity' ? configured : detector));
}
