// The facts policy evaluated for one call, as stored on its trace (`traces.facts`) and read back to
// replay a candidate policy over recorded traffic (simulation, canary checks, rule examples) without
// the content itself. Only what differs from the defaults is written, so a plain call costs a few
// dozen bytes. Tool-call argument values are kept only as far as `record_content` allows: numbers
// and booleans always (thresholds of business rules read them), text only with `full`.
import { SURFACES, type Detection, type Surface } from '../detectors/types.js';
import type { CallFacts } from './evaluate.js';
import { BLAST_RADII, CAPABILITY_OUTCOMES, type BlastRadius, type CapabilityOutcome } from './schema.js';

/** Stored form: short keys, defaults left out. `d` holds [entity, score, detector] per detection. */
interface StoredFacts {
  s: Surface;
  a: string;
  d?: Array<[string, number, string]>;
  t?: number;
  c?: CapabilityOutcome[];
  cf?: Record<string, unknown>;
  acm?: 1;
  dg?: 1;
  ctl?: 1;
  ak?: string[];
  ad?: 1;
  br?: BlastRadius;
  ae?: 1;
  au?: 1;
  be?: 1;
  ld?: 1;
  sg?: string;
  mt?: 'drifted' | 'undeclared';
  tl?: string;
  ar?: Record<string, unknown>;
}

export type ArgumentRecording = 'full' | 'scalars';

/** Argument values as far as they may be recorded: text is dropped unless content is recorded in full. */
function recordableArguments(value: unknown, recording: ArgumentRecording, depth = 0): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return recording === 'full' ? value : undefined;
  if (value === null || typeof value !== 'object' || depth > 8) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => recordableArguments(item, recording, depth + 1));
    return items.some((item) => item !== undefined) ? items.map((item) => item ?? null) : undefined;
  }
  const out: Record<string, unknown> = {};
  let any = false;
  for (const [key, item] of Object.entries(value)) {
    const kept = recordableArguments(item, recording, depth + 1);
    if (kept !== undefined) {
      out[key] = kept;
      any = true;
    }
  }
  return any ? out : undefined;
}

export function storeFacts(facts: CallFacts, recording: ArgumentRecording): string {
  const stored: StoredFacts = { s: facts.surface, a: facts.agent };
  if (facts.detections.length > 0) stored.d = facts.detections.map((d: Detection) => [d.entity, Math.round(d.score * 1000) / 1000, d.detector ?? '']);
  if (facts.taint !== 0) stored.t = facts.taint;
  if (facts.capability.size > 0) stored.c = [...facts.capability];
  if (facts.completionFacts !== null) stored.cf = { ...facts.completionFacts };
  if (facts.agentCardMismatch) stored.acm = 1;
  if (facts.degraded) stored.dg = 1;
  if (facts.contentTooLarge === true) stored.ctl = 1;
  if (facts.actionKinds.length > 0) stored.ak = [...facts.actionKinds];
  if (facts.actionDestructive) stored.ad = 1;
  if (facts.actionBlastRadius !== 'none') stored.br = facts.actionBlastRadius;
  if (facts.actionEscalation) stored.ae = 1;
  if (facts.actionUnanalysable) stored.au = 1;
  if (facts.budgetExceeded) stored.be = 1;
  if (facts.loopDetected) stored.ld = 1;
  if (facts.signature !== null) stored.sg = facts.signature;
  if (facts.mcpTool !== null) stored.mt = facts.mcpTool;
  if (facts.tool !== null) stored.tl = facts.tool;
  if (facts.args !== null) {
    const kept = recordableArguments(facts.args, recording);
    stored.ar = kept === undefined ? {} : (kept as Record<string, unknown>);
  }
  return JSON.stringify(stored);
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const stringList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** The facts back from their stored form; null when the text is not stored facts (older rows, damage). */
export function readFacts(text: string | null): CallFacts | null {
  if (text === null || text === '') return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(raw) || typeof raw.s !== 'string' || !(SURFACES as readonly string[]).includes(raw.s) || typeof raw.a !== 'string') return null;
  const detections: Detection[] = Array.isArray(raw.d)
    ? raw.d
        .filter((item): item is [string, number, string] => Array.isArray(item) && typeof item[0] === 'string' && typeof item[1] === 'number')
        .map(([entity, score, detector]) => ({ entity, score, start: 0, end: 0, explanation: 'recorded', ...(typeof detector === 'string' && detector !== '' ? { detector } : {}) }))
    : [];
  const capability = new Set(stringList(raw.c).filter((item): item is CapabilityOutcome => (CAPABILITY_OUTCOMES as readonly string[]).includes(item)));
  const radius = typeof raw.br === 'string' && (BLAST_RADII as readonly string[]).includes(raw.br) ? (raw.br as BlastRadius) : 'none';
  return {
    surface: raw.s as Surface,
    agent: raw.a,
    detections,
    taint: typeof raw.t === 'number' ? raw.t : 0,
    capability,
    completionFacts: isObject(raw.cf) ? raw.cf : null,
    agentCardMismatch: raw.acm === 1,
    degraded: raw.dg === 1,
    contentTooLarge: raw.ctl === 1,
    actionKinds: stringList(raw.ak),
    actionDestructive: raw.ad === 1,
    actionBlastRadius: radius,
    actionEscalation: raw.ae === 1,
    actionUnanalysable: raw.au === 1,
    budgetExceeded: raw.be === 1,
    loopDetected: raw.ld === 1,
    signature: typeof raw.sg === 'string' ? raw.sg : null,
    mcpTool: raw.mt === 'drifted' || raw.mt === 'undeclared' ? raw.mt : null,
    tool: typeof raw.tl === 'string' ? raw.tl : null,
    args: isObject(raw.ar) ? raw.ar : null,
  };
}

/** The facts of a call on which nothing was found and nothing holds: what examples and tests start from. */
export function plainFacts(surface: Surface, agent: string): CallFacts {
  return {
    surface,
    agent,
    detections: [],
    taint: 0,
    capability: new Set(),
    completionFacts: null,
    agentCardMismatch: false,
    degraded: false,
    actionKinds: [],
    actionDestructive: false,
    actionBlastRadius: 'none',
    actionEscalation: false,
    actionUnanalysable: false,
    budgetExceeded: false,
    loopDetected: false,
    signature: null,
    mcpTool: null,
    tool: null,
    args: null,
  };
}
