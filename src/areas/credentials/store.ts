// Queries for the agent_credentials table. Returns plain rows.
import type { Kysely } from 'kysely';
import type { AgentCredentialRow, Database } from '../../infra/store/tables.js';

export async function insertCredential(db: Kysely<Database>, row: AgentCredentialRow): Promise<void> {
  await db.insertInto('agent_credentials').values(row).execute();
}

export async function findCredentialById(db: Kysely<Database>, id: string): Promise<AgentCredentialRow | undefined> {
  return db.selectFrom('agent_credentials').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function markCredentialRevoked(db: Kysely<Database>, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('agent_credentials')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
