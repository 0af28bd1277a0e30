// Hot path: no I/O here. The opt-in detectors of spec 01 §2.4 that need a model, a rails package or
// a judgment tier. They are registered always, so `GET /api/detectors` lists them with the reason
// they cannot run, but none works yet: each reports itself unavailable, and the runner never calls
// detect() on an unavailable detector. Timeouts follow spec 01 §8 (classifier 250 ms, similarity
// 150 ms, judgment 2000 ms); the rest use `detector_timeout_ms`.
import { SURFACES, type Detector, type Surface } from './types.js';

/** Surfaces where content can carry personal data, injections or harm: everything but tool_args. */
const TEXT_SURFACES: readonly Surface[] = SURFACES.filter((surface) => surface !== 'tool_args');
/** The surfaces injection.heuristic covers (spec 01 §2.4): all but completion. */
const INJECTION_SURFACES: readonly Surface[] = SURFACES.filter((surface) => surface !== 'completion');
/** The safety surfaces of safety.lexicon, which the safety models replace or back up. */
const SAFETY_SURFACES: readonly Surface[] = ['input', 'output', 'retrieved', 'tool_result', 'completion'];

const NEEDS_MODEL = 'needs an optional model package and local weights; not installed';
const NEEDS_JUDGMENT = 'needs a judgment tier in judgment_tiers (hosted tiers also need allow_egress); none configured';

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
    key: 'pii.ner',
    surfaces: SURFACES,
    entityTypes: [
      'PII.PERSON',
      'PII.LOCATION',
      'PII.DATE_TIME',
      'PII.US_DRIVER_LICENSE',
      'PII.MEDICAL_LICENSE',
      'PII.CRYPTO_WALLET',
    ],
    costRank: 50,
    reason: 'needs an optional NER package and a local language model; not installed',
  },
  {
    key: 'injection.classifier',
    surfaces: INJECTION_SURFACES,
    entityTypes: ['INJECTION.JAILBREAK'],
    costRank: 55,
    timeoutMs: 250,
    reason: NEEDS_MODEL,
  },
  {
    key: 'injection.similarity',
    surfaces: INJECTION_SURFACES,
    entityTypes: ['INJECTION.SEMANTIC_SIMILARITY'],
    costRank: 52,
    timeoutMs: 150,
    reason: 'needs an optional embedding package, local weights and an attack corpus; not installed',
  },
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
    reason: 'needs the optional rails package and a configuration in rails_config_path; not installed',
  },
  {
    key: 'rails.validator_set',
    surfaces: TEXT_SURFACES,
    entityTypes: ['RAILS.BLOCKED'],
    costRank: 71,
    reason: 'needs the optional validator package and validators listed in rails_validators; not installed',
  },
  {
    key: 'injection.judgment',
    surfaces: INJECTION_SURFACES,
    entityTypes: ['INJECTION.INSTRUCTION_OVERRIDE'],
    costRank: 100,
    timeoutMs: 2000,
    reason: NEEDS_JUDGMENT,
  },
  {
    key: 'pii.judgment',
    surfaces: SURFACES,
    entityTypes: ['PII.PRESENT_UNLOCATED'],
    costRank: 101,
    timeoutMs: 2000,
    reason: NEEDS_JUDGMENT,
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
