// Frozen in time: audit checkpoints signed with Ed25519, so that anyone holding the gateway's public
// key can check them offline. Checkpoints made before keep their HMAC-SHA256 signatures, which
// only the gateway (holding the secret key) can check; `algorithm` says which a row carries.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  /** ed25519 or hmac-sha256 (rows made before this migration). */
  await db.schema
    .alterTable('audit_checkpoints')
    .addColumn('algorithm', 'text', (col) => col.notNull().defaultTo('hmac-sha256'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_checkpoints').dropColumn('algorithm').execute();
}
