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

/** Records that `subject` retrieved `source` at `at`, keeping the later time where a row exists. */
export async function upsertRetrievals(db: Db, rows: ReadonlyArray<{ subject: string; source: string; last_at: string }>): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    await db
      .insertInto('entitlement_retrievals')
      .values(rows.slice(start, start + INSERT_BATCH))
      .onConflict((conflict) =>
        conflict
          .columns(['subject', 'source'])
          .doUpdateSet({ last_at: (eb) => eb.ref('excluded.last_at') })
          .where('entitlement_retrievals.last_at', '<', (eb) => eb.ref('excluded.last_at')),
      )
      .execute();
  }
}

/** Per subject, the registered, active sources it retrieved at or after `since`. */
export async function retrievedCounts(db: Db, since: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('entitlement_retrievals')
    .innerJoin('knowledge_sources', 'knowledge_sources.key', 'entitlement_retrievals.source')
    .select(['entitlement_retrievals.subject as subject', (eb) => eb.fn.countAll<number | string>().as('sources')])
    .where('entitlement_retrievals.last_at', '>=', since)
    .where('knowledge_sources.deprecated', '=', 0)
    .groupBy('entitlement_retrievals.subject')
    .execute();
  return new Map(rows.map((row) => [row.subject, Number(row.sources)]));
}

/** Keys of registered sources that are not deprecated. */
export async function activeSourceKeys(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('knowledge_sources').select('key').where('deprecated', '=', 0).orderBy('key').execute();
  return rows.map((row) => row.key);
}
