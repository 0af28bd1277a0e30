// The answer-integrity and disclosure detectors on `output` (README.md in this folder).
import type { Detector } from '../types.js';
import { integrityAnswer, integrityEvidence } from './answer.js';
import { disclosureAnswer } from './disclosure.js';

export { EVIDENCE_ENTITIES, INTEGRITY_ENTITIES } from './answer.js';
export { DISCLOSURE_ENTITIES } from './disclosure.js';

export const integrityDetectors: readonly Detector[] = [integrityEvidence, integrityAnswer, disclosureAnswer];
