// Registers the job kinds each area hands over (`<area>.jobHandlers()`, gathered by the composition
// root for the gateway's in-process worker and for `parapet worker`). Test-only kinds are
// registered only when PARAPET_TEST_JOB_KINDS names them.
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobHandler, Worker } from '../../infra/jobs/worker.js';

/** Longest `test.sleep` accepted: a test kind must never hold a worker for long. */
const MAX_TEST_SLEEP_MS = 60_000;

/**
 * `test.sleep` (payload `{ "ms": 3000 }`) sleeps and returns `{ slept_ms, worker }`: a job slow
 * enough to kill its worker in the middle of it. Enabled by PARAPET_TEST_JOB_KINDS=test.sleep.
 */
const testSleep: JobHandler = async ({ payload, workerId, signal }) => {
  const ms = Math.min(MAX_TEST_SLEEP_MS, Math.max(0, Number(payload.ms) || 0));
  await sleep(ms, undefined, { signal });
  return { slept_ms: ms, worker: workerId };
};

const TEST_KINDS: Record<string, JobHandler> = { 'test.sleep': testSleep };

export function registerJobHandlers(worker: Worker, areas: ReadonlyArray<Record<string, JobHandler>>, env: NodeJS.ProcessEnv = process.env): Worker {
  for (const handlers of areas) for (const [kind, handler] of Object.entries(handlers)) worker.register(kind, handler);
  const wanted = (env.PARAPET_TEST_JOB_KINDS ?? '').split(',').map((kind) => kind.trim());
  for (const kind of wanted) {
    const handler = TEST_KINDS[kind];
    if (handler !== undefined) worker.register(kind, handler);
  }
  return worker;
}
