// Frozen in time: spans received over OTLP/HTTP (POST /v1/traces) and the index that links them
// to decisions through the trace id a guard call recorded.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('spans')
    .addColumn('trace_id', 'text', (col) => col.notNull())
    .addColumn('span_id', 'text', (col) => col.notNull())
    .addColumn('parent_span_id', 'text')
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('start_time', 'text', (col) => col.notNull())
    .addColumn('end_time', 'text')
    .addColumn('duration_ms', 'real')
    .addColumn('status_code', 'text', (col) => col.notNull())
    .addColumn('status_message', 'text')
    .addColumn('scope_name', 'text')
    .addColumn('attributes', 'text', (col) => col.notNull())
    .addColumn('resource_attributes', 'text', (col) => col.notNull())
    .addColumn('dropped_attributes', 'integer', (col) => col.notNull())
    .addColumn('agent', 'text')
    .addColumn('external_system', 'text', (col) => col.notNull())
    .addColumn('external_id', 'text', (col) => col.notNull())
    .addColumn('decision_id', 'text')
    .addColumn('received_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('spans_pk', ['trace_id', 'span_id'])
    .execute();
  await db.schema.createIndex('spans_external').on('spans').columns(['external_system', 'external_id']).execute();
  await db.schema.createIndex('spans_decision').on('spans').column('decision_id').execute();
  await db.schema.createIndex('spans_received_at').on('spans').column('received_at').execute();
  // Guard calls record the caller's trace id; linking spans to decisions looks decisions up by it.
  await db.schema.createIndex('traces_trace_id').on('traces').column('trace_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('traces_trace_id').execute();
  await db.schema.dropTable('spans').execute();
}
