// SQL of the source registry: knowledge_sources and source_connections (the credential column holds
// only the sealed form).
import type { Kysely, Transaction, Updateable } from 'kysely';
import type { Database, KnowledgeSourceRow, KnowledgeSourcesTable, SourceConnectionRow, SourceConnectionsTable } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function listSources(db: Db, filter: { tier?: string; domain?: string }): Promise<KnowledgeSourceRow[]> {
  let query = db.selectFrom('knowledge_sources').selectAll();
  if (filter.tier !== undefined) query = query.where('tier', '=', filter.tier);
  if (filter.domain !== undefined) query = query.where('domain', '=', filter.domain);
  return query.orderBy('key').execute();
}

export async function findSource(db: Db, key: string): Promise<KnowledgeSourceRow | undefined> {
  return db.selectFrom('knowledge_sources').selectAll().where('key', '=', key).executeTakeFirst();
}

export async function insertSource(db: Db, row: KnowledgeSourceRow): Promise<void> {
  await db.insertInto('knowledge_sources').values(row).execute();
}

export async function updateSource(db: Db, key: string, patch: Updateable<KnowledgeSourcesTable>): Promise<void> {
  await db.updateTable('knowledge_sources').set(patch).where('key', '=', key).execute();
}

/** Deletes the source and its connection. */
export async function deleteSource(db: Db, key: string): Promise<void> {
  await db.deleteFrom('source_connections').where('key', '=', key).execute();
  await db.deleteFrom('knowledge_sources').where('key', '=', key).execute();
}

export async function listConnections(db: Db): Promise<SourceConnectionRow[]> {
  return db.selectFrom('source_connections').selectAll().orderBy('key').execute();
}

export async function findConnection(db: Db, key: string): Promise<SourceConnectionRow | undefined> {
  return db.selectFrom('source_connections').selectAll().where('key', '=', key).executeTakeFirst();
}

export async function insertConnection(db: Db, row: SourceConnectionRow): Promise<void> {
  await db.insertInto('source_connections').values(row).execute();
}

export async function updateConnection(db: Db, key: string, patch: Updateable<SourceConnectionsTable>): Promise<void> {
  await db.updateTable('source_connections').set(patch).where('key', '=', key).execute();
}
