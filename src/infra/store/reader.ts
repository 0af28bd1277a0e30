// Report reads off the event loop that answers agent traffic. Reports (metrics, guardrail reports,
// trace search, exports, usage) run whole — their queries and the parsing of the JSON columns they
// aggregate — in reader worker threads, each with its own read-only connection: on SQLite a second
// connection to the same file (WAL lets it read while the recorder writes), on PostgreSQL a
// one-connection pool whose statements time out. Every report has a deadline: past it the caller
// gets a 503 that says to narrow the range, and the thread doing the work is stopped.
import type { Worker } from 'node:worker_threads';
import { problem, type FieldError, type Problem, type ProblemSlug } from '../http/problems.js';
import type { Clock } from '../lib/clock.js';
import { startSourceWorker } from '../lib/source-worker.js';
import type { Dialect, Store } from './db.js';

/** What a report needs of the store: it only reads. */
export type ReadStore = Pick<Store, 'db' | 'dialect'>;

/** One report: built by its area's own service over the reader's store, at the caller's time. */
export type ReportJob = (store: ReadStore, clock: Clock, args: never) => Promise<unknown>;
/** Reports by kind; each area exports its own table (`<area>/report-jobs.ts`). */
export type ReportJobs = Record<string, ReportJob>;

export type ReportArgs<J extends ReportJobs, K extends keyof J> = Parameters<J[K]>[2];
export type ReportResult<J extends ReportJobs, K extends keyof J> = Awaited<ReturnType<J[K]>>;

/** What a route needs of the reader: to run one of its area's reports. */
export interface Reports<J extends ReportJobs> {
  run<K extends keyof J & string>(kind: K, args: ReportArgs<J, K>): Promise<ReportResult<J, K>>;
}

export interface ReaderWorkerData {
  /** The module whose `REPORT_JOBS` export the thread runs (the composition root's table of every area's reports). */
  jobsModule: string;
  dialect: Dialect;
  /** SQLite: the database file. */
  file: string | null;
  /** PostgreSQL: the connection URL. */
  databaseUrl: string | null;
  statementTimeoutMs: number;
}

export interface ReaderRequest {
  id: number;
  kind: string;
  args: unknown;
  /** The caller's clock, so that a report's window is the one the gateway's clock sets. */
  now: number;
}

export type ReaderReply =
  | { ready: true }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; problem: { slug: ProblemSlug; detail: string; errors?: FieldError[] } }
  | { id: number; ok: false; timedOut: true }
  | { id: number; ok: false; error: string };

export interface ReportReaderOptions {
  /** URL of the module that exports `REPORT_JOBS`, loaded by every reader thread. */
  jobsModule: string;
  store: Store;
  /** PostgreSQL: the URL the store was opened with (the reader opens its own connections). */
  databaseUrl: string | null;
  clock: Clock;
  /** Longest a report may take, queueing included (also PostgreSQL's statement_timeout). */
  timeoutMs: number;
  /** Reader threads: reports that run at the same time. */
  threads: number;
}

interface Job {
  request: ReaderRequest;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  slot: Slot | null;
}

interface Slot {
  worker: Worker | undefined;
  /** The thread has loaded its modules and opened its connection. */
  ready: boolean;
  job: Job | null;
}

/** Reports waiting for a thread, per thread, before a new one is refused as busy. */
const QUEUE_PER_THREAD = 8;

