// Queries of the recorder made on the main thread (the batch writes live in the writers).
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Database, DeadLettersTable } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Keeps something the database refused, whole, for an operator to look at. */
export async function insertDeadLetter(db: Db, row: Insertable<DeadLettersTable>): Promise<void> {
  await db.insertInto('dead_letters').values(row).execute();
}
