// Runs the detectors for one surface: cheapest first, asynchronous ones concurrently, each under
// its timeout and all under the enforcement budget (spec 01 §4 "Decision procedure", §7.3, §8).
// A detector that throws is recorded as `error`, never thrown through.
// Hot path: no I/O here; detectors get a deadline and must honour it.
//
// Large texts (over PIECE_CHARS) are first condensed (src/detectors/condense.ts: runs of padding
// shortened, offsets mapped back), so padding costs neither time nor reach; the timeouts and the
// budget then grow with what is left to scan, up to a ceiling. A text still longer than
// `maxChars` has its head and tail checked and is reported as too large, as is any large text
// whose scan did not finish in its time.
import { condense, headAndTail, type Condensed } from '../detectors/condense.js';
import type { Detection, DetectContext, Detector, DetectorRun, DetectorStatus } from '../detectors/types.js';
import type { TraceSpan } from '../../infra/lib/trace-span.js';

export interface RunResult {
  detections: Detection[];
  runs: DetectorRun[];
  /** Keys of detectors that did not finish cleanly: timeout, error or skipped for budget. */
  degraded: string[];
  /**
   * The text could not be checked in full (see RunLimits.scaling): longer than `maxChars` after
   * condensing (`size`; its head and tail were checked), or a large text (or call) whose scan did
   * not finish in its time (`time`).
   */
  contentTooLarge?: { chars: number; scannedChars: number; reason: 'size' | 'time' };
  /** The governed call's request budget bounded this check and ran out: later checks get none. */
  requestBudgetSpent?: true;
  /** A detector said its answer holds for this call only (DetectContext.unsure): not cached. */
  uncacheable?: true;
}

/** How the time allowed grows with the size of a text, and where it stops. */
export interface BudgetScaling {
  /** Milliseconds added to each detector's timeout per 1,024 characters scanned beyond PIECE_CHARS. */
  timeoutPerKbMs: number;
  /** Milliseconds added to the whole budget per 1,024 characters scanned beyond PIECE_CHARS. */
  budgetPerKbMs: number;
  /** The most a scaled timeout or budget reaches (a detector's own longer timeout is kept). */
  ceilingMs: number;
  /** Characters (after condensing) checked in full; of a longer text, the head and the tail. */
  maxChars: number;
}

export interface RunLimits {
  budgetMs: number;
  /**
   * What is left of the governed call's request budget (request_budget_ms): the check's budget is
   * the smaller of the two, both grown alike for a large text. Absent: a single check.
   */
  requestLeftMs?: number;
  /**
   * Characters the governed call has handed its checks so far, this text included: a long answer
   * checked window by window is as large as the whole answer. Absent: this text alone.
   */
  callChars?: number;
  defaultTimeoutMs: number;
  /** Absent: fixed timeouts and budget, every character scanned (tests of the runner itself). */
  scaling?: BudgetScaling;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * Large texts are scanned in pieces of this many characters, with the event loop free between
 * pieces, so a 1 MB input never holds up other requests for more than a few milliseconds.
 */
export const PIECE_CHARS = 16_384;
/** Pieces overlap so that a match spanning a boundary is still found whole. */
export const PIECE_OVERLAP = 512;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as Promise<T>)?.then === 'function';
}

/** What the detectors scan of a text: condensed, and cut to its head and tail when too large. */
interface Prepared {
  text: string;
  /** Null when the text is scanned as it is. */
  map: Condensed | null;
  tooLarge: boolean;
}

function prepare(text: string, scaling: BudgetScaling | undefined): Prepared {
  if (scaling === undefined || text.length <= PIECE_CHARS) return { text, map: null, tooLarge: false };
  const condensed = condense(text);
  const length = condensed?.text.length ?? text.length;
  if (length <= scaling.maxChars) return { text: condensed?.text ?? text, map: condensed, tooLarge: false };
  const ends = headAndTail(text, condensed, scaling.maxChars);
  return { text: ends.text, map: ends, tooLarge: true };
}

