// SQL of code-host provisioning: codehost_identities (migration 2026-11-26-19-integrations).
import type { Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { CodehostIdentitiesTable, Database } from '../../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;
export type CodehostIdentityRow = Selectable<CodehostIdentitiesTable>;

export async function findIdentity(db: Db, codehostUserId: string): Promise<CodehostIdentityRow | undefined> {
  return db.selectFrom('codehost_identities').selectAll().where('codehost_user_id', '=', codehostUserId).executeTakeFirst();
}

/** Inserts the identity unless one with its code-host id exists; true when this call inserted it. */
export async function insertIdentityIfAbsent(db: Db, row: CodehostIdentityRow): Promise<boolean> {
  const result = await db
    .insertInto('codehost_identities')
    .values(row)
    .onConflict((conflict) => conflict.column('codehost_user_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function updateIdentity(db: Db, codehostUserId: string, patch: Updateable<CodehostIdentitiesTable>): Promise<void> {
  await db.updateTable('codehost_identities').set(patch).where('codehost_user_id', '=', codehostUserId).execute();
}
