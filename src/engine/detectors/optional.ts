// Hot path: no I/O here. The opt-in detectors of spec 01 §2.4 that need a model or a rails package
// (the judgment detectors are in ./judgment). They are registered always, so `GET /api/detectors`
// lists them with the reason they cannot run, but none works yet: each reports itself unavailable,
// and the runner never calls detect() on an unavailable detector. Timeouts follow spec 01 §8
// (classifier 250 ms, similarity 150 ms); the rest use `detector_timeout_ms`.
import { SURFACES, type Detector, type Surface } from './types.js';

/** Surfaces where content can carry personal data, injections or harm: everything but tool_args. */
const TEXT_SURFACES: readonly Surface[] = SURFACES.filter((surface) => surface !== 'tool_args');
/** The safety surfaces of safety.lexicon, which the safety models replace or back up. */
const SAFETY_SURFACES: readonly Surface[] = ['input', 'output', 'retrieved', 'tool_result', 'completion'];

const NEEDS_MODEL = 'needs an optional model package and local weights; not installed';

interface OptionalDetectorSpec {
  key: string;
  surfaces: readonly Surface[];
  entityTypes: readonly string[];
  costRank: number;
  timeoutMs?: number;
  /** Its model carries a restricted licence (only with `accept_restricted_model_licences`). */
  restrictedLicence?: boolean;
  reason: string;
}

const OPTIONAL_DETECTOR_SPECS: readonly OptionalDetectorSpec[] = [
  {
    key: 'safety.vendor_classifier',
    surfaces: SAFETY_SURFACES,
    entityTypes: ['SAFETY.HARM'],
    costRank: 60,
    reason: NEEDS_MODEL,
  },
  {
    key: 'safety.restricted',
    surfaces: SAFETY_SURFACES,
    entityTypes: ['SAFETY.HARM'],
    costRank: 61,
    restrictedLicence: true,
    reason: NEEDS_MODEL,
  },
  {
    key: 'rails.config_engine',
    surfaces: TEXT_SURFACES,
    entityTypes: ['RAILS.BLOCKED'],
    costRank: 70,
    reason: 'needs a dialogue-rails engine to run the configuration in rails_config_path; such engines exist only for Python, none for Node, so it is not installed',
  },
];

function unavailableDetector(spec: OptionalDetectorSpec): Detector {
  const detector: Detector = {
    key: spec.key,
    surfaces: spec.surfaces,
    entityTypes: spec.entityTypes,
    costRank: spec.costRank,
    optIn: true,
    available: () => ({ available: false, reason: spec.reason }),
    detect: () => {
      throw new Error(`${spec.key}: not available (${spec.reason})`);
    },
  };
  if (spec.timeoutMs !== undefined) detector.timeoutMs = spec.timeoutMs;
  if (spec.restrictedLicence === true) detector.restrictedLicence = true;
  return detector;
}

export const optionalDetectors: Detector[] = OPTIONAL_DETECTOR_SPECS.map(unavailableDetector);