/** A time allowance grown by `perKbMs` per KB beyond PIECE_CHARS, capped at the ceiling (or the base, if higher). */
function scaled(baseMs: number, perKbMs: number, chars: number, scaling: BudgetScaling | undefined): number {
  if (scaling === undefined || chars <= PIECE_CHARS) return baseMs;
  return Math.min(baseMs + (perKbMs * (chars - PIECE_CHARS)) / 1024, Math.max(baseMs, scaling.ceilingMs));
}

/**
 * The check's budget within what is left of the call's request budget. A large text's growth is
 * granted on both, so that a long input costs no more of the call's budget than a short one.
 */
function withinRequest(budgetMs: number, limits: RunLimits): { ms: number; byRequest: boolean } {
  if (limits.requestLeftMs === undefined) return { ms: budgetMs, byRequest: false };
  const allowed = Math.max(0, limits.requestLeftMs + budgetMs - limits.budgetMs);
  return allowed >= budgetMs ? { ms: budgetMs, byRequest: false } : { ms: allowed, byRequest: true };
}

/**
 * Detectors must already be filtered to those enabled, available and serving the surface. With a
 * `trace` span, each detector run becomes a child span (key, status, ms; no content), made when
 * the run is recorded: nothing is added to the detectors' own path.
 */
export async function runDetectors(
  detectors: readonly Detector[],
  text: string,
  context: Omit<DetectContext, 'deadline'>,
  limits: RunLimits,
  trace?: TraceSpan,
): Promise<RunResult> {
  const { scaling } = limits;
  const prepared = prepare(text, scaling);
  const scanned = prepared.text;
  // The budget starts once the text is prepared: condensing is linear in what was sent, and on a
  // busy machine it must not leave the detectors of a padded text no time at all.
  const started = performance.now();
  const budget = withinRequest(scaled(limits.budgetMs, scaling?.budgetPerKbMs ?? 0, scanned.length, scaling), limits);
  const budgetEnd = started + budget.ms;
  const ordered = [...detectors].sort((a, b) => a.costRank - b.costRank);
  const runs: DetectorRun[] = [];
  const detections: Detection[] = [];
  const pending: Array<Promise<void>> = [];
  /** Detectors cut by the end of the budget rather than by their own timeout. */
  const budgetBound = new Set<string>();
  let uncacheable = false;
  const unsure = () => {
    uncacheable = true;
  };

  const record = (detector: Detector, status: DetectorStatus, found: Detection[], ms: number, error?: string) => {
    for (const detection of found) {
      detection.detector ??= detector.key;
      if (prepared.map !== null && detector.wholeText !== true) Object.assign(detection, prepared.map.toOriginal(detection.start, detection.end));
      detections.push(detection);
    }
    runs.push({ key: detector.key, status, matched: found.length > 0, ms: round(ms), ...(error === undefined ? {} : { error }) });
    if (trace !== undefined) traceRun(trace, detector.key, status, found.length > 0, ms);
  };

  for (const detector of ordered) {
    const now = performance.now();
    if (now >= budgetEnd) {
      record(detector, 'skipped_budget', [], 0);
      continue;
    }
    // A JSON document is validated whole, as it was sent; every other detector scans the prepared text.
    const input = detector.wholeText === true ? text : scanned;
    const allowance = scaled(detector.timeoutMs ?? limits.defaultTimeoutMs, scaling?.timeoutPerKbMs ?? 0, input.length, scaling);
    const timeoutMs = Math.min(allowance, budgetEnd - now);
    if (budgetEnd - now < allowance) budgetBound.add(detector.key);
    const deadline = Date.now() + timeoutMs;
    if (input.length > PIECE_CHARS && detector.wholeText !== true) {
      pending.push(scanInPieces(detector, input, { ...context, deadline, unsure }, deadline, now, record));
      continue;
    }
    let outcome: Detection[] | Promise<Detection[]>;
    try {
      outcome = detector.detect(input, { ...context, deadline, unsure });
    } catch (error) {
      record(detector, 'error', [], performance.now() - now, (error as Error).message);
      continue;
    }
    if (!isPromise(outcome)) {
      // A synchronous detector cannot be interrupted; it received the deadline and returns what
      // it found. Running past its timeout still marks the check degraded.
      const ms = performance.now() - now;
      record(detector, ms > timeoutMs ? 'timeout' : 'ok', outcome, ms);
      continue;
    }
    pending.push(raceTimeout(detector, outcome, timeoutMs, now, record));
  }
  await Promise.all(pending);
  const degraded = runs.filter((run) => run.status !== 'ok').map((run) => run.key);
  // A large text (or a call that has handed its checks a large text, window by window) whose scan
  // did not finish, whatever the reason (its size, a busy machine, a call out of time), counts as
  // too large: its sender chose the size, so it must not turn into a degraded check that
  // fail_mode open lets through.
  const chars = Math.max(text.length, limits.callChars ?? 0);
  const large = scaling !== undefined && chars > PIECE_CHARS;
  const outOfTime = large && runs.some((run) => run.status === 'timeout' || run.status === 'skipped_budget');
  // Timers may fire a little early, so a request budget that ran out is marked spent, not measured.
  const requestSpent = budget.byRequest && runs.some((run) => run.status === 'skipped_budget' || (run.status === 'timeout' && budgetBound.has(run.key)));
  const result: RunResult = {
    detections,
    runs,
    degraded,
    ...(requestSpent ? { requestBudgetSpent: true as const } : {}),
    ...(uncacheable ? { uncacheable: true as const } : {}),
  };
  if (!prepared.tooLarge && !outOfTime) return result;
  return { ...result, contentTooLarge: { chars, scannedChars: scanned.length, reason: prepared.tooLarge ? 'size' : 'time' } };
}

