// Frozen in time: the control catalogue (loaded from catalogue/ by POST /api/controls/sync), the
// results of computing it, persons' reviews of a control against a framework clause, and dated
// obligations.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('control_catalogue')
    .addColumn('version', 'integer', (col) => col.primaryKey())
    /** sha256 of the catalogue files, in name order: a sync with the same files makes no version. */
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addColumn('loaded_at', 'text', (col) => col.notNull())
    .addColumn('loaded_by', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('controls')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('version', 'integer', (col) => col.notNull())
    .addColumn('title', 'text', (col) => col.notNull())
    /** JSON: the control as the catalogue defines it, with the clauses it maps to. */
    .addColumn('definition', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('control_results')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('computed_at', 'text', (col) => col.notNull())
    .addColumn('window_days', 'integer', (col) => col.notNull())
    /** pass, fail or not_evidenced. */
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('value', 'double precision')
    /** JSON: { ids, counts }. */
    .addColumn('evidence', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('control_results_key_at').on('control_results').columns(['key', 'computed_at']).execute();
  await db.schema
    .createTable('framework_reviews')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('framework', 'text', (col) => col.notNull())
    .addColumn('control_key', 'text', (col) => col.notNull())
    .addColumn('reference', 'text')
    .addColumn('reviewer', 'text', (col) => col.notNull())
    .addColumn('reviewed_at', 'text', (col) => col.notNull())
    .addColumn('note', 'text')
    .execute();
  await db.schema
    .createTable('obligations')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('due_at', 'text', (col) => col.notNull())
    .addColumn('source', 'text', (col) => col.notNull())
    /** 1 or 0. */
    .addColumn('recurring', 'integer', (col) => col.notNull())
    /** JSON. */
    .addColumn('detail', 'text', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['obligations', 'framework_reviews', 'control_results', 'controls', 'control_catalogue']) await db.schema.dropTable(table).execute();
}
