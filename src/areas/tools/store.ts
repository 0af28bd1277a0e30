// Queries for the tool registry table. Returns plain rows.
import type { Kysely, Transaction } from 'kysely';
import type { Database, ToolRow } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function listTools(db: Db): Promise<ToolRow[]> {
  return db.selectFrom('tools').selectAll().orderBy('key').execute();
}

export async function findTool(db: Db, key: string): Promise<ToolRow | undefined> {
  return db.selectFrom('tools').selectAll().where('key', '=', key).executeTakeFirst();
}

/** Inserts the tool or replaces every column but its key and creation time. */
export async function upsertTool(db: Db, row: ToolRow): Promise<void> {
  const { key: _key, created_at: _created, ...changes } = row;
  await db
    .insertInto('tools')
    .values(row)
    .onConflict((conflict) => conflict.column('key').doUpdateSet(changes))
    .execute();
}
