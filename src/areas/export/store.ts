// Queries of the SIEM export: findings by when they were last seen. Returns plain rows.
import type { Kysely, Transaction } from 'kysely';
import type { Database, FindingRow } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Findings last seen at or after `since`, newest first, at most `limit`. */
export async function listFindingsSeenSince(db: Db, since: string, limit: number): Promise<FindingRow[]> {
  return db.selectFrom('findings').selectAll().where('last_seen_at', '>=', since).orderBy('last_seen_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
