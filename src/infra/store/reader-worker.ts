// A report reader thread (src/infra/store/reader.ts): its own read-only connection, one report at a time.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { Problem } from '../http/problems.js';
import { storableTextDialect } from './db.js';
import type { Database } from './tables.js';
import type { ReaderReply, ReaderRequest, ReaderWorkerData, ReadStore, ReportJobs } from './reader.js';

const { jobsModule, dialect, file, databaseUrl, statementTimeoutMs } = workerData as ReaderWorkerData;
// The reports come from the areas, named by the composition root: the store depends on no area.
const { REPORT_JOBS } = (await import(jobsModule)) as { REPORT_JOBS: ReportJobs };

// Reports yield the CPU to the threads that answer agent traffic: on Linux a thread's nice value is
// its own (setpriority on its thread id). Best effort; elsewhere the thread keeps normal priority.
try {
  const threadId = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  if (Number.isInteger(threadId)) setPriority(threadId, 10);
} catch {
  // no /proc/thread-self, or not permitted
}

// Importing store/db.ts also sets its pg type parsers (int8 as a number) in this thread.
// Parameters are made storable as on the main connection, so a lookup finds what was stored.
function open(): Kysely<Database> {
  if (dialect === 'sqlite') {
    const database = new SQLite(file as string, { readonly: true, fileMustExist: true });
    database.pragma('busy_timeout = 5000');
    return new Kysely<Database>({ dialect: storableTextDialect(new SqliteDialect({ database })) });
  }
  const pool = new pg.Pool({ connectionString: databaseUrl as string, max: 1, statement_timeout: statementTimeoutMs });
  pool.on('error', () => undefined);
  // A client checked out between two queries (a transaction awaiting other work) hears the
  // server going away as an 'error' event of its own, which the pool does not catch while the
  // client is out: unheard, it would end the process. Its next query fails and is answered.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new Kysely<Database>({ dialect: storableTextDialect(new PostgresDialect({ pool })) });
}

const store: ReadStore = { db: open(), dialect };

/** PostgreSQL's answer when statement_timeout stopped a query. */
const QUERY_CANCELED = '57014';

parentPort?.on('message', (request: ReaderRequest) => {
  const reply = (message: ReaderReply): void => parentPort?.postMessage(message);
  const job = REPORT_JOBS[request.kind] as ((store: ReadStore, clock: { now(): Date }, args: unknown) => Promise<unknown>) | undefined;
  if (job === undefined) return reply({ id: request.id, ok: false, error: `no report ${request.kind}` });
  job(store, { now: () => new Date(request.now) }, request.args).then(
    (value) => reply({ id: request.id, ok: true, value }),
    (error: unknown) => {
      if (error instanceof Problem) {
        reply({ id: request.id, ok: false, problem: { slug: error.slug, detail: error.detail, ...(error.errors ? { errors: error.errors } : {}) } });
      } else if ((error as { code?: unknown }).code === QUERY_CANCELED) {
        reply({ id: request.id, ok: false, timedOut: true });
      } else {
        reply({ id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) });
      }
    },
  );
});

// Loaded and connected: the reader can hand this thread reports.
parentPort?.postMessage({ ready: true } satisfies ReaderReply);
