// SQL of the waitlist: waitlist_entries, one row per normalised address.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, WaitlistEntriesTable } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Inserts the entry unless its address is already there (the unique column decides, also between
 * concurrent sign-ups); answers whether it was inserted.
 */
export async function insertIfNew(db: Db, row: WaitlistEntriesTable): Promise<boolean> {
  const result = await db
    .insertInto('waitlist_entries')
    .values(row)
    .onConflict((conflict) => conflict.column('email_normalized').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** A repeated sign-up: counted, and fields left empty the first time filled in. */
export async function noteRepeat(db: Db, emailNormalized: string, fill: { source: string | null; company: string | null; note: string | null }, at: string): Promise<void> {
  await db
    .updateTable('waitlist_entries')
    .set({
      signups: sql<number>`signups + 1`,
      source: sql<string | null>`coalesce(source, ${fill.source})`,
      company: sql<string | null>`coalesce(company, ${fill.company})`,
      note: sql<string | null>`coalesce(note, ${fill.note})`,
      updated_at: at,
    })
    .where('email_normalized', '=', emailNormalized)
    .execute();
}

/** Newest first, ids below `before` (the paging cursor). */
export async function listEntries(db: Db, limit: number, before?: string) {
  let query = db.selectFrom('waitlist_entries').selectAll();
  if (before !== undefined) query = query.where('id', '<', before);
  return query.orderBy('id', 'desc').limit(limit).execute();
}

export async function findByEmail(db: Db, emailNormalized: string) {
  return db.selectFrom('waitlist_entries').selectAll().where('email_normalized', '=', emailNormalized).executeTakeFirst();
}
