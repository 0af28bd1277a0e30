// SQL of hosted-API scans: hosted_api_scans (migration 2026-11-26-19-integrations).
import type { Kysely, Transaction } from 'kysely';
import type { Database, HostedApiScanRow } from '../../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function insertScan(db: Db, row: HostedApiScanRow): Promise<void> {
  await db.insertInto('hosted_api_scans').values(row).execute();
}

export async function findScan(db: Db, id: string): Promise<HostedApiScanRow | undefined> {
  return db.selectFrom('hosted_api_scans').selectAll().where('id', '=', id).executeTakeFirst();
}
