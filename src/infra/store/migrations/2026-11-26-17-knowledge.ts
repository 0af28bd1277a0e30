// Frozen in time: knowledge governance (spec 02 "Answerability, sources, entitlement"). The source
// registry and its connections (the credential sealed), entitlement principals and grants and what
// a filter withheld, answerability boundaries and the checks made against them.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('knowledge_sources')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('title', 'text', (col) => col.notNull())
    /** system_of_record, approved, unverified or external. */
    .addColumn('tier', 'text', (col) => col.notNull())
    .addColumn('owner', 'text')
    .addColumn('domain', 'text')
    /** When the content last changed at the source, as its owner or a validation says. */
    .addColumn('updated_at_source', 'text')
    .addColumn('freshness_sla_hours', 'integer')
    /** 1 or 0. */
    .addColumn('deprecated', 'integer', (col) => col.notNull())
    /** JSON object. */
    .addColumn('metadata', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    /** The last time an assessed answer or a checked context cited the source. */
    .addColumn('last_cited_at', 'text')
    .addColumn('validated_at', 'text')
    /** JSON object: what the last validation saw (row count, freshest timestamp, HTTP status, error). */
    .addColumn('validation', 'text')
    /** 1 or 0; null before the first validation. */
    .addColumn('validation_ok', 'integer')
    .execute();
  await db.schema
    .createTable('source_connections')
    .addColumn('key', 'text', (col) => col.primaryKey())
    /** database or api. */
    .addColumn('kind', 'text', (col) => col.notNull())
    /** JSON object without any secret. */
    .addColumn('config', 'text', (col) => col.notNull())
    /** Sealed (src/infra/lib/sealed.ts); never answered back. */
    .addColumn('credential', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addColumn('last_error', 'text')
    .execute();
  await db.schema
    .createTable('entitlement_principals')
    .addColumn('subject', 'text', (col) => col.primaryKey())
    .addColumn('agent', 'text')
    .addColumn('display', 'text')
    /** JSON arrays of strings. */
    .addColumn('groups', 'text', (col) => col.notNull())
    .addColumn('clearances', 'text', (col) => col.notNull())
    .addColumn('purposes', 'text', (col) => col.notNull())
    .addColumn('residency', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('entitlement_grants')
    .addColumn('id', 'text', (col) => col.primaryKey())
    /** A glob over chunk sources. */
    .addColumn('resource', 'text', (col) => col.notNull())
    .addColumn('principal', 'text', (col) => col.notNull())
    /** subject, group, agent or * (everyone). */
    .addColumn('principal_kind', 'text', (col) => col.notNull())
    /** JSON arrays of strings; empty: any. */
    .addColumn('classes', 'text', (col) => col.notNull())
    .addColumn('purposes', 'text', (col) => col.notNull())
    .addColumn('residency', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema
    .createTable('entitlement_withholdings')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('trace_id', 'text')
    .addColumn('subject', 'text', (col) => col.notNull())
    .addColumn('agent', 'text')
    .addColumn('chunk_source', 'text', (col) => col.notNull())
    .addColumn('chunk_id', 'text')
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('entitlement_withholdings_trace').on('entitlement_withholdings').columns(['trace_id']).execute();
  await db.schema.createIndex('entitlement_withholdings_at').on('entitlement_withholdings').columns(['at']).execute();
  await db.schema
    .createTable('answerability_boundaries')
    .addColumn('agent', 'text', (col) => col.primaryKey())
    /** JSON arrays of strings. */
    .addColumn('systems_of_record', 'text', (col) => col.notNull())
    .addColumn('coverage_months', 'integer')
    .addColumn('coverage_start', 'text')
    .addColumn('entity_types', 'text', (col) => col.notNull())
    .addColumn('answerable_types', 'text', (col) => col.notNull())
    .addColumn('out_of_scope_topics', 'text', (col) => col.notNull())
    .addColumn('freshness_hours', 'integer')
    /** observe or enforce. */
    .addColumn('mode', 'text', (col) => col.notNull())
    .addColumn('updated_by', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('answerability_checks')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('agent', 'text', (col) => col.notNull())
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('question_sha256', 'text', (col) => col.notNull())
    /** answerable, not_answerable or partial. */
    .addColumn('outcome', 'text', (col) => col.notNull())
    /** JSON array of { code, detail }. */
    .addColumn('reasons', 'text', (col) => col.notNull())
    .addColumn('trace_id', 'text')
    .execute();
  await db.schema.createIndex('answerability_checks_agent_at').on('answerability_checks').columns(['agent', 'at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['answerability_checks', 'answerability_boundaries', 'entitlement_withholdings', 'entitlement_grants', 'entitlement_principals', 'source_connections', 'knowledge_sources']) {
    await db.schema.dropTable(table).execute();
  }
}
