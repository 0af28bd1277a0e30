// SQL of compliance: the catalogue tables, control results, framework reviews, obligations, and
// the live-record queries each control metric reads. JSON columns stay text here.
import { sql, type Kysely, type Transaction } from 'kysely';
import type {
  ControlResultsTable,
  ControlsTable,
  Database,
  FrameworkReviewsTable,
  ObligationsTable,
} from '../../infra/store/tables.js';
import type { Selectable } from 'kysely';

type Db = Kysely<Database> | Transaction<Database>;
export type ControlRow = Selectable<ControlsTable>;
export type ControlResultRow = Selectable<ControlResultsTable>;
export type FrameworkReviewRow = Selectable<FrameworkReviewsTable>;
export type ObligationRow = Selectable<ObligationsTable>;

/** Ids kept as evidence per result. */
export const EVIDENCE_IDS = 50;
const n = (value: unknown): number => Number(value ?? 0);

// ---- catalogue ----

export async function latestCatalogue(db: Db): Promise<{ version: number; sha256: string; loaded_at: string; loaded_by: string } | undefined> {
  const row = await db.selectFrom('control_catalogue').selectAll().orderBy('version', 'desc').limit(1).executeTakeFirst();
  return row === undefined ? undefined : { ...row, version: n(row.version) };
}

export async function insertCatalogue(db: Db, row: { version: number; sha256: string; loaded_at: string; loaded_by: string }): Promise<void> {
  await db.insertInto('control_catalogue').values(row).execute();
}

/** Replaces the controls with this version's. */
export async function replaceControls(db: Db, rows: ControlRow[]): Promise<void> {
  await db.deleteFrom('controls').execute();
  if (rows.length > 0) await db.insertInto('controls').values(rows).execute();
}

export async function listControls(db: Db): Promise<ControlRow[]> {
  return db.selectFrom('controls').selectAll().orderBy('key').execute();
}

/** Replaces the obligations the catalogue defines (source other than `deployment`). */
export async function replaceCatalogueObligations(db: Db, rows: ObligationRow[]): Promise<void> {
  await db.deleteFrom('obligations').where('source', '!=', 'deployment').execute();
  if (rows.length > 0) await db.insertInto('obligations').values(rows).execute();
}

