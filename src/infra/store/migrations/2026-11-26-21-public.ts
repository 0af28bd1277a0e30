// Frozen in time: the public waitlist (spec 02 "Public endpoints"). One row per normalised address;
// nothing is sent anywhere. (Playground sandboxes keep their data in their own databases.)
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('waitlist_entries')
    .addColumn('id', 'text', (col) => col.primaryKey())
    /** Trimmed and lower-cased: what makes a second sign-up the same entry. */
    .addColumn('email_normalized', 'text', (col) => col.notNull().unique())
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('source', 'text')
    .addColumn('company', 'text')
    .addColumn('note', 'text')
    .addColumn('signups', 'integer', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('waitlist_entries').execute();
}
