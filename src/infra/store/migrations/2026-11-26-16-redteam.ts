// Frozen in time: the red team (spec 02 "Red team and probes"). A campaign sends probes from the
// library (and their mutations) through the decision pipeline or to a probe target and keeps one
// result per probe sent; probe targets are live agents probed on a schedule after an opt-in; the
// showcase keeps the feed of its demo agent's probes.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('redteam_campaigns')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('agent', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    /** pipeline (the gateway's own decision pipeline) or target (a probe target). */
    .addColumn('runner', 'text', (col) => col.notNull())
    .addColumn('target_id', 'text')
    /** 1 or 0. */
    .addColumn('adaptive', 'integer', (col) => col.notNull())
    .addColumn('budget', 'integer', (col) => col.notNull())
    .addColumn('seed', 'integer', (col) => col.notNull())
    .addColumn('include_deployment_probes', 'integer', (col) => col.notNull())
    /** JSON array: the probe ids and classes asked for (empty: the whole library). */
    .addColumn('probes', 'text', (col) => col.notNull())
    /** completed or failed. */
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('error', 'text')
    .addColumn('calls_used', 'integer', (col) => col.notNull())
    /** JSON objects: rates per class, benign over-blocking, mutation classes, what got through; the comparison with the previous campaign. */
    .addColumn('summary', 'text', (col) => col.notNull())
    .addColumn('comparison', 'text')
    .addColumn('previous_campaign_id', 'text')
    .addColumn('library_version', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('redteam_campaigns_agent').on('redteam_campaigns').columns(['agent', 'runner', 'created_at']).execute();
  await db.schema.createIndex('redteam_campaigns_target').on('redteam_campaigns').columns(['target_id', 'created_at']).execute();
  await db.schema
    .createTable('redteam_results')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('campaign_id', 'text', (col) => col.notNull())
    .addColumn('probe_id', 'text', (col) => col.notNull())
    .addColumn('class', 'text', (col) => col.notNull())
    /** attack or benign. */
    .addColumn('kind', 'text', (col) => col.notNull())
    /** The mutation class applied; null for the probe as written. */
    .addColumn('mutation', 'text')
    .addColumn('surface', 'text', (col) => col.notNull())
    /** The text sent, cut to a bound. */
    .addColumn('text', 'text', (col) => col.notNull())
    /** through, blocked or error. */
    .addColumn('outcome', 'text', (col) => col.notNull())
    .addColumn('as_configured', 'text')
    .addColumn('if_enforced', 'text')
    .addColumn('decision_id', 'text')
    /** JSON array of rule ids. */
    .addColumn('rules', 'text', (col) => col.notNull())
    /** JSON object: answer excerpt, leak markers found, forbidden tool calls, reason. */
    .addColumn('detail', 'text', (col) => col.notNull())
    .addColumn('at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('redteam_results_campaign').on('redteam_results').columns(['campaign_id', 'class']).execute();
  await db.schema
    .createTable('probe_targets')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('agent', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    /** openai_chat, messages or http_json. */
    .addColumn('adapter', 'text', (col) => col.notNull())
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('model', 'text')
    /** Sealed (src/infra/lib/sealed.ts); never answered back. */
    .addColumn('auth_header', 'text')
    /** JSON arrays. */
    .addColumn('forbidden_tools', 'text', (col) => col.notNull())
    .addColumn('leak_markers', 'text', (col) => col.notNull())
    .addColumn('probes', 'text', (col) => col.notNull())
    .addColumn('interval_seconds', 'integer', (col) => col.notNull())
    .addColumn('max_probes_per_run', 'integer', (col) => col.notNull())
    .addColumn('rate_limit_per_minute', 'integer', (col) => col.notNull())
    .addColumn('timeout_seconds', 'double precision', (col) => col.notNull())
    /** 1 after opt-in, 0 when created or after opt-out. */
    .addColumn('enabled', 'integer', (col) => col.notNull())
    .addColumn('acknowledgement', 'text')
    .addColumn('opted_in_by', 'text')
    .addColumn('opted_in_at', 'text')
    .addColumn('opted_out_at', 'text')
    .addColumn('last_run_at', 'text')
    .addColumn('next_run_at', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('showcase_events')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('probe_id', 'text', (col) => col.notNull())
    .addColumn('class', 'text', (col) => col.notNull())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('mutation', 'text')
    .addColumn('verdict', 'text', (col) => col.notNull())
    .addColumn('outcome', 'text', (col) => col.notNull())
    .addColumn('rules', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('showcase_events_at').on('showcase_events').columns(['at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['showcase_events', 'probe_targets', 'redteam_results', 'redteam_campaigns']) await db.schema.dropTable(table).execute();
}