export async function countObligations(db: Db): Promise<number> {
  return n((await db.selectFrom('obligations').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

// ---- results and reviews ----

export async function insertResults(db: Db, rows: ControlResultRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('control_results').values(rows).execute();
}

/** The newest `limit` results, newest first (a compute stores one per control, so limit = runs × controls). */
export async function recentResults(db: Db, limit: number): Promise<ControlResultRow[]> {
  const rows = await db.selectFrom('control_results').selectAll().orderBy('computed_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map((row) => ({ ...row, value: row.value === null ? null : Number(row.value), window_days: n(row.window_days) }));
}

/** Results computed inside [from, to], oldest first. */
export async function resultsBetween(db: Db, from: string, to: string): Promise<ControlResultRow[]> {
  const rows = await db.selectFrom('control_results').selectAll().where('computed_at', '>=', from).where('computed_at', '<=', to).orderBy('computed_at').orderBy('id').execute();
  return rows.map((row) => ({ ...row, value: row.value === null ? null : Number(row.value), window_days: n(row.window_days) }));
}

export async function lastComputedAt(db: Db): Promise<string | undefined> {
  return (await db.selectFrom('control_results').select('computed_at').orderBy('computed_at', 'desc').limit(1).executeTakeFirst())?.computed_at;
}

export async function insertReview(db: Db, row: FrameworkReviewRow): Promise<void> {
  await db.insertInto('framework_reviews').values(row).execute();
}

export async function listReviews(db: Db, framework: string): Promise<FrameworkReviewRow[]> {
  return db.selectFrom('framework_reviews').selectAll().where('framework', '=', framework).orderBy('reviewed_at', 'desc').orderBy('id', 'desc').limit(500).execute();
}

// ---- live records the metrics read ----

export interface Measured {
  value: number | null;
  ids: string[];
  counts: Record<string, number>;
}

async function countOf(query: { executeTakeFirstOrThrow(): Promise<{ n: unknown }> }): Promise<number> {
  return n((await query.executeTakeFirstOrThrow()).n);
}

export async function agentsMissing(db: Db, column: 'owner' | 'purpose'): Promise<Measured> {
  const rows = await db
    .selectFrom('agents')
    .select('slug')
    .where('status', '!=', 'rejected')
    .where((eb) =>
      column === 'owner'
        ? eb.and([eb.or([eb('owner_email', 'is', null), eb('owner_email', '=', '')]), eb.or([eb('owner_team', 'is', null), eb('owner_team', '=', '')])])
        : eb.or([eb('purpose', 'is', null), eb('purpose', '=', '')]),
    )
    .orderBy('slug')
    .execute();
  const total = await countOf(db.selectFrom('agents').select((eb) => eb.fn.countAll().as('n')).where('status', '!=', 'rejected'));
  return { value: rows.length, ids: rows.slice(0, EVIDENCE_IDS).map((row) => row.slug), counts: { agents: total, missing: rows.length } };
}

/** Latest assessment per agent from risk_assessments (another helper's table); null when the table does not exist. */
async function latestAssessments(db: Db): Promise<Array<{ id: string; agent: string; signed_off: boolean; next_review_at: string | null }> | null> {
  try {
    const result = await sql<{ id: string; agent: string; signed_off: unknown; next_review_at: string | null; assessed_at: string }>`
      select id, agent, signed_off, next_review_at, assessed_at from risk_assessments order by assessed_at desc, id desc`.execute(db);
    const latest = new Map<string, { id: string; agent: string; signed_off: boolean; next_review_at: string | null }>();
    for (const row of result.rows) {
      if (!latest.has(row.agent)) latest.set(row.agent, { id: row.id, agent: row.agent, signed_off: row.signed_off === true || Number(row.signed_off) === 1, next_review_at: row.next_review_at });
    }
    return [...latest.values()];
  } catch {
    return null;
  }
}

export async function agentsWithoutAssessment(db: Db): Promise<Measured> {
  const latest = await latestAssessments(db);
  if (latest === null) return { value: null, ids: [], counts: {} };
  const signed = new Set(latest.filter((row) => row.signed_off).map((row) => row.agent));
  const agents = await db.selectFrom('agents').select('slug').where('status', '!=', 'rejected').orderBy('slug').execute();
  const missing = agents.filter((agent) => !signed.has(agent.slug)).map((agent) => agent.slug);
  return { value: missing.length, ids: missing.slice(0, EVIDENCE_IDS), counts: { agents: agents.length, assessed: agents.length - missing.length, missing: missing.length } };
}

export async function assessmentsOverdue(db: Db, now: string): Promise<Measured> {
  const latest = await latestAssessments(db);
  if (latest === null || latest.length === 0) return { value: null, ids: [], counts: { assessments: latest?.length ?? 0 } };
  const overdue = latest.filter((row) => row.next_review_at !== null && row.next_review_at < now);
  return { value: overdue.length, ids: overdue.slice(0, EVIDENCE_IDS).map((row) => row.id), counts: { assessments: latest.length, overdue: overdue.length } };
}

export async function toolCallersWithGrants(db: Db, since: string): Promise<Measured> {
  const callers = await db.selectFrom('traces').select('agent').distinct().where('at', '>=', since).where('tool', 'is not', null).orderBy('agent').execute();
  const granted = new Set((await db.selectFrom('capabilities').select('agent_slug').distinct().execute()).map((row) => row.agent_slug));
  const without = callers.filter((row) => !granted.has(row.agent)).map((row) => row.agent);
  const value = callers.length === 0 ? 1 : (callers.length - without.length) / callers.length;
  return { value, ids: without.slice(0, EVIDENCE_IDS), counts: { tool_callers: callers.length, without_grants: without.length } };
}

export async function policyModes(db: Db): Promise<Array<{ key: string; mode: string; level: string }>> {
  return db.selectFrom('policies').select(['key', 'mode', 'level']).orderBy('key').execute();
}

export async function unreviewedPolicyChanges(db: Db, since: string): Promise<Measured> {
  const applied = await db.selectFrom('proposals').select(['id', 'created_by']).where('applied_at', 'is not', null).where('applied_at', '>=', since).orderBy('id').execute();
  const approvals = await db.selectFrom('proposal_decisions').select(['proposal_id', 'actor']).where('approve', '=', 1).execute();
  const unreviewed = applied.filter((proposal) => !approvals.some((decision) => decision.proposal_id === proposal.id && decision.actor !== proposal.created_by)).map((row) => row.id);
  return { value: unreviewed.length, ids: unreviewed.slice(0, EVIDENCE_IDS), counts: { applied: applied.length, unreviewed: unreviewed.length } };
}

export async function disabledDetectors(db: Db): Promise<Array<{ key: string; enabled: number }>> {
  return db.selectFrom('detector_settings').select(['key', 'enabled']).orderBy('key').execute();
}

export async function degradedRate(db: Db, since: string): Promise<Measured> {
  const total = await countOf(db.selectFrom('traces').select((eb) => eb.fn.countAll().as('n')).where('at', '>=', since));
  const degraded = await db.selectFrom('traces').select('id').where('at', '>=', since).where('degraded', '!=', '[]').orderBy('at', 'desc').limit(EVIDENCE_IDS).execute();
  const degradedCount = await countOf(db.selectFrom('traces').select((eb) => eb.fn.countAll().as('n')).where('at', '>=', since).where('degraded', '!=', '[]'));
  return { value: total === 0 ? 0 : degradedCount / total, ids: degraded.map((row) => row.id), counts: { decisions: total, degraded: degradedCount } };
}

export async function criticalUntriaged(db: Db, since: string, now: string): Promise<Measured> {
  const rows = await db.selectFrom('findings').select(['id', 'at', 'status', 'status_changed_at']).where('severity', '=', 'critical').where('at', '>=', since).orderBy('at').execute();
  const nowMs = Date.parse(now);
  // Late: still open a day after it was raised, or first moved from open more than a day after.
  const late = rows.filter((row) => {
    const raised = Date.parse(row.at);
    if (row.status === 'open') return nowMs - raised > 86_400_000;
    return row.status_changed_at !== null && Date.parse(row.status_changed_at) - raised > 86_400_000;
  });
  const open = rows.filter((row) => row.status === 'open').length;
  return { value: late.length, ids: late.slice(0, EVIDENCE_IDS).map((row) => row.id), counts: { critical: rows.length, open, late: late.length } };
}

export async function staleFindings(db: Db, before: string): Promise<Measured> {
  const rows = await db.selectFrom('findings').select('id').where('status', '=', 'open').where('at', '<', before).orderBy('at').limit(EVIDENCE_IDS).execute();
  const count = await countOf(db.selectFrom('findings').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'open').where('at', '<', before));
  const open = await countOf(db.selectFrom('findings').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'open'));
  return { value: count, ids: rows.map((row) => row.id), counts: { open, stale: count } };
}

export async function expiredApprovals(db: Db, since: string): Promise<Measured> {
  const total = await countOf(db.selectFrom('approvals').select((eb) => eb.fn.countAll().as('n')).where('created_at', '>=', since));
  const expired = await db.selectFrom('approvals').select('id').where('created_at', '>=', since).where('status', '=', 'expired').orderBy('created_at').execute();
  return { value: expired.length, ids: expired.slice(0, EVIDENCE_IDS).map((row) => row.id), counts: { approvals: total, expired: expired.length } };
}

export async function checkpointsSince(db: Db, since: string): Promise<Measured> {
  const rows = await db.selectFrom('audit_checkpoints').select('id').where('at', '>=', since).orderBy('at', 'desc').execute();
  return { value: rows.length, ids: rows.slice(0, EVIDENCE_IDS).map((row) => row.id), counts: { checkpoints: rows.length } };
}

export async function packagesSince(db: Db, since: string): Promise<Measured> {
  const rows = await db.selectFrom('evidence_packages').select('id').where('status', '=', 'ready').where('completed_at', '>=', since).orderBy('id', 'desc').execute();
  return { value: rows.length, ids: rows.slice(0, EVIDENCE_IDS).map((row) => row.id), counts: { packages: rows.length } };
}

export async function deadLettersSince(db: Db, since: string): Promise<Measured> {
  const rows = await db.selectFrom('dead_letters').select('id').where('at', '>=', since).orderBy('at', 'desc').execute();
  return { value: rows.length, ids: rows.slice(0, EVIDENCE_IDS).map((row) => row.id), counts: { dead_letters: rows.length } };
}

export async function adminTokens(db: Db): Promise<Array<{ id: string; created_by: string; expires_at: string | null; revoked_at: string | null }>> {
  return db.selectFrom('api_tokens').select(['id', 'created_by', 'expires_at', 'revoked_at']).where('kind', '=', 'operator').where('role', '=', 'admin').orderBy('id').execute();
}

export async function registeredTraffic(db: Db, since: string): Promise<Measured> {
  const byAgent = await db
    .selectFrom('traces')
    .select(['agent', (eb) => eb.fn.countAll().as('n')])
    .where('at', '>=', since)
    .groupBy('agent')
    .execute();
  const registered = new Set((await db.selectFrom('agents').select('slug').execute()).map((row) => row.slug));
  let total = 0;
  let known = 0;
  const unknown: string[] = [];
  for (const row of byAgent) {
    total += n(row.n);
    if (registered.has(row.agent)) known += n(row.n);
    else unknown.push(row.agent);
  }
  return { value: total === 0 ? 1 : known / total, ids: unknown.sort().slice(0, EVIDENCE_IDS), counts: { decisions: total, registered: known, unregistered_agents: unknown.length } };
}

/** Whether a `kind` job is waiting or running (so that the daily run is not queued twice). */
export async function jobPending(db: Db, kind: string): Promise<boolean> {
  const row = await db.selectFrom('jobs').select('id').where('kind', '=', kind).where('status', 'in', ['queued', 'running']).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Risk assessments made in [from, to] (the risk helper's table); null when the table does not exist. */
export async function assessmentsBetween(db: Db, from: string, to: string): Promise<Array<Record<string, unknown>> | null> {
  try {
    const result = await sql<Record<string, unknown>>`
      select * from risk_assessments where assessed_at >= ${from} and assessed_at <= ${to} order by assessed_at, id`.execute(db);
    return result.rows;
  } catch {
    return null;
  }
}
