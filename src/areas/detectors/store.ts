// Queries for the operator's detector switches (detector_settings). Returns plain rows.
import type { Kysely, Transaction } from 'kysely';
import type { Database, DetectorSettingsTable } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function upsertDetectorSetting(db: Db, row: DetectorSettingsTable): Promise<void> {
  await db
    .insertInto('detector_settings')
    .values(row)
    .onConflict((conflict) => conflict.column('key').doUpdateSet({ enabled: row.enabled, reason: row.reason, updated_at: row.updated_at }))
    .execute();
}

export async function listDetectorSettings(db: Db): Promise<Array<Pick<DetectorSettingsTable, 'key' | 'enabled'>>> {
  return db.selectFrom('detector_settings').select(['key', 'enabled']).execute();
}
