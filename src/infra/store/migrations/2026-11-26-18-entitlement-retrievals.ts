// Frozen in time: what each entitlement subject retrieved, per source (the retrieved side of the
// over-permission report), kept in the database so that it survives restarts and is shared by
// every gateway process.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('entitlement_retrievals')
    .addColumn('subject', 'text', (col) => col.notNull())
    .addColumn('source', 'text', (col) => col.notNull())
    /** The last time a filter call allowed a chunk of this source to this subject. */
    .addColumn('last_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('entitlement_retrievals_pk', ['subject', 'source'])
    .execute();
  await db.schema.createIndex('entitlement_retrievals_last_at').on('entitlement_retrievals').columns(['last_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('entitlement_retrievals').execute();
}
