// The `answerability.boundary` detector: on `input`, a question outside the agent's answerability
// boundary is reported as ANSWERABILITY.OUT_OF_BOUNDS (boundary in enforce: the shipped
// `answerability` pack blocks it) or ANSWERABILITY.OUT_OF_BOUNDS_OBSERVED (boundary in observe).
// The answerability service feeds it the boundaries; detect() only reads them.
import type { DetectContext, Detection, Detector, Surface } from '../../engine/detectors/types.js';

export const ANSWERABILITY_DETECTOR_KEY = 'answerability.boundary';

export class AnswerabilityDetector implements Detector {
  readonly key = ANSWERABILITY_DETECTOR_KEY;
  readonly costRank = 5;
  readonly surfaces: readonly Surface[] = ['input'];
  readonly entityTypes: readonly string[] = ['ANSWERABILITY.OUT_OF_BOUNDS', 'ANSWERABILITY.OUT_OF_BOUNDS_OBSERVED'];

  available() {
    return { available: true };
  }

  detect(_text: string, _context: DetectContext): Detection[] {
    return [];
  }
}