export class ReportReader<J extends ReportJobs> implements Reports<J> {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ReportReaderOptions) {
    this.slots = Array.from({ length: Math.max(1, options.threads) }, () => ({ worker: undefined, ready: false, job: null }));
  }

  /** Runs one report in a reader thread; rejects with a 503 problem past the deadline or when too many wait. */
  run<K extends keyof J & string>(kind: K, args: ReportArgs<J, K>): Promise<ReportResult<J, K>> {
    if (this.closed) return Promise.reject(problem('unavailable', 'the gateway is shutting down'));
    if (this.queue.length >= this.slots.length * QUEUE_PER_THREAD) {
      return Promise.reject(problem('unavailable', `too many reports are running; try ${kind} again shortly`));
    }
    const request: ReaderRequest = { id: this.nextId++, kind, args, now: this.options.clock.now().getTime() };
    return new Promise<ReportResult<J, K>>((resolve, reject) => {
      const job: Job = {
        request,
        resolve: resolve as (value: unknown) => void,
        reject,
        slot: null,
        timer: setTimeout(() => this.expire(job), this.options.timeoutMs),
      };
      this.queue.push(job);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) this.settle(job, problem('unavailable', 'the gateway is shutting down'));
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.job !== null) this.settle(slot.job, problem('unavailable', 'the gateway is shutting down'));
        const worker = slot.worker;
        slot.worker = undefined;
        slot.ready = false;
        slot.job = null;
        if (worker !== undefined) await worker.terminate();
      }),
    );
  }

  /**
   * Hands queued reports to ready threads, and starts threads (at most one per waiting report) while
   * reports wait: a thread's start-up is not counted against a report it never ran, so a report
   * that times out waiting leaves the queue and the thread starting for the next.
   */
  private dispatch(): void {
    let starting = this.slots.filter((slot) => slot.worker !== undefined && !slot.ready).length;
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.worker === undefined) {
        if (starting >= this.queue.length) continue;
        starting += 1;
        slot.ready = false;
        slot.worker = this.start(slot);
        continue;
      }
      if (!slot.ready || slot.job !== null) continue;
      const job = this.queue.shift() as Job;
      job.slot = slot;
      slot.job = job;
      slot.worker.postMessage(job.request);
    }
  }

  private start(slot: Slot): Worker {
    const { store, databaseUrl, timeoutMs, jobsModule } = this.options;
    const workerData: ReaderWorkerData = { jobsModule, dialect: store.dialect, file: store.sqliteFile ?? null, databaseUrl, statementTimeoutMs: timeoutMs };
    const worker = startSourceWorker(import.meta.url, 'reader-worker', workerData);
    // An idle reader must not keep the process alive.
    worker.unref();
    worker.on('message', (reply: ReaderReply) => {
      if ('ready' in reply) {
        if (slot.worker !== worker) return;
        slot.ready = true;
        this.dispatch();
        return;
      }
      const job = slot.job;
      if (slot.worker !== worker || job === null || job.request.id !== reply.id) return;
      this.settle(job, reply.ok ? undefined : this.failure(job, reply), reply.ok ? reply.value : undefined);
    });
    const lost = (error: Error): void => {
      if (slot.worker !== worker) return;
      slot.worker = undefined;
      slot.ready = false;
      if (slot.job !== null) this.settle(slot.job, error);
      // A thread that could not start (say, the database file is gone) fails the reports waiting for it.
      else for (const job of this.queue.splice(0)) this.settle(job, error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`report reader thread exited with code ${code}`)));
    return worker;
  }

  private failure(job: Job, reply: Extract<ReaderReply, { ok: false }>): Error {
    if ('problem' in reply) return problem(reply.problem.slug, reply.problem.detail, reply.problem.errors);
    if ('timedOut' in reply) return this.tooSlow(job);
    return new Error(`report ${job.request.kind} failed: ${reply.error}`);
  }

  private tooSlow(job: Job): Problem {
    return problem(
      'unavailable',
      `the ${job.request.kind} report did not finish within ${this.options.timeoutMs} ms and was stopped; narrow the range or add filters (agent, environment) and try again`,
    );
  }

  /** Past the deadline: a queued report leaves the queue; a running one has its thread stopped (a new one starts for the next). */
  private expire(job: Job): void {
    const slot = job.slot;
    if (slot === null) {
      const index = this.queue.indexOf(job);
      if (index >= 0) this.queue.splice(index, 1);
    } else if (slot.job === job) {
      const worker = slot.worker;
      slot.worker = undefined;
      slot.ready = false;
      void worker?.terminate();
    }
    this.settle(job, this.tooSlow(job));
  }

  private settle(job: Job, error: Error | undefined, value?: unknown): void {
    clearTimeout(job.timer);
    if (job.slot !== null && job.slot.job === job) job.slot.job = null;
    job.slot = null;
    if (error === undefined) job.resolve(value);
    else job.reject(error);
    if (!this.closed) this.dispatch();
  }
}
