// Frozen in time: what people review and what an auditor trusts (issue 5): finding transitions,
// signed audit checkpoints, the durable job queue, evidence packages and legal holds.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('findings').addColumn('suppression_reason', 'text').execute();
  await db.schema.alterTable('findings').addColumn('resolution_note', 'text').execute();
  await db.schema.alterTable('findings').addColumn('status_changed_at', 'text').execute();
  await db.schema.alterTable('findings').addColumn('status_changed_by', 'text').execute();
  await db.schema.alterTable('findings').addColumn('reopened_count', 'integer', (col) => col.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('findings_last_seen').on('findings').column('last_seen_at').execute();
  await db.schema.createIndex('findings_agent').on('findings').columns(['agent', 'id']).execute();

  await db.schema
    .createTable('audit_checkpoints')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('seq', 'bigint', (col) => col.notNull())
    .addColumn('hash', 'text', (col) => col.notNull())
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('key_id', 'text', (col) => col.notNull())
    .addColumn('signature', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('max_attempts', 'integer', (col) => col.notNull())
    .addColumn('run_after', 'text', (col) => col.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('result', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('jobs_status_run_after').on('jobs').columns(['status', 'run_after']).execute();

  await db.schema
    .createTable('evidence_packages')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('manifest', 'text')
    .addColumn('manifest_sha256', 'text')
    .addColumn('file_name', 'text')
    .addColumn('size_bytes', 'integer')
    .addColumn('checkpoint_id', 'text')
    .addColumn('job_id', 'text')
    .addColumn('error', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('completed_at', 'text')
    .execute();

  await db.schema
    .createTable('legal_holds')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    /** JSON: { agents?: string[], from?: ISO, to?: ISO }; empty: everything. */
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('released_at', 'text')
    .addColumn('released_by', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['legal_holds', 'evidence_packages', 'jobs', 'audit_checkpoints']) await db.schema.dropTable(table).execute();
  await db.schema.dropIndex('findings_agent').execute();
  await db.schema.dropIndex('findings_last_seen').execute();
  for (const column of ['reopened_count', 'status_changed_by', 'status_changed_at', 'resolution_note', 'suppression_reason']) {
    await db.schema.alterTable('findings').dropColumn(column).execute();
  }
}
