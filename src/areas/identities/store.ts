// Queries behind the identity views and credential rotation. Returns plain rows; identities and
// grants themselves are read through the agents store.
import type { Kysely, Transaction } from 'kysely';
import type { AgentCredentialRow, AgentRow, Database } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function allAgents(db: Db): Promise<AgentRow[]> {
  return db.selectFrom('agents').selectAll().execute();
}

export async function allCredentials(db: Db): Promise<AgentCredentialRow[]> {
  return db.selectFrom('agent_credentials').selectAll().orderBy('id', 'desc').execute();
}

/** The identity's credentials that work at `now`: not revoked and not expired. */
export async function activeCredentials(db: Db, identityId: string, now: string): Promise<AgentCredentialRow[]> {
  return db
    .selectFrom('agent_credentials')
    .selectAll()
    .where('identity_id', '=', identityId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
}

export async function setCredentialExpiry(db: Db, id: string, expiresAt: string): Promise<void> {
  await db.updateTable('agent_credentials').set({ expires_at: expiresAt }).where('id', '=', id).execute();
}

export async function findAgentStatus(db: Db, slug: string): Promise<{ status: AgentRow['status'] } | undefined> {
  return db.selectFrom('agents').select('status').where('slug', '=', slug).executeTakeFirst();
}
