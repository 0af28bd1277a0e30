// A kill -9 loses fewer answered decisions than the recorder's bound on unwritten ones: the real
// gateway process (built dist/, as npm test builds it) takes 2,000 guard calls, is killed with
// SIGKILL at the last answer, starts again on the same database, and every answered decision_id is
// looked up. How many are lost, and how long before the kill they were answered, is measured by
// bench/crash-window.ts; the bound asserted here does not depend on the machine's speed.
import { describe, expect, it } from 'vitest';
import { LOSS_BOUND, measureCrashWindow } from '../bench/crash-window.js';
import { DIALECTS } from './helpers/gateway.js';
import { PG_ADMIN_URL } from './helpers/postgres.js';

describe.each(DIALECTS)('kill -9 under load (%s)', (dialect) => {
  it(`loses fewer than ${LOSS_BOUND} of 2,000 answered decisions`, async () => {
    const result = await measureCrashWindow({ dialect, calls: 2000, concurrency: 64, postgresUrl: PG_ADMIN_URL });
    expect(result.answered).toBe(2000);
    expect(result.missing).toBeLessThan(LOSS_BOUND);
  }, 180_000);
});
