// Queries of the credential resolver. Lookups run on a cache miss in the request path, so they
// hand back Kysely's own promise (no async wrapper).
import type { Kysely, Transaction } from 'kysely';
import type { AgentCredentialRow, ApiTokenRow, Database } from '../store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The unrevoked API token with this digest. */
export function findActiveTokenByHash(db: Db, hash: string): Promise<ApiTokenRow | undefined> {
  return db.selectFrom('api_tokens').selectAll().where('token_hash', '=', hash).where('revoked_at', 'is', null).executeTakeFirst();
}

/** The unrevoked agent credential with this digest. */
export function findActiveAgentCredentialByHash(db: Db, hash: string): Promise<AgentCredentialRow | undefined> {
  return db.selectFrom('agent_credentials').selectAll().where('secret_hash', '=', hash).where('revoked_at', 'is', null).executeTakeFirst();
}

export async function markTokensUsed(db: Db, ids: string[], at: string): Promise<void> {
  await db.updateTable('api_tokens').set({ last_used_at: at }).where('id', 'in', ids).execute();
}

export async function markAgentCredentialsUsed(db: Db, ids: string[], at: string): Promise<void> {
  await db.updateTable('agent_credentials').set({ last_used_at: at }).where('id', 'in', ids).execute();
}
