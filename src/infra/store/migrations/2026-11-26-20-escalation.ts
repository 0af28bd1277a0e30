// Frozen in time: escalation hand-offs (spec 02 "Escalation"). Conversational turns the agents (or
// the proxy) report, the escalation policy per agent, and hand-offs to people with their SLA.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('escalation_turns')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('session_id', 'text', (col) => col.notNull())
    .addColumn('agent', 'text', (col) => col.notNull())
    .addColumn('trace_id', 'text')
    /** api (POST /api/escalation/turns) or proxy (a proxied chat with a session id). */
    .addColumn('origin', 'text', (col) => col.notNull())
    .addColumn('user_text', 'text')
    .addColumn('agent_text', 'text')
    /** 1 or 0; null when not reported. */
    .addColumn('escalated', 'integer')
    .addColumn('failed', 'integer')
    .addColumn('confidence', 'double precision')
    /** JSON array of the conditions that fired on this turn ({ condition, detail }). */
    .addColumn('conditions', 'text', (col) => col.notNull())
    .addColumn('handoff_id', 'text')
    .addColumn('at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('escalation_turns_session').on('escalation_turns').columns(['session_id', 'at']).execute();
  await db.schema.createIndex('escalation_turns_at').on('escalation_turns').columns(['at']).execute();
  await db.schema
    .createTable('escalation_policies')
    /** An agent slug, or `*` for the default policy. */
    .addColumn('agent', 'text', (col) => col.primaryKey())
    /** JSON object: which conditions apply and their parameters. */
    .addColumn('conditions', 'text', (col) => col.notNull())
    .addColumn('owner_role', 'text', (col) => col.notNull())
    .addColumn('sla_minutes', 'integer', (col) => col.notNull())
    /** observe or enforce. */
    .addColumn('mode', 'text', (col) => col.notNull())
    .addColumn('updated_by', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('escalation_handoffs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('session_id', 'text', (col) => col.notNull())
    .addColumn('agent', 'text', (col) => col.notNull())
    /** open, acknowledged or closed. */
    .addColumn('status', 'text', (col) => col.notNull())
    /** JSON array of the conditions that caused it. */
    .addColumn('reasons', 'text', (col) => col.notNull())
    .addColumn('owner_role', 'text', (col) => col.notNull())
    .addColumn('mode', 'text', (col) => col.notNull())
    /** 1 when created by a scan after the fact. */
    .addColumn('retroactive', 'integer', (col) => col.notNull())
    /** JSON: the conversation so far (bounded) when the hand-off was made. */
    .addColumn('conversation', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('due_at', 'text', (col) => col.notNull())
    .addColumn('acknowledged_at', 'text')
    .addColumn('acknowledged_by', 'text')
    .addColumn('note', 'text')
    .addColumn('closed_at', 'text')
    /** 1 once handoff_sla_breach was raised for it. */
    .addColumn('breached', 'integer', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('escalation_handoffs_session').on('escalation_handoffs').columns(['session_id']).execute();
  await db.schema.createIndex('escalation_handoffs_status').on('escalation_handoffs').columns(['status', 'due_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['escalation_handoffs', 'escalation_policies', 'escalation_turns']) await db.schema.dropTable(table).execute();
}
