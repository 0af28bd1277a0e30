// The registry array: every detector Parapet knows. Which of them run is decided by the
// `enabled_detectors` setting and operator switches (src/detectors/registry.ts), never here.
import { injectionClassifier } from './classifier/classifier.js';
import { injectionHeuristic } from './injection/heuristic.js';
import { integrityDetectors } from './integrity/index.js';
import { UNCONFIGURED_JUDGMENT } from './judgment/detectors.js';
import { piiNer } from './ner/detector.js';
import { optionalDetectors } from './optional.js';
import { piiNative } from './pii/native.js';
import { railsDetectors } from './rails/index.js';
import { safetyLexicon } from './safety/lexicon.js';
import { schemaJson } from './schema/json.js';
import { secretsNative } from './secrets/native.js';
import { injectionSimilarity } from './similarity/detector.js';
import type { Detector } from './types.js';

export const ALL_DETECTORS: readonly Detector[] = [
  injectionHeuristic,
  piiNative,
  secretsNative,
  safetyLexicon,
  schemaJson,
  piiNer,
  ...optionalDetectors,
  injectionClassifier,
  ...railsDetectors,
  injectionSimilarity,
  UNCONFIGURED_JUDGMENT.injection,
  UNCONFIGURED_JUDGMENT.pii,
  UNCONFIGURED_JUDGMENT.integrity,
  ...integrityDetectors,
];
