// Frozen in time: MCP tool servers and the tools they list, each pinned by hash at review
// (spec 01 §2.6: schema_drift, mcp_schema_drift, tool_poisoning, unpinned_server).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mcp_servers')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('url', 'text')
    .addColumn('transport', 'text', (col) => col.notNull())
    /** stdio servers: the command and its JSON array of arguments. */
    .addColumn('command', 'text')
    .addColumn('args', 'text', (col) => col.notNull())
    .addColumn('trust_level', 'text', (col) => col.notNull())
    .addColumn('pinned_version', 'text')
    /** What the server reported about itself at the last live scan. */
    .addColumn('server_version', 'text')
    .addColumn('last_scanned_at', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('mcp_tools')
    .addColumn('server', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    /** The definition as last listed. */
    .addColumn('title', 'text')
    .addColumn('description', 'text')
    .addColumn('input_schema', 'text', (col) => col.notNull())
    .addColumn('output_schema', 'text')
    .addColumn('annotations', 'text', (col) => col.notNull())
    .addColumn('impact', 'text', (col) => col.notNull())
    .addColumn('current_hash', 'text', (col) => col.notNull())
    /** The hash accepted at review; null until a person reviews the tool. */
    .addColumn('pin_hash', 'text')
    .addColumn('pinned_definition', 'text')
    .addColumn('reviewed_at', 'text')
    .addColumn('reviewed_by', 'text')
    .addColumn('review_note', 'text')
    /** pinned | changed | new | removed */
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('poisoned', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('first_seen_at', 'text', (col) => col.notNull())
    .addColumn('last_seen_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('mcp_tools_pk', ['server', 'name'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mcp_tools').execute();
  await db.schema.dropTable('mcp_servers').execute();
}
