// Frozen in time: decisions (traces), findings, detector switches and pack modes.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('traces')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('agent', 'text', (col) => col.notNull())
    .addColumn('subject', 'text', (col) => col.notNull())
    .addColumn('surface', 'text', (col) => col.notNull())
    .addColumn('tool', 'text')
    .addColumn('verdict', 'text', (col) => col.notNull())
    .addColumn('effective_verdict', 'text', (col) => col.notNull())
    .addColumn('mode', 'text', (col) => col.notNull())
    .addColumn('rules', 'text', (col) => col.notNull())
    .addColumn('entities', 'text', (col) => col.notNull())
    .addColumn('degraded', 'text', (col) => col.notNull())
    .addColumn('detectors', 'text', (col) => col.notNull())
    .addColumn('latency_ms', 'real', (col) => col.notNull())
    .addColumn('content_sha256', 'text', (col) => col.notNull())
    .addColumn('content_length', 'integer', (col) => col.notNull())
    .addColumn('content', 'text')
    .addColumn('session_id', 'text')
    .addColumn('trace_id', 'text')
    .addColumn('environment', 'text')
    .execute();
  await db.schema.createIndex('traces_agent_at').on('traces').columns(['agent', 'at']).execute();
  await db.schema.createIndex('traces_at').on('traces').column('at').execute();

  await db.schema
    .createTable('findings')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('fingerprint', 'text', (col) => col.notNull().unique())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('severity', 'text', (col) => col.notNull())
    .addColumn('severity_rank', 'integer', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('subject', 'text', (col) => col.notNull())
    .addColumn('agent', 'text')
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('last_seen_at', 'text', (col) => col.notNull())
    .addColumn('occurrences', 'integer', (col) => col.notNull())
    .addColumn('evidence', 'text', (col) => col.notNull())
    .addColumn('decision_id', 'text')
    .execute();
  await db.schema.createIndex('findings_status_type').on('findings').columns(['status', 'type']).execute();

  await db.schema
    .createTable('detector_settings')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('enabled', 'integer', (col) => col.notNull())
    .addColumn('reason', 'text')
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('policy_state')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('mode', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['policy_state', 'detector_settings', 'findings', 'traces']) await db.schema.dropTable(table).execute();
}
