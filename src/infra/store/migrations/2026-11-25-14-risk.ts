// Frozen in time: risk assessments of agents (POST /api/risk/assessments/{slug}). Every assessment
// is a new row, so the history stays; the latest per agent (by assessed_at, then id) is the one in
// force. The compliance controls agents.risk_assessed and agents.reviews_current read these columns.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('risk_assessments')
    .addColumn('id', 'text', (col) => col.primaryKey())
    /** The agent's slug. */
    .addColumn('agent', 'text', (col) => col.notNull())
    /** prohibited, high, limited or minimal. */
    .addColumn('eu_ai_act_class', 'text', (col) => col.notNull())
    /** low, medium, high or critical. */
    .addColumn('inherent_risk', 'text', (col) => col.notNull())
    .addColumn('residual_risk', 'text', (col) => col.notNull())
    /** JSON object: the assessor's answers. */
    .addColumn('answers', 'text', (col) => col.notNull())
    .addColumn('review_months', 'integer', (col) => col.notNull())
    /** 1 or 0. */
    .addColumn('signed_off', 'integer', (col) => col.notNull())
    .addColumn('signed_off_by', 'text')
    .addColumn('signed_off_at', 'text')
    .addColumn('assessed_by', 'text', (col) => col.notNull())
    .addColumn('assessed_at', 'text', (col) => col.notNull())
    .addColumn('next_review_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('risk_assessments_agent_at').on('risk_assessments').columns(['agent', 'assessed_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('risk_assessments').execute();
}
