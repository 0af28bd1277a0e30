// Frozen in time: evaluations (spec 02 "Evaluations"). Suites hold cases; a run answers each case
// with a target (one `eval_outputs` row per case, or per sampled decision for an online run) and
// scores every output with each scorer (one `eval_results` row per output and scorer, where a
// person's annotation may override the scorer). SLOs are objectives over online results.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('eval_suites')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    /** JSON array of strings. */
    .addColumn('tags', 'text', (col) => col.notNull())
    /** Grows by one with every change to the suite's cases: a run records the version it ran. */
    .addColumn('version', 'integer', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('eval_cases')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('suite', 'text', (col) => col.notNull())
    /** The caller's own name for the case (suite files); unique within the suite when given. */
    .addColumn('case_key', 'text')
    /** Order within the suite. */
    .addColumn('position', 'integer', (col) => col.notNull())
    /** JSON objects. */
    .addColumn('input', 'text', (col) => col.notNull())
    .addColumn('expected', 'text', (col) => col.notNull())
    .addColumn('context', 'text', (col) => col.notNull())
    /** JSON array of strings. */
    .addColumn('labels', 'text', (col) => col.notNull())
    .addColumn('split', 'text', (col) => col.notNull())
    /** api, file, trace or annotation. */
    .addColumn('source', 'text', (col) => col.notNull())
    /** The decision or result the case was made from. */
    .addColumn('source_ref', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('eval_cases_suite').on('eval_cases').columns(['suite', 'position']).execute();
  await db.schema.createIndex('eval_cases_suite_key').on('eval_cases').columns(['suite', 'case_key']).unique().execute();
  await db.schema
    .createTable('eval_runs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    /** offline (a suite against a target) or online (sampled recorded traffic). */
    .addColumn('kind', 'text', (col) => col.notNull())
    /** Null for online runs. */
    .addColumn('suite', 'text')
    .addColumn('suite_version', 'integer')
    /** The agent the run is about (online: required; offline: the target's agent). */
    .addColumn('agent', 'text')
    /** JSON objects/arrays: the target and the scorer specs as given (defaults filled in). */
    .addColumn('target', 'text', (col) => col.notNull())
    .addColumn('scorers', 'text', (col) => col.notNull())
    .addColumn('baseline_run_id', 'text')
    .addColumn('runner', 'text', (col) => col.notNull())
    /** queued, running, completed or failed. */
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('job_id', 'text')
    .addColumn('total', 'integer', (col) => col.notNull())
    .addColumn('done', 'integer', (col) => col.notNull())
    .addColumn('error', 'text')
    /** JSON object: settings of the run (online: since_days, rate, sampled, skipped). */
    .addColumn('options', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('eval_runs_suite').on('eval_runs').columns(['suite', 'created_at']).execute();
  await db.schema.createIndex('eval_runs_kind_agent').on('eval_runs').columns(['kind', 'agent', 'created_at']).execute();
  await db.schema
    .createTable('eval_outputs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('run_id', 'text', (col) => col.notNull())
    /** Offline runs: the case answered. */
    .addColumn('case_id', 'text')
    /** Online runs: the recorded decision scored. */
    .addColumn('decision_id', 'text')
    .addColumn('agent', 'text')
    /** When the output was made (online: when the decision was recorded). */
    .addColumn('at', 'text', (col) => col.notNull())
    /** The target's answer text, cut to a bound; null when there was none. */
    .addColumn('output', 'text')
    /** The gateway's verdict on the call, where one was taken (guard target, model target, online). */
    .addColumn('verdict', 'text')
    /** JSON array: entity types detected (guard: in the input; model/http/online: in the output). */
    .addColumn('entities', 'text', (col) => col.notNull())
    .addColumn('latency_ms', 'double precision')
    .addColumn('cost_usd', 'double precision')
    /** Why the target gave no answer (timeout, upstream error); the case's scores then fail. */
    .addColumn('error', 'text')
    /** JSON object: what else the target reported (rules fired, blocked_by_gateway, usage). */
    .addColumn('detail', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('eval_outputs_run').on('eval_outputs').columns(['run_id', 'case_id']).execute();
  await db.schema
    .createTable('eval_results')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('run_id', 'text', (col) => col.notNull())
    .addColumn('output_id', 'text', (col) => col.notNull())
    .addColumn('case_id', 'text')
    .addColumn('decision_id', 'text')
    .addColumn('agent', 'text')
    /** As the output's `at`: online drift and SLO windows read it. */
    .addColumn('at', 'text', (col) => col.notNull())
    /** The scorer's name as listed by GET /api/eval/scorers. */
    .addColumn('scorer', 'text', (col) => col.notNull())
    /** Null when the scorer failed to score (judge without a tier answer). */
    .addColumn('score', 'double precision')
    /** 1 or 0. */
    .addColumn('passed', 'integer', (col) => col.notNull())
    .addColumn('threshold', 'double precision')
    .addColumn('reason', 'text', (col) => col.notNull())
    /** A person's call (pass or fail), which counts instead of `passed`; null when not annotated. */
    .addColumn('annotation', 'text')
    .addColumn('annotation_note', 'text')
    .addColumn('annotated_by', 'text')
    .addColumn('annotated_at', 'text')
    .execute();
  await db.schema.createIndex('eval_results_run').on('eval_results').columns(['run_id', 'output_id']).execute();
  await db.schema.createIndex('eval_results_agent_scorer_at').on('eval_results').columns(['agent', 'scorer', 'at']).execute();
  await db.schema.createIndex('eval_results_decision').on('eval_results').columns(['decision_id', 'scorer']).execute();
  await db.schema
    .createTable('eval_slos')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('agent', 'text', (col) => col.notNull())
    .addColumn('scorer', 'text', (col) => col.notNull())
    /** pass_rate: the share of online results that pass. */
    .addColumn('objective', 'text', (col) => col.notNull())
    /** Days the objective is measured over. */
    .addColumn('window_days', 'integer', (col) => col.notNull())
    .addColumn('target', 'double precision', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('eval_slos_key').on('eval_slos').columns(['agent', 'scorer', 'objective', 'window_days']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['eval_slos', 'eval_results', 'eval_outputs', 'eval_runs', 'eval_cases', 'eval_suites']) await db.schema.dropTable(table).execute();
}
