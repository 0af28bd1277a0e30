// SQL of entitlement: principals, grants (read whole into memory by the service), withholdings
// recorded by filter calls, the last use of grants, and the registered source keys (read only).
import type { Kysely, Transaction } from 'kysely';
import type {
  Database,
  EntitlementGrantRow,
  EntitlementPrincipalRow,
  EntitlementWithholdingRow,
} from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Rows per insert statement: well under both dialects' parameter limits (8 columns a row). */
const INSERT_BATCH = 500;

export async function allPrincipals(db: Db): Promise<EntitlementPrincipalRow[]> {
  return db.selectFrom('entitlement_principals').selectAll().orderBy('subject').execute();
}

export async function findPrincipal(db: Db, subject: string): Promise<EntitlementPrincipalRow | undefined> {
  return db.selectFrom('entitlement_principals').selectAll().where('subject', '=', subject).executeTakeFirst();
}

export async function insertPrincipal(db: Db, row: EntitlementPrincipalRow): Promise<void> {
  await db.insertInto('entitlement_principals').values(row).execute();
}

export async function updatePrincipal(db: Db, subject: string, changes: Omit<EntitlementPrincipalRow, 'subject' | 'created_at'>): Promise<void> {
  await db.updateTable('entitlement_principals').set(changes).where('subject', '=', subject).execute();
}

export async function allGrants(db: Db): Promise<EntitlementGrantRow[]> {
  return db.selectFrom('entitlement_grants').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function insertGrant(db: Db, row: EntitlementGrantRow): Promise<void> {
  await db.insertInto('entitlement_grants').values(row).execute();
}

/** Sets last_used_at of each grant to `at` unless it already holds a later time. */
export async function markGrantsUsed(db: Db, ids: readonly string[], at: string): Promise<void> {
  for (let start = 0; start < ids.length; start += INSERT_BATCH) {
    const batch = ids.slice(start, start + INSERT_BATCH);
    await db
      .updateTable('entitlement_grants')
      .set({ last_used_at: at })
      .where('id', 'in', batch)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }
}

export async function insertWithholdings(db: Db, rows: readonly EntitlementWithholdingRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    await db.insertInto('entitlement_withholdings').values(rows.slice(start, start + INSERT_BATCH)).execute();
  }
}

/** Keys of registered sources that are not deprecated. */
export async function activeSourceKeys(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('knowledge_sources').select('key').where('deprecated', '=', 0).orderBy('key').execute();
  return rows.map((row) => row.key);
}
