// Frozen in time: integrations and monitoring (spec 02 "Integrations", the monitor and discovery
// parts of "Tools, MCP, discovery, monitors, imports", POST /api/auth/codehost/provision, spec 01
// §6 Events). The code-host connection and webhook secret (sealed), scans and the deliveries seen
// (replays refused), discovery sites and external scanner submissions, hosted-API scans, the chat
// alert channel (its URL sealed) and what was posted, monitors with their baselines and runs, and
// the people provisioned from code-host identities.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('codehost_connections')
    /** One connection per gateway: the id is always `default`. */
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('base_url', 'text', (col) => col.notNull())
    /** Sealed (src/infra/lib/sealed.ts); never answered back. */
    .addColumn('token_sealed', 'text', (col) => col.notNull())
    /** The first characters of the token, so people can tell which one is in use. */
    .addColumn('token_hint', 'text', (col) => col.notNull())
    /** The account the token belongs to, as the code host named it when connecting. */
    .addColumn('account_login', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('codehost_webhook_secrets')
    /** Always `default`. */
    .addColumn('id', 'text', (col) => col.primaryKey())
    /** Sealed: the HMAC key must be read back to verify signatures. */
    .addColumn('secret_sealed', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('codehost_deliveries')
    .addColumn('delivery_id', 'text', (col) => col.primaryKey())
    .addColumn('event', 'text', (col) => col.notNull())
    .addColumn('repo_full_name', 'text')
    .addColumn('scan_id', 'text')
    .addColumn('received_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('codehost_scans')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('repo_full_name', 'text', (col) => col.notNull())
    .addColumn('ref', 'text')
    /** manual, webhook or monitor. */
    .addColumn('trigger', 'text', (col) => col.notNull())
    /** queued, running, completed or failed. */
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('job_id', 'text')
    .addColumn('commit_sha', 'text')
    .addColumn('files_scanned', 'integer', (col) => col.notNull())
    .addColumn('files_skipped', 'integer', (col) => col.notNull())
    /** JSON object: frameworks, model clients, MCP servers, tools, prompts, secrets (with file and line), counts. */
    .addColumn('report', 'text')
    .addColumn('error', 'text')
    .addColumn('requested_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('codehost_scans_repo').on('codehost_scans').columns(['repo_full_name', 'created_at']).execute();
  await db.schema
    .createTable('discovery_sites')
    .addColumn('id', 'text', (col) => col.primaryKey())
    /** codehost or submit (traffic and spans are read live, not stored). */
    .addColumn('origin', 'text', (col) => col.notNull())
    /** The repository (codehost) or the submission's source (submit). */
    .addColumn('location', 'text', (col) => col.notNull())
    .addColumn('path', 'text')
    .addColumn('line', 'integer')
    /** framework, model_client, mcp_server, tool, prompt, secret, agent. */
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    /** The agent this site probably is or belongs to, as a slug; null when not known. */
    .addColumn('agent_hint', 'text')
    /** JSON object. */
    .addColumn('detail', 'text', (col) => col.notNull())
    .addColumn('scan_id', 'text')
    .addColumn('submission_id', 'text')
    .addColumn('first_seen_at', 'text', (col) => col.notNull())
    .addColumn('last_seen_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('findings_at').on('findings').columns(['at']).execute();
  await db.schema.createIndex('discovery_sites_location').on('discovery_sites').columns(['origin', 'location']).execute();
  await db.schema.createIndex('discovery_sites_seen').on('discovery_sites').columns(['last_seen_at']).execute();
  await db.schema
    .createTable('discovery_submissions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('source', 'text', (col) => col.notNull())
    .addColumn('label', 'text')
    .addColumn('files_scanned', 'integer')
    /** JSON arrays / objects as submitted (bounded by the route's schema). */
    .addColumn('frameworks', 'text', (col) => col.notNull())
    .addColumn('coverage', 'double precision')
    .addColumn('counts', 'text', (col) => col.notNull())
    .addColumn('sites', 'integer', (col) => col.notNull())
    .addColumn('submitted_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('hosted_api_scans')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('endpoint_url', 'text', (col) => col.notNull())
    .addColumn('docs_url', 'text')
    .addColumn('openapi_spec_url', 'text')
    .addColumn('purpose', 'text')
    /** completed or failed. */
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('document_sha256', 'text')
    /** JSON object: model-serving operations, authentication, exposed data. */
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('chat_alert_channels')
    /** Always `default`. */
    .addColumn('id', 'text', (col) => col.primaryKey())
    /** Sealed: the incoming-webhook URL is a secret. */
    .addColumn('url_sealed', 'text', (col) => col.notNull())
    .addColumn('url_masked', 'text', (col) => col.notNull())
    .addColumn('min_severity', 'text', (col) => col.notNull())
    .addColumn('updated_by', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('chat_alerts_sent')
    /** One alert per finding fingerprint. */
    .addColumn('fingerprint', 'text', (col) => col.primaryKey())
    .addColumn('finding_id', 'text')
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('job_id', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('monitors')
    .addColumn('id', 'text', (col) => col.primaryKey())
    /** mcp_server, hosted_api, codehost_repo or source_freshness. */
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('target', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('interval_seconds', 'integer', (col) => col.notNull())
    /** JSON object. */
    .addColumn('config', 'text', (col) => col.notNull())
    /** 1 or 0. */
    .addColumn('enabled', 'integer', (col) => col.notNull())
    /** JSON: what the first run saw, compared with every later run; null before the first run. */
    .addColumn('baseline', 'text')
    .addColumn('baseline_at', 'text')
    /** When the next scheduled run is due; claimed with a compare-and-set so that one process runs it. */
    .addColumn('next_run_at', 'text')
    .addColumn('last_run_at', 'text')
    /** ok, changed or failed. */
    .addColumn('last_status', 'text')
    .addColumn('last_error', 'text')
    .addColumn('last_change_at', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('monitors_due').on('monitors').columns(['enabled', 'next_run_at']).execute();
  await db.schema
    .createTable('monitor_runs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('monitor_id', 'text', (col) => col.notNull())
    /** schedule or manual. */
    .addColumn('trigger', 'text', (col) => col.notNull())
    /** The schedule slot claimed (next_run_at before the claim); unique with monitor_id so a slot runs once. */
    .addColumn('slot', 'text', (col) => col.notNull())
    /** queued, baseline, unchanged, changed or failed. */
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('job_id', 'text')
    /** JSON array of changes. */
    .addColumn('changes', 'text', (col) => col.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('monitor_runs_slot').on('monitor_runs').columns(['monitor_id', 'slot']).unique().execute();
  await db.schema
    .createTable('codehost_identities')
    .addColumn('codehost_user_id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().unique())
    .addColumn('login', 'text', (col) => col.notNull())
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('name', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'codehost_identities',
    'monitor_runs',
    'monitors',
    'chat_alerts_sent',
    'chat_alert_channels',
    'hosted_api_scans',
    'discovery_submissions',
    'discovery_sites',
    'codehost_scans',
    'codehost_deliveries',
    'codehost_webhook_secrets',
    'codehost_connections',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
