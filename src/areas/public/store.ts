// SQL of the public showcase: its probe events (showcase_events), written a round at a time and
// kept to the newest few; read newest first for the feed.
import type { Kysely, Transaction } from 'kysely';
import type { Database, ShowcaseEventRow } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function insertEvents(db: Db, rows: readonly ShowcaseEventRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('showcase_events').values([...rows]).execute();
}

/** Deletes all but the newest `keep` events (by time, then id). */
export async function keepNewest(db: Db, keep: number): Promise<void> {
  const boundary = await db.selectFrom('showcase_events').select(['at', 'id']).orderBy('at', 'desc').orderBy('id', 'desc').offset(keep - 1).limit(1).executeTakeFirst();
  if (boundary === undefined) return;
  await db
    .deleteFrom('showcase_events')
    .where((eb) => eb.or([eb('at', '<', boundary.at), eb.and([eb('at', '=', boundary.at), eb('id', '<', boundary.id)])]))
    .execute();
}

/** Whether any event was stored at or after `since` (a round of this window already ran). */
export async function anySince(db: Db, since: string): Promise<boolean> {
  const row = await db.selectFrom('showcase_events').select('id').where('at', '>=', since).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Every kept event, newest first (the table holds at most the newest 1000). */
export async function listEvents(db: Db, limit: number): Promise<ShowcaseEventRow[]> {
  return db.selectFrom('showcase_events').selectAll().orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
