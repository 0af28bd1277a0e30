// Frozen in time: the judgment posture an operator stored (PUT /api/judgment/posture). One row, id
// `current`; without it the posture follows the settings (`judgment_tiers`).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('judgment_posture')
    .addColumn('id', 'text', (col) => col.primaryKey())
    /** JSON list of tier strings, in the order they are asked. */
    .addColumn('tiers', 'text', (col) => col.notNull())
    /** block, redact or allow. */
    .addColumn('pii_egress', 'text', (col) => col.notNull())
    /** 1 or 0. */
    .addColumn('fail_closed', 'integer', (col) => col.notNull())
    /** local, remote or auto. */
    .addColumn('backend', 'text', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('updated_by', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('judgment_posture').execute();
}
