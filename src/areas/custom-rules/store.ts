// Kysely queries for custom_rules; rows in, rows out. The definition column holds the rule as JSON
// with every default filled in (src/custom-rules/matcher.ts CustomRuleDefinition).
import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { problem } from '../../infra/http/problems.js';
import type { Store } from '../../infra/store/db.js';
import type { CustomRulesTable, Database } from '../../infra/store/tables.js';

export type CustomRuleRow = CustomRulesTable;

/** The version of a pack built from an operator rule table: every process derives it alike from the same rows (a digest, not a counter). */
export function ruleSetVersion(signature: string): number {
  return (createHash('sha256').update(signature).digest().readUInt32BE(0) % 2_000_000_000) + 1;
}

/**
 * A page of an operator rule table (custom or business rules), newest first, keyed by
 * (created_at, key). Both tables share those columns; the row type follows the table.
 */
export async function newestFirst<T extends 'custom_rules' | 'business_rules'>(
  db: Kysely<Database>,
  table: T,
  limit: number,
  cursor: string | undefined,
): Promise<{ rows: Array<Database[T]>; next_cursor: string | null }> {
  let select = db.selectFrom(table as 'custom_rules').selectAll().orderBy('created_at', 'desc').orderBy('key', 'desc').limit(limit + 1);
  const after = decodeRuleCursor(cursor);
  if (after !== undefined) {
    select = select.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('key', '<', after.key)])]));
  }
  const rows = (await select.execute()) as unknown as Array<Database[T]>;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, next_cursor: rows.length > limit && last !== undefined ? encodeRuleCursor(last) : null };
}

/** Lists are newest first; the cursor is the (created_at, key) of the last row of the page. */
export function encodeRuleCursor(row: { created_at: string; key: string }): string {
  return Buffer.from(JSON.stringify([row.created_at, row.key]), 'utf8').toString('base64url');
}

export function decodeRuleCursor(cursor: string | undefined): { createdAt: string; key: string } | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') {
      return { createdAt: value[0], key: value[1] };
    }
  } catch {
    // Falls through to the refusal below.
  }
  throw problem('invalid-request', 'cursor is not one this gateway issued', [{ field: '/querystring/cursor', message: 'unknown cursor' }]);
}

export class CustomRuleStore {
  constructor(private readonly store: Store) {}

  async page(limit: number, cursor: string | undefined): Promise<{ rows: CustomRuleRow[]; next_cursor: string | null }> {
    return newestFirst(this.store.db, 'custom_rules', limit, cursor);
  }

  all(): Promise<CustomRuleRow[]> {
    return this.store.db.selectFrom('custom_rules').selectAll().orderBy('key').execute();
  }

  /** What changes whenever any rule is written or removed: every key with its last update. */
  async signature(): Promise<string> {
    const rows = await this.store.db.selectFrom('custom_rules').select(['key', 'updated_at', 'enabled']).orderBy('key').execute();
    return rows.map((row) => `${row.key}\u0000${row.updated_at}\u0000${row.enabled}`).join('\u0001');
  }

  get(db: Kysely<Database> | Transaction<Database>, key: string): Promise<CustomRuleRow | undefined> {
    return db.selectFrom('custom_rules').selectAll().where('key', '=', key).executeTakeFirst();
  }

  keys(db: Kysely<Database> | Transaction<Database>): Promise<string[]> {
    return db
      .selectFrom('custom_rules')
      .select('key')
      .execute()
      .then((rows) => rows.map((row) => row.key));
  }

  async put(trx: Transaction<Database>, row: CustomRuleRow, exists: boolean): Promise<void> {
    if (exists) {
      await trx
        .updateTable('custom_rules')
        .set({ definition: row.definition, enabled: row.enabled, updated_at: row.updated_at })
        .where('key', '=', row.key)
        .execute();
    } else {
      await trx.insertInto('custom_rules').values(row).execute();
    }
  }

  async remove(trx: Transaction<Database>, key: string): Promise<boolean> {
    const result = await trx.deleteFrom('custom_rules').where('key', '=', key).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