/** One detector run as a child span, placed after the fact: it ended now and took `ms`. */
function traceRun(parent: TraceSpan, key: string, status: DetectorStatus, matched: boolean, ms: number): void {
  const endedAt = performance.now();
  const span = parent.child('parapet.detector', { 'parapet.detector.key': key, 'parapet.detector.status': status, 'parapet.detector.matched': matched, 'parapet.detector.ms': round(ms) }, { startedAt: endedAt - ms });
  if (status === 'error' || status === 'timeout') span.fail(status);
  span.end(endedAt);
}

async function raceTimeout(
  detector: Detector,
  outcome: Promise<Detection[]>,
  timeoutMs: number,
  started: number,
  record: (detector: Detector, status: DetectorStatus, found: Detection[], ms: number, error?: string) => void,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const result = await Promise.race([outcome, timedOut]);
    if (result === 'timeout') record(detector, 'timeout', [], performance.now() - started);
    else record(detector, 'ok', result, performance.now() - started);
  } catch (error) {
    record(detector, 'error', [], performance.now() - started, (error as Error).message);
  } finally {
    clearTimeout(timer);
  }
  // A detector that lost the race may still reject later; nobody is listening by then.
  outcome.catch(() => undefined);
}

/** Piece offsets, the first and the last first: a scan cut short by its deadline has seen both ends. */
function pieceOrder(length: number): number[] {
  const offsets: number[] = [];
  for (let offset = 0; offset < length; offset += PIECE_CHARS) offsets.push(offset);
  if (offsets.length > 2) offsets.splice(1, 0, offsets.pop() as number);
  return offsets;
}

/** Runs a detector over bounded, overlapping pieces of a large text, yielding between pieces. */
async function scanInPieces(
  detector: Detector,
  text: string,
  context: DetectContext,
  deadline: number,
  started: number,
  record: (detector: Detector, status: DetectorStatus, found: Detection[], ms: number, error?: string) => void,
): Promise<void> {
  const found = new Map<string, Detection>();
  try {
    for (const offset of pieceOrder(text.length)) {
      if (Date.now() >= deadline) {
        record(detector, 'timeout', [...found.values()], performance.now() - started);
        return;
      }
      const piece = text.slice(offset, offset + PIECE_CHARS + PIECE_OVERLAP);
      for (const detection of await detector.detect(piece, context)) {
        const shifted = { ...detection, start: detection.start + offset, end: detection.end + offset };
        found.set(`${shifted.entity}:${shifted.start}:${shifted.end}`, shifted);
      }
      await yieldToLoop();
    }
    record(detector, 'ok', [...found.values()], performance.now() - started);
  } catch (error) {
    record(detector, 'error', [...found.values()], performance.now() - started, (error as Error).message);
  }
}
