// Queries for the api_tokens table. Returns plain rows.
import type { Kysely } from 'kysely';
import type { ApiTokenRow, Database, NewApiToken } from '../../infra/store/tables.js';

export async function insertToken(db: Kysely<Database>, row: NewApiToken): Promise<void> {
  await db.insertInto('api_tokens').values(row).execute();
}

export async function findTokenById(db: Kysely<Database>, id: string): Promise<ApiTokenRow | undefined> {
  return db.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findTokenByHash(db: Kysely<Database>, hash: string): Promise<ApiTokenRow | undefined> {
  return db.selectFrom('api_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
}

export async function listTokens(
  db: Kysely<Database>,
  filter: { owner?: string; before?: string; limit: number },
): Promise<ApiTokenRow[]> {
  let query = db.selectFrom('api_tokens').selectAll().orderBy('id', 'desc').limit(filter.limit);
  if (filter.owner !== undefined) query = query.where('owner', '=', filter.owner);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  return query.execute();
}

export async function markTokenRevoked(db: Kysely<Database>, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Admin tokens that still work at `now`. */
export async function countActiveAdminTokens(db: Kysely<Database>, now: string): Promise<number> {
  const row = await db
    .selectFrom('api_tokens')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('role', '=', 'admin')
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
