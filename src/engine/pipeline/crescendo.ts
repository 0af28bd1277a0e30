// Crescendo: gradual escalation over a conversation (spec 01 §2.5, CRESCENDO.TRAJECTORY_DRIFT).
// Each input turn of a session (same agent and `session_id`) gets a risk between 0 and 1: the
// highest score of its injection and safety detections. The last WINDOW turns are kept; drift is
// reported when their least-squares slope and the latest turn both pass a threshold and the climb
// is gradual (several elevated turns, already rising before the latest one), so a single spike or
// a steadily hostile conversation is not drift: per-turn rules see those already.
// Reported on the action-risk channel as `crescendo.trajectory_drift` and as the entity type;
// no shipped rule acts on it. Sessions live in this process's memory, bounded like taint.ts.
import type { Detection } from '../detectors/types.js';

/** Turns kept per session. */
export const WINDOW = 8;
/** Fewer turns than this say nothing about a trend. */
export const MIN_TURNS = 4;
/** Least-squares slope over the window, in risk per turn, at or above which the risk is climbing. */
export const SLOPE_THRESHOLD = 0.08;
/** The latest turn must itself be this risky: a climb that is still harmless is not reported. */
export const LATEST_THRESHOLD = 0.5;
/** A turn at or above this risk is elevated; a gradual climb has at least ELEVATED_TURNS of them. */
export const ELEVATED = 0.15;
export const ELEVATED_TURNS = 3;

export const CRESCENDO_SIGNAL = 'crescendo.trajectory_drift';
export const CRESCENDO_ENTITY = 'CRESCENDO.TRAJECTORY_DRIFT';

const MAX_SESSIONS = 10_000;
const SESSION_TTL_MS = 3_600_000;

/** What the action-risk channel reports of a drifting session. */
export interface TrajectoryDrift {
  signal: typeof CRESCENDO_SIGNAL;
  /** 0..1: half the latest turn's risk, half the slope against 0.2 per turn. */
  score: number;
  /** Risk per turn over the window. */
  slope: number;
  latest: number;
  turns: number;
}

/** The risk of one turn: its strongest injection or safety detection. */
export function turnRisk(detections: readonly Detection[]): number {
  let risk = 0;
  for (const detection of detections) {
    if ((detection.entity.startsWith('INJECTION.') || detection.entity.startsWith('SAFETY.')) && detection.score > risk) risk = detection.score;
  }
  return Math.min(1, risk);
}

/** Least-squares slope of the values against their index (0 for fewer than two). */
export function slope(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  const meanX = (n - 1) / 2;
  let meanY = 0;
  for (const value of values) meanY += value / n;
  let numerator = 0;
  let denominator = 0;
  values.forEach((value, index) => {
    numerator += (index - meanX) * (value - meanY);
    denominator += (index - meanX) ** 2;
  });
  return numerator / denominator;
}

/** Drift over a window of turn risks, oldest first; null when the thresholds are not met. */
export function drift(risks: readonly number[]): TrajectoryDrift | null {
  if (risks.length < MIN_TURNS) return null;
  const latest = risks[risks.length - 1] as number;
  if (latest < LATEST_THRESHOLD) return null;
  if (risks.filter((risk) => risk >= ELEVATED).length < ELEVATED_TURNS) return null;
  const rise = slope(risks);
  if (rise < SLOPE_THRESHOLD || slope(risks.slice(0, -1)) <= 0) return null;
  const score = Math.min(0.99, 0.5 * latest + 0.5 * Math.min(1, rise / 0.2));
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return { signal: CRESCENDO_SIGNAL, score: round(score), slope: round(rise), latest: round(latest), turns: risks.length };
}

/** The drift as a detection, for policy facts and the decision's entities (no span: the whole session). */
export function driftDetection(found: TrajectoryDrift): Detection {
  return {
    entity: CRESCENDO_ENTITY,
    score: found.score,
    start: 0,
    end: 0,
    detector: CRESCENDO_SIGNAL,
    explanation: `risk rose by ${found.slope} per turn over the last ${found.turns} turns of the session, to ${found.latest}`,
  };
}

interface Session {
  risks: number[];
  touchedMs: number;
}

/** Per-session turn risks, least recently used sessions dropped first. */
export class CrescendoTracker {
  private readonly sessions = new Map<string, Session>();

  /** Records one input turn's risk and says whether the session now drifts. */
  note(agent: string, sessionId: string, risk: number, nowMs: number): TrajectoryDrift | null {
    const key = `${agent}\u0000${sessionId}`;
    let session = this.sessions.get(key);
    if (session !== undefined && nowMs - session.touchedMs >= SESSION_TTL_MS) session = undefined;
    if (session === undefined) {
      this.sessions.delete(key);
      if (this.sessions.size >= MAX_SESSIONS) this.evict(nowMs);
      session = { risks: [], touchedMs: nowMs };
    } else this.sessions.delete(key); // re-inserted below: Map order is least recently used first
    this.sessions.set(key, session);
    session.touchedMs = nowMs;
    session.risks.push(Math.max(0, Math.min(1, risk)));
    if (session.risks.length > WINDOW) session.risks.shift();
    return drift(session.risks);
  }

  get size(): number {
    return this.sessions.size;
  }

  private evict(nowMs: number): void {
    for (const [key, session] of this.sessions) {
      if (nowMs - session.touchedMs >= SESSION_TTL_MS || this.sessions.size >= MAX_SESSIONS) this.sessions.delete(key);
      if (this.sessions.size < MAX_SESSIONS * 0.9) return;
    }
  }
}
