// SQL of probes: probe targets, the campaigns and results of their runs (redteam_campaigns with
// runner `target`, redteam_results) and the agents they belong to.
import type { Kysely, Transaction, Updateable } from 'kysely';
import type { Database, ProbeTargetRow, ProbeTargetsTable, RedteamCampaignRow, RedteamResultRow } from '../../infra/store/tables.js';
import { claimDueRow, dueRows } from '../../infra/store/schedule.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Results written per insert statement (17 parameters each). */
const RESULT_CHUNK = 50;

export async function agentExists(db: Db, slug: string): Promise<boolean> {
  const row = await db.selectFrom('agents').select('slug').where('slug', '=', slug).executeTakeFirst();
  return row !== undefined;
}

export async function insertTarget(db: Db, row: ProbeTargetRow): Promise<void> {
  await db.insertInto('probe_targets').values(row).execute();
}

export async function findTarget(db: Db, id: string): Promise<ProbeTargetRow | undefined> {
  return db.selectFrom('probe_targets').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Whether the target is opted in now (read before every send). */
export async function isEnabled(db: Db, id: string): Promise<boolean> {
  const row = await db.selectFrom('probe_targets').select('enabled').where('id', '=', id).executeTakeFirst();
  return row !== undefined && Number(row.enabled) === 1;
}

/** Every target, newest first. */
export async function listTargets(db: Db, limit: number): Promise<ProbeTargetRow[]> {
  return db.selectFrom('probe_targets').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function updateTarget(db: Db, id: string, changes: Updateable<ProbeTargetsTable>): Promise<void> {
  await db.updateTable('probe_targets').set(changes).where('id', '=', id).execute();
}

/** Enabled targets whose next run is due. */
export async function dueTargets(db: Db, now: string, limit: number): Promise<ProbeTargetRow[]> {
  return dueRows(db, 'probe_targets', now, limit);
}

/**
 * Moves a due target's next run on, only if nobody else did first (same next_run_at, still
 * enabled): true when this caller claimed the run.
 */
export async function claimDueRun(db: Db, id: string, seenNextRunAt: string, nextRunAt: string, at: string): Promise<boolean> {
  return claimDueRow(db, 'probe_targets', id, seenNextRunAt, nextRunAt, at);
}

/**
 * Marks a manual run started at `at` only if the last run is the one the caller checked the gap
 * against and the target is still enabled: true when this caller won.
 */
export async function claimManualRun(db: Db, id: string, seenLastRunAt: string | null, at: string): Promise<boolean> {
  let query = db.updateTable('probe_targets').set({ last_run_at: at, updated_at: at }).where('id', '=', id).where('enabled', '=', 1);
  query = seenLastRunAt === null ? query.where('last_run_at', 'is', null) : query.where('last_run_at', '=', seenLastRunAt);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertCampaign(db: Db, row: RedteamCampaignRow): Promise<void> {
  await db.insertInto('redteam_campaigns').values(row).execute();
}

export async function insertResults(db: Db, rows: readonly RedteamResultRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += RESULT_CHUNK) {
    await db.insertInto('redteam_results').values(rows.slice(start, start + RESULT_CHUNK)).execute();
  }
}

/** Campaigns of one target, newest first. */
export async function targetCampaigns(db: Db, targetId: string, limit: number): Promise<RedteamCampaignRow[]> {
  return db
    .selectFrom('redteam_campaigns')
    .selectAll()
    .where('target_id', '=', targetId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The latest completed campaign of a target: what a new run is compared with. */
export async function previousTargetCampaign(db: Db, targetId: string): Promise<RedteamCampaignRow | undefined> {
  return db
    .selectFrom('redteam_campaigns')
    .selectAll()
    .where('target_id', '=', targetId)
    .where('runner', '=', 'target')
    .where('status', '=', 'completed')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
