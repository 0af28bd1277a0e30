// Frozen in time: policy as code. Saved policy versions and their scope, canaries, change proposals
// and their decisions, persisted simulations; custom and business rules and rule examples; guardrail
// feedback and suppressions. Traces gain the facts policy saw (so that a candidate can be replayed
// over recorded traffic without the content) and the canary cohort a call fell in.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('traces').addColumn('facts', 'text').execute();
  await db.schema.alterTable('traces').addColumn('canary', 'text').execute();

  await db.schema
    .createTable('policies')
    .addColumn('key', 'text', (col) => col.primaryKey())
    /** org, team, agent or environment; scope_id names the team, agent or environment ('' at org). */
    .addColumn('level', 'text', (col) => col.notNull())
    .addColumn('scope_id', 'text', (col) => col.notNull())
    /** merge: adds to the policies above it; override: replaces same-id rules of the levels above. */
    .addColumn('compose', 'text', (col) => col.notNull())
    .addColumn('mode', 'text', (col) => col.notNull())
    /** The version in force; null until one is approved or made live. */
    .addColumn('live_version', 'integer')
    /** shipped, api or library. */
    .addColumn('origin', 'text', (col) => col.notNull())
    /** 1 while the policy is bound (evaluated); 0 when removed from service. */
    .addColumn('bound', 'integer', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('policy_versions')
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull())
    .addColumn('text', 'text', (col) => col.notNull())
    /** The mode the version goes live in (the text's, or the one given when it was saved). */
    .addColumn('mode', 'text', (col) => col.notNull())
    .addColumn('notes', 'text')
    /** pending, approved or rejected. */
    .addColumn('status', 'text', (col) => col.notNull())
    /** upsert, rule_change, shipped or library. */
    .addColumn('source', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('policy_versions_pk', ['key', 'version'])
    .execute();

  await db.schema
    .createTable('policy_canaries')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('baseline_version', 'integer', (col) => col.notNull())
    .addColumn('candidate_version', 'integer', (col) => col.notNull())
    /** JSON array of cohort percentages, ascending. */
    .addColumn('steps', 'text', (col) => col.notNull())
    .addColumn('step_index', 'integer', (col) => col.notNull())
    .addColumn('max_block_rate_delta', 'double precision', (col) => col.notNull())
    .addColumn('max_block_rate_drop', 'double precision', (col) => col.notNull())
    .addColumn('min_dwell_seconds', 'integer', (col) => col.notNull())
    .addColumn('min_sample', 'integer', (col) => col.notNull())
    /** running, completed or rolled_back. */
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('proposal_id', 'text')
    .addColumn('started_at', 'text', (col) => col.notNull())
    .addColumn('step_started_at', 'text', (col) => col.notNull())
    .addColumn('ended_at', 'text')
    /** JSON: the last advance's figures and outcome. */
    .addColumn('last_check', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('policy_canaries_key').on('policy_canaries').columns(['key', 'state']).execute();

  await db.schema
    .createTable('proposals')
    .addColumn('id', 'text', (col) => col.primaryKey())
    /** policy_version (a saved version to make live), for now. */
    .addColumn('kind', 'text', (col) => col.notNull())
    /** pending, approved, rejected, applied, canary, verified, rolled_back. */
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('scope_level', 'text', (col) => col.notNull())
    .addColumn('scope_id', 'text', (col) => col.notNull())
    .addColumn('policy_key', 'text', (col) => col.notNull())
    .addColumn('from_version', 'integer')
    .addColumn('to_version', 'integer', (col) => col.notNull())
    /** 1 when the change loosens what is enforced (a rule removed, disabled or weakened). */
    .addColumn('loosening', 'integer', (col) => col.notNull())
    .addColumn('approvals_needed', 'integer', (col) => col.notNull())
    .addColumn('title', 'text', (col) => col.notNull())
    /** JSON: the rule-level diff, the evidence (simulation) and the proof (lint). */
    .addColumn('diff', 'text', (col) => col.notNull())
    .addColumn('evidence', 'text', (col) => col.notNull())
    .addColumn('proof', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addColumn('applied_at', 'text')
    .addColumn('verified_note', 'text')
    .addColumn('rollback_reason', 'text')
    .execute();
  await db.schema.createIndex('proposals_status').on('proposals').columns(['status', 'created_at']).execute();

  await db.schema
    .createTable('proposal_decisions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('proposal_id', 'text', (col) => col.notNull())
    .addColumn('actor', 'text', (col) => col.notNull())
    .addColumn('approve', 'integer', (col) => col.notNull())
    .addColumn('note', 'text', (col) => col.notNull())
    .addColumn('at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('proposal_decisions_proposal').on('proposal_decisions').column('proposal_id').execute();

  await db.schema
    .createTable('simulations')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('policy_key', 'text', (col) => col.notNull())
    /** JSON: counts and the changed decisions. */
    .addColumn('result', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('custom_rules')
    .addColumn('key', 'text', (col) => col.primaryKey())
    /** JSON: the rule as posted (name, kind, polarity, entries, surfaces, agents, effect, ...). */
    .addColumn('definition', 'text', (col) => col.notNull())
    .addColumn('enabled', 'integer', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('business_rules')
    .addColumn('key', 'text', (col) => col.primaryKey())
    /** JSON: the structured definition (compiled from plain language or written by hand). */
    .addColumn('definition', 'text', (col) => col.notNull())
    .addColumn('agent', 'text')
    .addColumn('mode', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('rule_examples')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('rule_id', 'text', (col) => col.notNull())
    .addColumn('decision_id', 'text', (col) => col.notNull())
    /** 1: the rule should fire on this decision's call; 0: it should not. */
    .addColumn('fires', 'integer', (col) => col.notNull())
    .addColumn('sample', 'text')
    /** JSON: the facts of the decision, copied so that the example outlives trace retention. */
    .addColumn('facts', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('rule_examples_rule').on('rule_examples').column('rule_id').execute();

  await db.schema
    .createTable('guardrail_feedback')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('decision_id', 'text', (col) => col.notNull())
    /** false_positive, true_positive or false_negative. */
    .addColumn('label', 'text', (col) => col.notNull())
    .addColumn('detector_key', 'text')
    .addColumn('entity_type', 'text')
    .addColumn('note', 'text')
    .addColumn('agent', 'text', (col) => col.notNull())
    .addColumn('surface', 'text', (col) => col.notNull())
    .addColumn('content_sha256', 'text', (col) => col.notNull())
    /** open, or suppressed once a suppression was made from it. */
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('guardrail_feedback_at').on('guardrail_feedback').columns(['created_at']).execute();

  await db.schema
    .createTable('guardrail_suppressions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('feedback_id', 'text', (col) => col.notNull())
    /** agent or global. */
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('agent', 'text')
    .addColumn('detector_key', 'text')
    .addColumn('entity_type', 'text')
    /** Set when exact: only the same content (by digest) is suppressed. */
    .addColumn('content_sha256', 'text')
    .addColumn('reason', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'guardrail_suppressions',
    'guardrail_feedback',
    'rule_examples',
    'business_rules',
    'custom_rules',
    'simulations',
    'proposal_decisions',
    'proposals',
    'policy_canaries',
    'policy_versions',
    'policies',
  ]) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.alterTable('traces').dropColumn('canary').execute();
  await db.schema.alterTable('traces').dropColumn('facts').execute();
}
