// What injection.similarity delegates to: the n-gram method (detector.ts) or an ONNX embedding
// model (embedding.ts). Both answer synchronously from data loaded at start.
import { SURFACES, type Availability, type Detection, type DetectContext, type Surface } from '../types.js';

/** The injection surfaces (spec 01 §2.4): all but completion. */
export const INJECTION_SURFACES_FOR_SIMILARITY: readonly Surface[] = SURFACES.filter((surface) => surface !== 'completion');

export interface SimilarityBackend {
  /** How similarity is measured, for explanations. */
  method: string;
  threshold: number;
  available(): Availability;
  detect(text: string, context: DetectContext): Detection[] | Promise<Detection[]>;
  warmUp?(): void;
}
