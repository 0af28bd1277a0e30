// `npm run bench`, crash-window part: how many answered decisions a `kill -9` loses. The real
// gateway process takes 2,000 guard calls, 64 in flight, and is killed with SIGKILL the moment the
// last answer arrives; it is started again on the same database and every answered decision_id is
// looked up. Printed per database: decisions lost and how long before the kill the lost ones were
// answered (the window an answered decision spends only in memory). Repeats with
// BENCH_CRASH_RUNS (default 3); PostgreSQL at PARAPET_BENCH_PG_URL or PARAPET_TEST_PG_URL (default
// postgres://postgres@127.0.0.1:5432/test), skipped when it cannot be reached.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Agent, request } from 'undici';
import { mintToken, percentile, runBench, runningChildren, startGateway, stopChild, temporaryDirs } from './lib.js';

export interface CrashWindowOptions {
  dialect: 'sqlite' | 'postgres';
  calls?: number;
  concurrency?: number;
  /** PostgreSQL server URL (any database on it; a throwaway database is created beside it). */
  postgresUrl?: string;
}

export interface CrashWindowResult {
  dialect: 'sqlite' | 'postgres';
  answered: number;
  missing: number;
  /** For each lost decision, milliseconds between its answer and the kill, ascending. */
  lostAgesMs: number[];
  /** Answers per second while loading. */
  rate: number;
}

/** The recorder's bound on unwritten decisions (src/recording/recorder.ts): a kill -9 loses fewer. */
export const LOSS_BOUND = 256;

const DEFAULT_PG = process.env.PARAPET_BENCH_PG_URL ?? process.env.PARAPET_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Loads the gateway, kills it with SIGKILL right after the last answer, restarts it and counts the answered decisions that are not stored. */
export async function measureCrashWindow(options: CrashWindowOptions): Promise<CrashWindowResult> {
  const calls = options.calls ?? 2000;
  const concurrency = options.concurrency ?? 64;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parapet-bench-crash-'));
  temporaryDirs.add(dataDir);
  const adminToken = `ppt_op_bench_${randomBytes(20).toString('base64url')}`;
  let databaseUrl: string | undefined;
  let dropDatabase = async (): Promise<void> => undefined;
  if (options.dialect === 'postgres') {
    const server = options.postgresUrl ?? DEFAULT_PG;
    const name = `parapet_crash_${randomBytes(6).toString('hex')}`;
    await adminQuery(server, `create database ${name}`);
    const url = new URL(server);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = () => adminQuery(server, `drop database if exists ${name} with (force)`);
  }
  const env: Record<string, string> = databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl };
  const dispatcher = new Agent({ connections: concurrency, pipelining: 1 });
  try {
    const gateway = await startGateway(dataDir, adminToken, env);
    const traffic = await mintToken(gateway.baseUrl, adminToken, 'traffic');
    const answeredAt = new Map<string, number>();
    let next = 0;
    let killedAt = 0;
    const started = performance.now();
    const worker = async (): Promise<void> => {
      while (next < calls) {
        const index = next++;
        const response = await request(`${gateway.baseUrl}/v1/guard/input`, {
          method: 'POST',
          headers: { authorization: `Bearer ${traffic}`, 'content-type': 'application/json' },
          body: JSON.stringify({ agent: `crash-agent-${index % 20}`, content: `Summarise ticket ${index} for the team; reply to person${index}@example.com.` }),
          dispatcher,
        });
        const body = (await response.body.json()) as { decision_id?: string };
        if (response.statusCode !== 200 || body.decision_id === undefined) throw new Error(`guard call answered ${response.statusCode}`);
        answeredAt.set(body.decision_id, performance.now());
        if (answeredAt.size === calls) {
          // The moment the last answer is in: nothing gets a chance to flush.
          gateway.child.process.kill('SIGKILL');
          killedAt = performance.now();
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const rate = calls / ((killedAt - started) / 1000);
    await new Promise<void>((resolve) => (gateway.child.process.exitCode !== null || gateway.child.process.signalCode !== null ? resolve() : gateway.child.process.once('exit', () => resolve())));

    // Started again on the same database: it must open it as the kill left it.
    const again = await startGateway(dataDir, adminToken, env);
    const stored = await storedIds(options.dialect, dataDir, databaseUrl, [...answeredAt.keys()]);
    await stopChild(again.child);
    const lostAgesMs = [...answeredAt]
      .filter(([id]) => !stored.has(id))
      .map(([, at]) => killedAt - at)
      .sort((a, b) => a - b);
    return { dialect: options.dialect, answered: answeredAt.size, missing: lostAgesMs.length, lostAgesMs, rate };
  } finally {
    await dispatcher.close();
    await Promise.all([...runningChildren].map(stopChild));
    await dropDatabase();
    rmSync(dataDir, { recursive: true, force: true });
    temporaryDirs.delete(dataDir);
  }
}

async function storedIds(dialect: 'sqlite' | 'postgres', dataDir: string, databaseUrl: string | undefined, ids: string[]): Promise<Set<string>> {
  if (dialect === 'sqlite') {
    const db = new SQLite(path.join(dataDir, 'parapet.db'), { readonly: true });
    try {
      const rows = db.prepare<[string], { id: string }>('select id from traces where id in (select value from json_each(?))').all(JSON.stringify(ids));
      return new Set(rows.map((row) => row.id));
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>('select id from traces where id = any($1)', [ids]);
    return new Set(rows.map((row) => row.id));
  } finally {
    await client.end();
  }
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function postgresReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const runs = Number(process.env.BENCH_CRASH_RUNS ?? 3);
  const dialects: Array<'sqlite' | 'postgres'> = ['sqlite'];
  if (await postgresReachable(DEFAULT_PG)) dialects.push('postgres');
  const lines = ['', `crash window: 2,000 guard calls, 64 in flight, kill -9 at the last answer, ${runs} runs per database; ${new Date().toISOString()}`];
  let worst = 0;
  for (const dialect of dialects) {
    for (let run = 1; run <= runs; run += 1) {
      const result = await measureCrashWindow({ dialect });
      worst = Math.max(worst, result.missing);
      const ages = Float64Array.from(result.lostAgesMs);
      const share = ((100 * result.missing) / result.answered).toFixed(2);
      const window = result.missing === 0 ? 'none lost' : `lost ones answered ${percentile(ages, 0).toFixed(0)}-${percentile(ages, 1).toFixed(0)} ms before the kill`;
      lines.push(`  ${dialect.padEnd(8)} run ${run}: ${result.missing} of ${result.answered} answered decisions lost (${share}%), ${window}; ${result.rate.toFixed(0)} answers/s`);
    }
  }
  if (!dialects.includes('postgres')) lines.push(`  postgres: skipped, ${DEFAULT_PG.replace(/\/\/[^@]*@/, '//')} cannot be reached`);
  const pass = worst < LOSS_BOUND;
  lines.push(`${pass ? 'PASS' : 'FAIL'}: every run lost fewer than ${LOSS_BOUND} answered decisions (worst ${worst})`);
  if (!pass) process.exitCode = 1;
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

// The test of the same bound (test/crash-window.test.ts) imports measureCrashWindow without running the part.
if (process.env.VITEST === undefined) await runBench('crash window', main);
