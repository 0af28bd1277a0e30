// `parapet worker` processes on one PostgreSQL database: a worker killed (SIGKILL) in the middle
// of a job loses it only until its lease runs out; then another worker takes it over and finishes
// it. The slow job is the test-only kind `test.sleep` (PARAPET_TEST_JOB_KINDS=test.sleep).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobQueue } from '../src/infra/jobs/queue.js';
import { systemClock } from '../src/infra/lib/clock.js';
import { Store } from '../src/infra/store/db.js';
import { createTestDatabase, type TestDatabase } from './helpers/postgres.js';
import { BIN, childEnv } from './helpers/process.js';

interface WorkerProcess {
  child: ChildProcess;
  stderr(): string;
  /** The worker id it announced. */
  id: Promise<string>;
}

function startWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, [BIN, 'worker'], { env: childEnv(env), cwd: mkdtempSync(path.join(tmpdir(), 'parapet-worker-')), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const id = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${stderr}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /worker (\S+) started/.exec(stderr);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  child.stdout?.resume();
  return { child, stderr: () => stderr, id };
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('parapet worker processes on one PostgreSQL database', () => {
  let database: TestDatabase;
  let store: Store;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    store = Store.open({ databaseUrl: database.url, dataDir: mkdtempSync(path.join(tmpdir(), 'parapet-worker-data-')), poolSize: 2 });
    await store.migrate();
  });
  afterAll(async () => {
    for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await store?.close();
    await database?.drop();
  });

  it('finishes on a second worker a job whose worker was killed mid-run, after the lease runs out', async () => {
    const env = {
      DATABASE_URL: database.url,
      PARAPET_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'parapet-worker-dir-')),
      PARAPET_TEST_JOB_KINDS: 'test.sleep',
      PARAPET_JOB_LEASE_MS: '1500',
      PARAPET_JOB_POLL_MS: '100',
    };
    const queue = new JobQueue(store, systemClock, { retryBaseMs: 1000 });
    const job = await queue.enqueue('test.sleep', { ms: 2500 }, { maxAttempts: 3, createdBy: 'test' });

    const first = startWorker(env);
    workers.push(first);
    const firstId = await first.id;
    await until('the first worker to start the job', async () => (await queue.get(job.id))?.locked_by === firstId);
    expect(first.stderr()).toMatch(new RegExp(`job started\\s+${job.id}\\s+test\\.sleep\\s+attempt 1`));
    const exited = once(first.child, 'exit');
    first.child.kill('SIGKILL');
    await exited;
    const orphaned = await queue.get(job.id);
    expect(orphaned).toMatchObject({ status: 'running', locked_by: firstId, attempts: 1 });

    const second = startWorker(env);
    workers.push(second);
    const secondId = await second.id;
    const lockedUntil = Date.parse(orphaned?.locked_until ?? '');
    await until('the second worker to take the job over', async () => (await queue.get(job.id))?.locked_by === secondId);
    // Taken over only after the dead worker's lease ran out.
    expect(Date.now()).toBeGreaterThanOrEqual(lockedUntil);
    await until('the job to be done', async () => (await queue.get(job.id))?.status === 'done');
    const done = await queue.get(job.id);
    expect(done).toMatchObject({ status: 'done', attempts: 2, locked_by: null });
    expect(JSON.parse(done?.result ?? '{}')).toEqual({ slept_ms: 2500, worker: secondId });
    await until('the done line', () => second.stderr().includes(`job done  ${job.id}`), 5000);

    const exit = once(second.child, 'exit') as Promise<[number | null]>;
    second.child.kill('SIGTERM');
    const [code] = await exit;
    expect(code).toBe(0);
    expect(second.stderr()).toContain(`worker ${secondId} stopped`);
  });
});
