// The audit chain under concurrent writers in several processes on one PostgreSQL database: two
// child processes, each with four concurrent loops of audit.append, write 10,000 entries; the
// chain is then seq 1..10000 with no gap and verifies.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditCheckpoints } from '../src/areas/audit/checkpoints.js';
import { AuditLog } from '../src/areas/audit/log.js';
import { AuditService } from '../src/areas/audit/service.js';
import { systemClock } from '../src/infra/lib/clock.js';
import { Sealer } from '../src/infra/lib/sealed.js';
import { Store } from '../src/infra/store/db.js';
import { createTestDatabase, type TestDatabase } from './helpers/postgres.js';
import { ROOT, childEnv } from './helpers/process.js';

const PROCESSES = 2;
const WRITERS_PER_PROCESS = 4;
const TOTAL = 10_000;

async function runWriter(databaseUrl: string, name: string, count: number): Promise<{ name: string; count: number; ms: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/helpers/audit-writer.ts')], {
    cwd: ROOT,
    env: childEnv({ DATABASE_URL: databaseUrl, WRITERS: String(WRITERS_PER_PROCESS), COUNT: String(count), WRITER_NAME: name }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`writer ${name} exited with ${code}:\n${stderr}`);
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { name: string; count: number; ms: number };
}

describe('audit appends from 8 writers in 2 processes (postgres)', () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = Store.open({ databaseUrl: database.url, dataDir: '.' });
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('writes 10,000 entries as seq 1..10000 with no gap, each writer in order, and the chain verifies', async () => {
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: PROCESSES }, (_, index) => runWriter(database.url, `process-${index}`, TOTAL / PROCESSES)),
    );
    const elapsed = Math.round(performance.now() - started);
    // Reported, not asserted: the figure depends on the machine and what else it runs.
    console.info(`audit concurrency: ${TOTAL} entries from ${PROCESSES * WRITERS_PER_PROCESS} writers in ${PROCESSES} processes in ${elapsed} ms (writers: ${results.map((result) => `${result.ms} ms`).join(', ')})`);

    const stats = await store.db
      .selectFrom('audit_entries')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<number>('seq').as('low'), eb.fn.max<number>('seq').as('high')])
      .executeTakeFirstOrThrow();
    expect({ n: Number(stats.n), low: Number(stats.low), high: Number(stats.high) }).toEqual({ n: TOTAL, low: 1, high: TOTAL });

    // Every process wrote each of its indexes once, and in one process the chain keeps their order.
    for (let index = 0; index < PROCESSES; index += 1) {
      const rows = await store.db.selectFrom('audit_entries').select(['seq', 'detail']).where('actor', '=', `process-${index}`).orderBy('seq').execute();
      const indexes = rows.map((row) => (JSON.parse(row.detail) as { index: number }).index);
      expect(new Set(indexes).size).toBe(TOTAL / PROCESSES);
      expect(Math.min(...indexes)).toBe(0);
      expect(Math.max(...indexes)).toBe(TOTAL / PROCESSES - 1);
      // The loops take indexes in turn and appends leave a process in the order they were made.
      expect(indexes.every((value, position) => position === 0 || value > (indexes[position - 1] as number))).toBe(true);
    }

    const audit = new AuditLog(store, systemClock);
    const sealer = new Sealer({ secretKey: null, dataDir: mkdtempSync(path.join(tmpdir(), 'parapet-audit-')) });
    const service = new AuditService(store, new AuditCheckpoints(store, audit, sealer, systemClock));
    expect(await service.verify({})).toEqual({ ok: true, checked: TOTAL, start_seq: 1, end_seq: TOTAL, first_bad: null, checkpoints: [], missing_checkpoints: [], head: null });
  }, 90_000);
});
