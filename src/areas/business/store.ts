// Kysely queries for business_rules; rows in, rows out. The definition column holds the structured
// definition as JSON (src/business/schemas.ts BusinessDefinition).
import type { Kysely, Transaction } from 'kysely';
import { newestFirst } from '../custom-rules/store.js';
import type { Store } from '../../infra/store/db.js';
import type { BusinessRulesTable, Database } from '../../infra/store/tables.js';

export type BusinessRuleRow = BusinessRulesTable;

export class BusinessRuleStore {
  constructor(private readonly store: Store) {}

  /** Newest first; the cursor is the (created_at, key) of the last row of the page. */
  async page(limit: number, cursor: string | undefined): Promise<{ rows: BusinessRuleRow[]; next_cursor: string | null }> {
    return newestFirst(this.store.db, 'business_rules', limit, cursor);
  }

  all(): Promise<BusinessRuleRow[]> {
    return this.store.db.selectFrom('business_rules').selectAll().orderBy('key').execute();
  }

  /** What changes whenever any rule is written: every key with its last update. */
  async signature(): Promise<string> {
    const rows = await this.store.db.selectFrom('business_rules').select(['key', 'updated_at']).orderBy('key').execute();
    return rows.map((row) => `${row.key}\u0000${row.updated_at}`).join('\u0001');
  }

  get(db: Kysely<Database> | Transaction<Database>, key: string): Promise<BusinessRuleRow | undefined> {
    return db.selectFrom('business_rules').selectAll().where('key', '=', key).executeTakeFirst();
  }

  async put(trx: Transaction<Database>, row: BusinessRuleRow, exists: boolean): Promise<void> {
    if (exists) {
      await trx
        .updateTable('business_rules')
        .set({ definition: row.definition, agent: row.agent, mode: row.mode, updated_at: row.updated_at })
        .where('key', '=', row.key)
        .execute();
    } else {
      await trx.insertInto('business_rules').values(row).execute();
    }
  }
}
