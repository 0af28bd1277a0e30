// Queries for signing_keys, message_nonces and agent_messages. Returns plain rows.
import type { Kysely } from 'kysely';
import type { AgentMessageRow, AgentMessagesTable, Database, SigningKeyRow } from '../../infra/store/tables.js';

export async function agentExists(db: Kysely<Database>, slug: string): Promise<boolean> {
  return (await db.selectFrom('agents').select('id').where('slug', '=', slug).executeTakeFirst()) !== undefined;
}

export async function insertSigningKey(db: Kysely<Database>, row: SigningKeyRow): Promise<void> {
  await db.insertInto('signing_keys').values(row).execute();
}

/** The agent's current key: the one without an end (at most one; minting runs under the audit lock). */
export async function findCurrentKey(db: Kysely<Database>, slug: string): Promise<SigningKeyRow | undefined> {
  return db
    .selectFrom('signing_keys')
    .selectAll()
    .where('agent_slug', '=', slug)
    .where('valid_until', 'is', null)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

export async function endKey(db: Kysely<Database>, id: string, validUntil: string): Promise<void> {
  await db.updateTable('signing_keys').set({ valid_until: validUntil }).where('id', '=', id).execute();
}

/** The current key and every replaced key still inside its overlap at `now`, current first. */
export async function usableKeys(db: Kysely<Database>, slug: string, now: string): Promise<SigningKeyRow[]> {
  const rows = await db
    .selectFrom('signing_keys')
    .selectAll()
    .where('agent_slug', '=', slug)
    .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>', now)]))
    .orderBy('id', 'desc')
    .execute();
  return rows.sort((a, b) => Number(a.valid_until !== null) - Number(b.valid_until !== null));
}

/**
 * Records a (sender, nonce) pair; false when it was already there. The primary key decides, so
 * the answer is exact across every process on one database: of two concurrent inserts, one waits
 * for the other and then inserts nothing.
 */
export async function recordNonce(db: Kysely<Database>, sender: string, nonce: string, at: string): Promise<boolean> {
  const result = await db
    .insertInto('message_nonces')
    .values({ sender, nonce, at })
    .onConflict((conflict) => conflict.columns(['sender', 'nonce']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function purgeNonces(db: Kysely<Database>, before: string): Promise<void> {
  await db.deleteFrom('message_nonces').where('at', '<', before).execute();
}

export async function insertMessages(db: Kysely<Database>, rows: AgentMessagesTable[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (let index = 0; index < rows.length; index += 100) {
      await trx.insertInto('agent_messages').values(rows.slice(index, index + 100)).execute();
    }
  });
}

export async function listMessages(
  db: Kysely<Database>,
  filter: { sender?: string; before?: string; limit: number },
): Promise<AgentMessageRow[]> {
  let query = db.selectFrom('agent_messages').selectAll().orderBy('id', 'desc').limit(filter.limit);
  if (filter.sender !== undefined) query = query.where('sender', '=', filter.sender);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  return query.execute();
}
