// The detector contract. A detector is a plain object: a key, the surfaces it serves, the entity
// types it reports, a cost rank (cheapest run first), an optional timeout, `available()` and
// `detect()`. Detectors know nothing of HTTP, storage or policy; the runner (src/pipeline) calls
// them under budgets and the policy packs decide what their detections mean.
//
// Hot path: detect() must not do I/O and must not stall the event loop. Patterns are linear-time
// (no nested or overlapping quantifiers over the same characters) and are proven safe by tests
// with adversarial input (long repeats, nested brackets, 1 MB of one character).

/** The nine surfaces of spec 01 §2.3. */
export const SURFACES = [
  'input',
  'output',
  'tool_args',
  'tool_result',
  'retrieved',
  'memory_write',
  'agent_message',
  'completion',
  'reasoning',
] as const;
export type Surface = (typeof SURFACES)[number];

/** Content arriving on these surfaces is untrusted; its taint follows it into tool arguments. */
export const UNTRUSTED_SURFACES: readonly Surface[] = ['retrieved', 'tool_result', 'agent_message', 'memory_write'];

/** One finding of a detector in one text (spec 01 §2.2). */
export interface Detection {
  /** `FAMILY.TYPE`, e.g. `PII.EMAIL`, `SECRET.JWT`, `INJECTION.INSTRUCTION_OVERRIDE`. */
  entity: string;
  /** Confidence between 0 and 1; policy thresholds compare against it. */
  score: number;
  /** Character offsets (JavaScript string indices) into the checked text, end exclusive. */
  start: number;
  end: number;
  /** The detector key that produced it; the runner fills it in when a detector leaves it out. */
  detector?: string;
  /** One sentence a reviewer can read: which pattern matched and what the validator said. */
  explanation: string;
  /** Name of the pattern (or rule) that matched. */
  pattern?: string;
  /** Name and result of a validator that confirmed the match, e.g. `luhn: ok`. */
  validator?: string;
  /**
   * The explanation is what the caller needs to hear when a rule acts on this detection (why a
   * question is out of bounds, say): the decision's reason carries it after the rule's message.
   * Left unset where the explanation would teach an attacker what matched.
   */
  explainsVerdict?: boolean;
}

/** Settings a detector may read; the runner passes them in from the configuration. */
export interface DetectorSettings {
  /** PII pattern packs in use: `global`, `us`, `uk`, `eu`, `in`. */
  pii_packs: readonly string[];
}

export interface DetectContext {
  surface: Surface;
  settings: DetectorSettings;
  /** The JSON Schema declared for this output or tool's arguments (schema.json), when any. */
  jsonSchema?: Record<string, unknown>;
  /** The evidence supplied with the call (the guard bodies' `context` array), when any. */
  evidence?: readonly unknown[];
  /** The agent the call is for (detectors that hold per-agent settings, such as answerability boundaries). */
  agent?: string;
  /** Milliseconds since the epoch after which the detector should stop and return what it has. */
  deadline?: number;
  /**
   * Says that this answer holds for this call only (say, a judgment model that did not answer and
   * a posture that lets the check pass): the detection cache must not keep it for the same text.
   */
  unsure?: () => void;
}

export interface Availability {
  available: boolean;
  /** Why not, when it is not (a missing optional package, no weights, a setting). */
  reason?: string;
}

/**
 * A detector.
 * @example
 * export const emailOnly: Detector = {
 *   key: 'pii.example', surfaces: SURFACES, entityTypes: ['PII.EMAIL'], costRank: 1,
 *   available: () => ({ available: true }),
 *   detect: (text) => [...text.matchAll(/[\w.+-]+@[\w-]+\.[\w.]+/g)].map((m) => ({
 *     entity: 'PII.EMAIL', score: 0.9, start: m.index, end: m.index + m[0].length, explanation: 'e-mail address pattern',
 *   })),
 * };
 */
export interface Detector {
  key: string;
  surfaces: readonly Surface[];
  entityTypes: readonly string[];
  /** Lower runs first; pattern detectors are 1–10, models 50+, remote judgment 100+. */
  costRank: number;
  /** Its own timeout in milliseconds; otherwise the `detector_timeout_ms` setting applies. */
  timeoutMs?: number;
  /** Opt-in detectors run only when listed in `enabled_detectors`. */
  optIn?: boolean;
  /**
   * The detector needs the whole text at once (a JSON parser); otherwise the runner scans large
   * texts in bounded, overlapping pieces and yields to the event loop between them.
   */
  wholeText?: boolean;
  /**
   * Its answer depends on the calling agent as well as the text (per-agent settings such as an
   * answerability boundary): the detection cache then keys the text by agent.
   */
  agentScoped?: boolean;
  /**
   * Its answer depends on the time as well (a coverage window relative to now, a source going
   * stale): a cached result it took part in is used for at most this long.
   */
  cacheForMs?: number;
  /**
   * Its model is published under a licence that restricts use (spec 01 §2.4): it may run only when
   * the operator sets `accept_restricted_model_licences`. The registry enforces it.
   */
  restrictedLicence?: boolean;
  available(): Availability;
  detect(text: string, context: DetectContext): Detection[] | Promise<Detection[]>;
  /**
   * Compiles what the first checks would otherwise compile (large regexes, tables), so that they
   * do not miss their timeout. The server calls it for enabled detectors before it listens.
   */
  warmUp?(): void;
}

/** How one detector's run on one check ended (the pipeline's runner records it). */
export type DetectorStatus = 'ok' | 'timeout' | 'skipped_budget' | 'error';

export interface DetectorRun {
  key: string;
  status: DetectorStatus;
  matched: boolean;
  ms: number;
  error?: string;
  /** Answered from the detection cache: no detector ran for this check. */
  cached?: boolean;
}
