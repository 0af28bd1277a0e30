// Frozen in time: this migration uses Kysely<any> and never the application's table types.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('role', 'text')
    .addColumn('owner', 'text', (col) => col.notNull())
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    .addColumn('token_hint', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('api_tokens_owner').on('api_tokens').column('owner').execute();

  await db.schema
    .createTable('agent_credentials')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('identity_id', 'text', (col) => col.notNull())
    .addColumn('agent_slug', 'text', (col) => col.notNull())
    .addColumn('secret_hash', 'text', (col) => col.notNull().unique())
    .addColumn('secret_hint', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('agent_credentials_identity').on('agent_credentials').column('identity_id').execute();

  await db.schema
    .createTable('audit_entries')
    .addColumn('seq', 'bigint', (col) => col.primaryKey())
    .addColumn('id', 'text', (col) => col.notNull().unique())
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('actor', 'text', (col) => col.notNull())
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('target', 'text')
    .addColumn('detail', 'text', (col) => col.notNull())
    .addColumn('prev_hash', 'text', (col) => col.notNull())
    .addColumn('hash', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('audit_entries_action').on('audit_entries').column('action').execute();

  await db.schema
    .createTable('meta')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['meta', 'audit_entries', 'agent_credentials', 'api_tokens']) {
    await db.schema.dropTable(table).execute();
  }
}
