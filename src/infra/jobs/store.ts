// Queries of the job queue (queue.ts keeps the rules: leases, backoff, dead letters). Claims keep
// their locking: `for update skip locked` on PostgreSQL, one `update … returning` on SQLite.
import { sql, type Kysely, type Transaction, type Updateable } from 'kysely';
import type { Database, JobRow, JobStatus, JobsTable } from '../store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** What a claim writes: the worker and its lease, at `at`. */
export interface Claim {
  workerId: string;
  lockedUntil: string;
  at: string;
}

export async function insertJob(db: Db, row: JobRow): Promise<void> {
  await db.insertInto('jobs').values(row).execute();
}

/**
 * Jobs a worker may take now, oldest due first: queued ones whose time has come, and running ones
 * whose lease ran out (their worker died).
 */
function dueJobs(db: Db, kinds: readonly string[], at: string) {
  return db
    .selectFrom('jobs')
    .where('kind', 'in', [...kinds])
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'queued'), eb('run_after', '<=', at)]),
        eb.and([eb('status', '=', 'running'), eb('locked_until', '<', at)]),
      ]),
    )
    .orderBy('run_after')
    .orderBy('id')
    .limit(1);
}

function claimed(claim: Claim) {
  return {
    status: 'running' as const,
    attempts: sql<number>`attempts + 1`,
    locked_by: claim.workerId,
    locked_until: claim.lockedUntil,
    updated_at: claim.at,
  };
}

/** Whether a job of `kinds` is due at `at`: a plain read, no lock. */
export async function hasDueJob(db: Db, kinds: readonly string[], at: string): Promise<boolean> {
  return (await dueJobs(db, kinds, at).select('id').executeTakeFirst()) !== undefined;
}

/** Running jobs of `kinds` whose lease ran out on their last attempt become dead. */
export async function deadLetterExpiredLastAttempts(db: Db, kinds: readonly string[], at: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ status: 'dead', last_error: 'the worker running the last attempt stopped renewing its lease', locked_by: null, locked_until: null, updated_at: at, finished_at: at })
    .where('status', '=', 'running')
    .where('locked_until', '<', at)
    .where((eb) => eb('attempts', '>=', eb.ref('max_attempts')))
    .where('kind', 'in', [...kinds])
    .execute();
}

/** PostgreSQL, inside the caller's transaction: the next due job's id, its row locked (skipping rows other claims hold). */
export async function lockNextDueJob(trx: Transaction<Database>, kinds: readonly string[], at: string): Promise<{ id: string } | undefined> {
  return dueJobs(trx, kinds, at).select('id').forUpdate().skipLocked().executeTakeFirst();
}

/** Claims the job with this id (PostgreSQL, after `lockNextDueJob` in the same transaction). */
export async function claimJobById(trx: Transaction<Database>, id: string, claim: Claim): Promise<JobRow | undefined> {
  return trx.updateTable('jobs').set(claimed(claim)).where('id', '=', id).returningAll().executeTakeFirst();
}

/** SQLite: claims the next due job in one statement (the single writer serialises claims). */
export async function claimNextDueJob(db: Db, kinds: readonly string[], claim: Claim): Promise<JobRow | undefined> {
  return db
    .updateTable('jobs')
    .set(claimed(claim))
    .where('id', '=', dueJobs(db, kinds, claim.at).select('id'))
    .returningAll()
    .executeTakeFirst();
}

/** Changes a job only while `workerId` holds it running; answers whether it did. */
export async function updateHeldJob(db: Db, id: string, workerId: string, change: Updateable<JobsTable>): Promise<boolean> {
  const result = await db.updateTable('jobs').set(change).where('id', '=', id).where('status', '=', 'running').where('locked_by', '=', workerId).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** As `updateHeldJob`, answering the row as changed (undefined: the worker no longer held it). */
export async function updateHeldJobReturning(db: Db, id: string, workerId: string, change: Updateable<JobsTable>): Promise<JobRow | undefined> {
  return db.updateTable('jobs').set(change).where('id', '=', id).where('status', '=', 'running').where('locked_by', '=', workerId).returningAll().executeTakeFirst();
}

export async function findHeldJob(db: Db, id: string, workerId: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).where('status', '=', 'running').where('locked_by', '=', workerId).executeTakeFirst();
}

/** Dead → queued with its attempts reset; undefined when the job is not dead. */
export async function requeueDeadJob(db: Db, id: string, at: string): Promise<JobRow | undefined> {
  return db
    .updateTable('jobs')
    .set({ status: 'queued', attempts: 0, run_after: at, locked_by: null, locked_until: null, result: null, updated_at: at, finished_at: null })
    .where('id', '=', id)
    .where('status', '=', 'dead')
    .returningAll()
    .executeTakeFirst();
}

export async function findJob(db: Db, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Newest first, at most `limit` rows. */
export async function listJobs(db: Db, filter: { kind?: string; status?: JobStatus; before?: string; limit: number }): Promise<JobRow[]> {
  let query = db.selectFrom('jobs').selectAll().orderBy('id', 'desc').limit(filter.limit);
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  return query.execute();
}
