// Rows that carry their own schedule (probe targets, monitors): `enabled`, `next_run_at` and
// `updated_at`. Several gateway processes look for due rows at once; a row's run is claimed by
// moving its next_run_at on only if nobody else did first, so each due run is taken once.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The tables whose rows schedule themselves. */
export type ScheduledTable = 'probe_targets' | 'monitors';

/** Enabled rows whose next run is due, the longest-waiting first. */
export async function dueRows<T extends ScheduledTable>(db: Db, table: T, now: string, limit: number) {
  return db
    .selectFrom(table as ScheduledTable)
    .selectAll()
    .where('enabled', '=', 1)
    .where('next_run_at', 'is not', null)
    .where('next_run_at', '<=', now)
    .orderBy('next_run_at')
    .limit(limit)
    .execute();
}

/**
 * Moves a due row's next run on, only if nobody else did first (the same next_run_at, still
 * enabled): true when this caller claimed the run.
 */
export async function claimDueRow(db: Db, table: ScheduledTable, id: string, seenNextRunAt: string, nextRunAt: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set({ next_run_at: nextRunAt, updated_at: at })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .where('next_run_at', '=', seenNextRunAt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
