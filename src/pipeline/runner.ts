// Runs the detectors for one surface: cheapest first, asynchronous ones concurrently, each under
// its timeout and all under the enforcement budget (spec 01 §4 "Decision procedure", §7.3, §8).
// A detector that throws is recorded as `error`, never thrown through.
// Hot path: no I/O here; detectors get a deadline and must honour it.
import type { Detection, DetectContext, Detector } from '../detectors/types.js';

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

export interface RunResult {
  detections: Detection[];
  runs: DetectorRun[];
  /** Keys of detectors that did not finish cleanly: timeout, error or skipped for budget. */
  degraded: string[];
}

export interface RunLimits {
  budgetMs: number;
  defaultTimeoutMs: number;
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

/** Detectors must already be filtered to those enabled, available and serving the surface. */
export async function runDetectors(
  detectors: readonly Detector[],
  text: string,
  context: Omit<DetectContext, 'deadline'>,
  limits: RunLimits,
): Promise<RunResult> {
  const started = performance.now();
  const budgetEnd = started + limits.budgetMs;
  const ordered = [...detectors].sort((a, b) => a.costRank - b.costRank);
  const runs: DetectorRun[] = [];
  const detections: Detection[] = [];
  const pending: Array<Promise<void>> = [];

  const record = (detector: Detector, status: DetectorStatus, found: Detection[], ms: number, error?: string) => {
    for (const detection of found) {
      detection.detector ??= detector.key;
      detections.push(detection);
    }
    runs.push({ key: detector.key, status, matched: found.length > 0, ms: round(ms), ...(error === undefined ? {} : { error }) });
  };

  for (const detector of ordered) {
    const now = performance.now();
    if (now >= budgetEnd) {
      record(detector, 'skipped_budget', [], 0);
      continue;
    }
    const timeoutMs = Math.min(detector.timeoutMs ?? limits.defaultTimeoutMs, budgetEnd - now);
    const deadline = Date.now() + timeoutMs;
    if (text.length > PIECE_CHARS && detector.wholeText !== true) {
      pending.push(scanInPieces(detector, text, { ...context, deadline }, deadline, now, record));
      continue;
    }
    let outcome: Detection[] | Promise<Detection[]>;
    try {
      outcome = detector.detect(text, { ...context, deadline });
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
  return { detections, runs, degraded };
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
    for (let offset = 0; offset < text.length; offset += PIECE_CHARS) {
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
