// Frozen in time: the access side (issue 4): agents, identities, grants, tools, approvals, signing
// keys, signed agent messages and their nonces, memory entries and per-agent usage counters.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('slug', 'text', (col) => col.notNull().unique())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('purpose', 'text')
    .addColumn('owner_email', 'text')
    .addColumn('owner_team', 'text')
    .addColumn('environment', 'text')
    .addColumn('risk_tier', 'text')
    .addColumn('declared_models', 'text', (col) => col.notNull())
    .addColumn('declared_tools', 'text', (col) => col.notNull())
    .addColumn('data_classes', 'text', (col) => col.notNull())
    .addColumn('framework', 'text')
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('identity_id', 'text')
    .addColumn('protections', 'text', (col) => col.notNull())
    .addColumn('control', 'text', (col) => col.notNull())
    .addColumn('control_reason', 'text')
    .addColumn('control_by', 'text')
    .addColumn('control_at', 'text')
    .addColumn('seen_models', 'text', (col) => col.notNull())
    .addColumn('seen_tools', 'text', (col) => col.notNull())
    .addColumn('first_seen_at', 'text')
    .addColumn('last_seen_at', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('identities')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('agent_slug', 'text', (col) => col.notNull().unique())
    .addColumn('owner', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('capabilities')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('identity_id', 'text', (col) => col.notNull())
    .addColumn('agent_slug', 'text', (col) => col.notNull())
    .addColumn('tool_key', 'text', (col) => col.notNull())
    .addColumn('requires_approval', 'integer', (col) => col.notNull())
    .addColumn('max_taint', 'text')
    .addColumn('constraints', 'text', (col) => col.notNull())
    .addColumn('actions', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('capabilities_agent_tool', ['agent_slug', 'tool_key'])
    .execute();

  await db.schema
    .createTable('tools')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('kind', 'text')
    .addColumn('impact', 'text')
    .addColumn('description', 'text')
    .addColumn('json_schema', 'text')
    .addColumn('output_trust', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('approvals')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('agent', 'text', (col) => col.notNull())
    .addColumn('tool', 'text', (col) => col.notNull())
    .addColumn('arguments_sha256', 'text', (col) => col.notNull())
    .addColumn('arguments', 'text', (col) => col.notNull())
    .addColumn('decision_id', 'text', (col) => col.notNull())
    .addColumn('rules', 'text', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('rationale', 'text')
    .addColumn('used_at', 'text')
    .addColumn('used_decision_id', 'text')
    .execute();
  await db.schema.createIndex('approvals_status').on('approvals').columns(['status', 'id']).execute();
  await db.schema.createIndex('approvals_agent').on('approvals').columns(['agent', 'id']).execute();

  await db.schema
    .createTable('signing_keys')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('agent_slug', 'text', (col) => col.notNull())
    .addColumn('key_sealed', 'text', (col) => col.notNull())
    .addColumn('key_hint', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    /** Null while the key is current; after a rotation, the end of its overlap. */
    .addColumn('valid_until', 'text')
    .execute();
  await db.schema.createIndex('signing_keys_agent').on('signing_keys').column('agent_slug').execute();

  await db.schema
    .createTable('agent_messages')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('sender', 'text', (col) => col.notNull())
    .addColumn('recipient', 'text')
    .addColumn('nonce', 'text')
    .addColumn('timestamp', 'double precision')
    .addColumn('signature_status', 'text', (col) => col.notNull())
    .addColumn('verdict', 'text', (col) => col.notNull())
    .addColumn('effective_verdict', 'text', (col) => col.notNull())
    .addColumn('decision_id', 'text', (col) => col.notNull())
    .addColumn('content_sha256', 'text', (col) => col.notNull())
    .addColumn('session_id', 'text')
    .execute();
  await db.schema.createIndex('agent_messages_sender').on('agent_messages').columns(['sender', 'id']).execute();

  await db.schema
    .createTable('message_nonces')
    .addColumn('sender', 'text', (col) => col.notNull())
    .addColumn('nonce', 'text', (col) => col.notNull())
    .addColumn('at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('message_nonces_pk', ['sender', 'nonce'])
    .execute();

  await db.schema
    .createTable('memory_entries')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('agent', 'text', (col) => col.notNull())
    .addColumn('subject', 'text')
    .addColumn('content', 'text')
    .addColumn('content_sha256', 'text', (col) => col.notNull())
    .addColumn('provenance', 'text', (col) => col.notNull())
    .addColumn('taint_source', 'text')
    .addColumn('verified_by', 'text')
    .addColumn('verified_at', 'text')
    .addColumn('ttl_seconds', 'integer')
    .addColumn('verdict', 'text', (col) => col.notNull())
    .addColumn('decision_id', 'text', (col) => col.notNull())
    .addColumn('session_id', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('revoked_by', 'text')
    .execute();
  await db.schema.createIndex('memory_entries_agent').on('memory_entries').columns(['agent', 'id']).execute();

  await db.schema
    .createTable('agent_usage')
    .addColumn('agent', 'text', (col) => col.notNull())
    /** The counting window, e.g. an hour `2026-11-21T17` or a day `2026-11-21`. */
    .addColumn('window', 'text', (col) => col.notNull())
    .addColumn('calls', 'integer', (col) => col.notNull())
    .addColumn('cost_usd', 'double precision', (col) => col.notNull())
    .addPrimaryKeyConstraint('agent_usage_pk', ['agent', 'window'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'agent_usage',
    'memory_entries',
    'message_nonces',
    'agent_messages',
    'signing_keys',
    'approvals',
    'tools',
    'capabilities',
    'identities',
    'agents',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
