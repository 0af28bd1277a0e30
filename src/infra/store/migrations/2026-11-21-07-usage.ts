// Frozen in time: model usage per agent, model and UTC day (proxied calls, refusals, tokens, cost),
// one row updated by an atomic upsert per call so that every process sharing the database counts
// into the same row (daily budgets read it).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('model_usage')
    .addColumn('agent', 'text', (col) => col.notNull())
    .addColumn('model', 'text', (col) => col.notNull())
    /** YYYY-MM-DD, UTC. */
    .addColumn('day', 'text', (col) => col.notNull())
    /** Every proxied call, forwarded or not. */
    .addColumn('calls', 'integer', (col) => col.notNull())
    /** Calls answered without the upstream (policy, loop or budget refusals). */
    .addColumn('blocked', 'integer', (col) => col.notNull())
    /** Forwarded calls whose model has no price (their cost counts as 0). */
    .addColumn('unpriced', 'integer', (col) => col.notNull())
    .addColumn('prompt_tokens', 'bigint', (col) => col.notNull())
    .addColumn('completion_tokens', 'bigint', (col) => col.notNull())
    .addColumn('cost_usd', 'double precision', (col) => col.notNull())
    .addPrimaryKeyConstraint('model_usage_pk', ['agent', 'model', 'day'])
    .execute();
  await db.schema.createIndex('model_usage_day').on('model_usage').column('day').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('model_usage').execute();
}
