// Frozen in time: recordings the database refused for a reason of their own (not an outage) are kept
// here whole instead of being lost, so that the rest of their batch is stored and the record can be
// looked at and replayed.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('dead_letters')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('at', 'text', (col) => col.notNull())
    /** What was refused: `recording` (a decision's trace with its findings, or findings alone). */
    .addColumn('kind', 'text', (col) => col.notNull())
    /** The database's error message. */
    .addColumn('error', 'text', (col) => col.notNull())
    /** JSON of what was to be written. */
    .addColumn('payload', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('dead_letters_at').on('dead_letters').column('at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('dead_letters').execute();
}
