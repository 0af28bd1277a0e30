// SQL of the code-host integration: the connection and webhook secret (sealed columns only), the
// deliveries seen (the primary key refuses a replay), scans, the discovery sites a scan writes for
// its repository, and the registered agents' slugs (what a shadow agent is not).
import type { Kysely, Transaction, Updateable } from 'kysely';
import type {
  CodehostConnectionsTable,
  CodehostDeliveriesTable,
  CodehostScanRow,
  CodehostScansTable,
  CodehostWebhookSecretsTable,
  Database,
  DiscoverySiteRow,
} from '../../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The one connection row and the one webhook secret row. */
export const SINGLETON_ID = 'default';
/** Sites written per insert statement (14 parameters each). */
const SITE_CHUNK = 50;

export async function findConnection(db: Db): Promise<CodehostConnectionsTable | undefined> {
  return db.selectFrom('codehost_connections').selectAll().where('id', '=', SINGLETON_ID).executeTakeFirst();
}

/** Inserts or replaces the connection; answers whether one existed before. */
export async function saveConnection(db: Db, row: CodehostConnectionsTable): Promise<boolean> {
  const existing = await findConnection(db);
  if (existing === undefined) {
    await db.insertInto('codehost_connections').values(row).execute();
    return false;
  }
  const { id: _id, created_by: _by, created_at: _at, ...replaced } = row;
  await db.updateTable('codehost_connections').set(replaced).where('id', '=', SINGLETON_ID).execute();
  return true;
}

export async function findWebhookSecret(db: Db): Promise<CodehostWebhookSecretsTable | undefined> {
  return db.selectFrom('codehost_webhook_secrets').selectAll().where('id', '=', SINGLETON_ID).executeTakeFirst();
}

/** Inserts or replaces the webhook secret; answers whether one existed before. */
export async function saveWebhookSecret(db: Db, row: CodehostWebhookSecretsTable): Promise<boolean> {
  const deleted = await db.deleteFrom('codehost_webhook_secrets').where('id', '=', SINGLETON_ID).executeTakeFirst();
  await db.insertInto('codehost_webhook_secrets').values(row).execute();
  return Number(deleted.numDeletedRows) > 0;
}

/**
 * Records a delivery unless its id was seen before: true when this caller recorded it. The primary
 * key decides, so two copies arriving at once cannot both pass.
 */
export async function recordDelivery(db: Db, row: CodehostDeliveriesTable): Promise<boolean> {
  const result = await db
    .insertInto('codehost_deliveries')
    .values(row)
    .onConflict((conflict) => conflict.column('delivery_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function setDeliveryScan(db: Db, deliveryId: string, scanId: string): Promise<void> {
  await db.updateTable('codehost_deliveries').set({ scan_id: scanId }).where('delivery_id', '=', deliveryId).execute();
}

export async function countDeliveries(db: Db): Promise<number> {
  const row = await db.selectFrom('codehost_deliveries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertScan(db: Db, row: CodehostScanRow): Promise<void> {
  await db.insertInto('codehost_scans').values(row).execute();
}

export async function findScan(db: Db, id: string): Promise<CodehostScanRow | undefined> {
  return db.selectFrom('codehost_scans').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateScan(db: Db, id: string, changes: Updateable<CodehostScansTable>): Promise<void> {
  await db.updateTable('codehost_scans').set(changes).where('id', '=', id).execute();
}

/**
 * Marks a queued (or interrupted running) scan running: true when this caller claimed it, so a
 * job delivered twice does not scan twice at once.
 */
export async function claimScan(db: Db, id: string, seenStatus: string, seenStartedAt: string | null, startedAt: string): Promise<boolean> {
  const query = db.updateTable('codehost_scans').set({ status: 'running', started_at: startedAt }).where('id', '=', id).where('status', '=', seenStatus);
  const result = await (seenStartedAt === null ? query.where('started_at', 'is', null) : query.where('started_at', '=', seenStartedAt)).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The registered agents' slugs among `slugs`. */
export async function registeredSlugs(db: Db, slugs: readonly string[]): Promise<Set<string>> {
  if (slugs.length === 0) return new Set();
  const rows = await db.selectFrom('agents').select('slug').where('slug', 'in', [...slugs]).execute();
  return new Set(rows.map((row) => row.slug));
}

/** The code-host sites of one repository. */
export async function repoSites(db: Db, repo: string): Promise<DiscoverySiteRow[]> {
  return db.selectFrom('discovery_sites').selectAll().where('origin', '=', 'codehost').where('location', '=', repo).execute();
}

/** Replaces the code-host sites of one repository with `rows`. */
export async function replaceRepoSites(db: Db, repo: string, rows: readonly DiscoverySiteRow[]): Promise<void> {
  await db.deleteFrom('discovery_sites').where('origin', '=', 'codehost').where('location', '=', repo).execute();
  for (let start = 0; start < rows.length; start += SITE_CHUNK) {
    await db.insertInto('discovery_sites').values(rows.slice(start, start + SITE_CHUNK)).execute();
  }
}
