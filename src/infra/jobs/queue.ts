// The durable job queue in the `jobs` table: enqueue, claim under a lease, heartbeat, complete,
// fail with exponential backoff, dead letters and retry. Any number of workers in any number of
// processes may claim at once: PostgreSQL hands each row to one of them with
// `for update skip locked`; SQLite serialises writers, so one `update … returning` is enough.
// Times come from the injected Clock so that tests can move them. No HTTP here.
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { Store } from '../store/db.js';
import { writeJson } from '../store/json-columns.js';
import type { Database, JobRow, JobStatus } from '../store/tables.js';
import {
  claimJobById,
  claimNextDueJob,
  deadLetterExpiredLastAttempts,
  findHeldJob,
  findJob,
  hasDueJob,
  insertJob,
  listJobs,
  lockNextDueJob,
  requeueDeadJob,
  updateHeldJob,
  updateHeldJobReturning,
  type Claim,
} from './store.js';

export type Executor = Kysely<Database> | Transaction<Database>;

export interface EnqueueOptions {
  maxAttempts: number;
  /** Not before this time; default now. */
  runAfter?: Date;
  /** Who asked for it, as audit entries name actors. */
  createdBy: string;
}

export interface QueueOptions {
  /** Delay before the first retry; the n-th retry waits base × 2^(n−1), plus jitter. */
  retryBaseMs: number;
  /** A number in [0, 1); tests pass a fixed one to pin the jitter. */
  random?: () => number;
}

/** Up to this fraction of the delay is added at random, so failed jobs do not retry in lockstep. */
export const RETRY_JITTER = 0.2;

/** Longest text kept in `last_error`. */
const MAX_ERROR_CHARS = 2000;

export interface ListJobsFilter {
  kind?: string;
  status?: JobStatus;
  /** Ids below this one (cursor paging, newest first). */
  before?: string;
  limit: number;
}

export class JobQueue {
  private readonly random: () => number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly options: QueueOptions,
  ) {
    this.random = options.random ?? Math.random;
  }

  async enqueue(kind: string, payload: Record<string, unknown>, options: EnqueueOptions, db: Executor = this.store.db): Promise<JobRow> {
    const row = this.newRow(kind, payload, options);
    await insertJob(db, row);
    return row;
  }

  /**
   * Records work that already failed permanently in the caller's own attempt (a request that did
   * the work inline), so that it is visible among dead jobs and can be retried from there.
   */
  async recordDead(kind: string, payload: Record<string, unknown>, error: string, options: EnqueueOptions, db: Executor = this.store.db): Promise<JobRow> {
    const now = this.clock.now().toISOString();
    const row: JobRow = {
      ...this.newRow(kind, payload, options),
      status: 'dead',
      attempts: 1,
      last_error: error.slice(0, MAX_ERROR_CHARS),
      finished_at: now,
    };
    await insertJob(db, row);
    return row;
  }

  /** The next due job of one of `kinds`, now locked to `workerId` until now + leaseMs; undefined when none is due. */
  async claim(workerId: string, kinds: readonly string[], leaseMs: number): Promise<JobRow | undefined> {
    if (kinds.length === 0) return undefined;
    const now = this.clock.now();
    const at = now.toISOString();
    const lockedUntil = new Date(now.getTime() + leaseMs).toISOString();
    // Every process polls: an empty queue must cost one read, not a write lock (SQLite has one
    // writer, and the recorder needs it).
    if (!(await hasDueJob(this.store.db, kinds, at))) return undefined;
    // A running job whose lease ran out had a worker that died. After its last attempt it is
    // dead-lettered rather than run once more than max_attempts allows.
    await deadLetterExpiredLastAttempts(this.store.db, kinds, at);
    const claim: Claim = { workerId, lockedUntil, at };
    if (this.store.dialect === 'postgres') {
      return this.store.db.transaction().execute(async (trx) => {
        const next = await lockNextDueJob(trx, kinds, at);
        if (next === undefined) return undefined;
        return claimJobById(trx, next.id, claim);
      });
    }
    return claimNextDueJob(this.store.db, kinds, claim);
  }

  /** Extends the lease of a job this worker still holds; false when it lost it. */
  async heartbeat(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    const now = this.clock.now();
    return updateHeldJob(this.store.db, id, workerId, { locked_until: new Date(now.getTime() + leaseMs).toISOString(), updated_at: now.toISOString() });
  }

  /** Marks a job done with its result; false when the worker no longer held it (its lease went to another). */
  async complete(id: string, workerId: string, result: Record<string, unknown> | null): Promise<boolean> {
    const at = this.clock.now().toISOString();
    return updateHeldJob(this.store.db, id, workerId, { status: 'done', result: result === null ? null : writeJson(result), locked_by: null, locked_until: null, updated_at: at, finished_at: at });
  }

  /**
   * Records a failed attempt: back to queued after a backoff, or dead after the last attempt or
   * when the failure is permanent. Undefined when the worker no longer held the job.
   */
  async fail(id: string, workerId: string, error: string, options: { permanent: boolean }): Promise<JobRow | undefined> {
    const row = await findHeldJob(this.store.db, id, workerId);
    if (row === undefined) return undefined;
    const now = this.clock.now();
    const at = now.toISOString();
    const dead = options.permanent || row.attempts >= row.max_attempts;
    const change = dead
      ? { status: 'dead' as const, finished_at: at }
      : { status: 'queued' as const, run_after: new Date(now.getTime() + this.backoffMs(row.attempts)).toISOString() };
    return updateHeldJobReturning(this.store.db, id, workerId, { ...change, last_error: error.slice(0, MAX_ERROR_CHARS), locked_by: null, locked_until: null, updated_at: at });
  }

  /** Delay before the retry that follows failed attempt number `attempts` (1-based). */
  backoffMs(attempts: number): number {
    const delay = this.options.retryBaseMs * 2 ** Math.max(0, attempts - 1);
    return Math.round(delay * (1 + RETRY_JITTER * this.random()));
  }

  /** Dead → queued with its attempts reset; undefined when the job is not dead (the caller answers 409 or 404). */
  async retry(id: string, db: Executor = this.store.db): Promise<JobRow | undefined> {
    return requeueDeadJob(db, id, this.clock.now().toISOString());
  }

  async get(id: string, db: Executor = this.store.db): Promise<JobRow | undefined> {
    return findJob(db, id);
  }

  /** Newest first; every status, dead ones included, unless `status` narrows it. Fetches limit + 1 rows for paging. */
  async list(filter: ListJobsFilter): Promise<JobRow[]> {
    return listJobs(this.store.db, { ...filter, limit: filter.limit + 1 });
  }

  private newRow(kind: string, payload: Record<string, unknown>, options: EnqueueOptions): JobRow {
    const now = this.clock.now().toISOString();
    return {
      id: newId('job'),
      kind,
      payload: writeJson(payload),
      status: 'queued',
      attempts: 0,
      max_attempts: options.maxAttempts,
      run_after: (options.runAfter ?? this.clock.now()).toISOString(),
      locked_by: null,
      locked_until: null,
      last_error: null,
      result: null,
      created_by: options.createdBy,
      created_at: now,
      updated_at: now,
      finished_at: null,
    };
  }
}
