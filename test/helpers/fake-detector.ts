// A detector for degraded-path tests (slow, failing, busy): serves every surface and reports
// injection entities, so the shipped packs' injection rules see what it finds.
import { SURFACES, type Detector } from '../../src/engine/detectors/types.js';

export const fakeDetector = (key: string, costRank: number, detect: Detector['detect']): Detector => ({
  key,
  surfaces: SURFACES,
  entityTypes: ['INJECTION.INSTRUCTION_OVERRIDE'],
  costRank,
  available: () => ({ available: true }),
  detect,
});
