// Queries for the memory_entries table. Returns plain rows.
import type { Kysely } from 'kysely';
import type { Database, MemoryEntriesTable, MemoryEntryRow } from '../../infra/store/tables.js';

export async function insertEntries(db: Kysely<Database>, rows: MemoryEntriesTable[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // 17 columns a row: 50 rows stay far below either engine's bound-parameter limit.
    for (let index = 0; index < rows.length; index += 50) {
      await trx.insertInto('memory_entries').values(rows.slice(index, index + 50)).execute();
    }
  });
}

export async function findEntry(db: Kysely<Database>, id: string): Promise<MemoryEntryRow | undefined> {
  return db.selectFrom('memory_entries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Entries newest first; `activeAt` keeps only those neither revoked, blocked nor expired at that time. */
export async function listEntries(
  db: Kysely<Database>,
  filter: { agent?: string; activeAt?: string; before?: string; limit: number },
): Promise<MemoryEntryRow[]> {
  let query = db.selectFrom('memory_entries').selectAll().orderBy('id', 'desc').limit(filter.limit);
  if (filter.agent !== undefined) query = query.where('agent', '=', filter.agent);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  const activeAt = filter.activeAt;
  if (activeAt !== undefined) {
    query = query
      .where('revoked_at', 'is', null)
      .where('verdict', '<>', 'block')
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', activeAt)]));
  }
  return query.execute();
}

/** False when the entry was revoked meanwhile (another request or process got there first). */
export async function markRevoked(db: Kysely<Database>, id: string, at: string, by: string): Promise<boolean> {
  const result = await db
    .updateTable('memory_entries')
    .set({ revoked_at: at, revoked_by: by })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function markVerified(
  db: Kysely<Database>,
  id: string,
  change: { verified_by: string; verified_at: string; expires_at: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable('memory_entries')
    .set(change)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
