// SQL of monitors: the monitors and their runs, the schedule claims, and the registries a target
// is checked against (MCP servers, knowledge sources).
import type { Kysely, Transaction, Updateable } from 'kysely';
import type { Database, KnowledgeSourceRow, MonitorRow, MonitorRunRow, MonitorRunsTable, MonitorsTable } from '../../infra/store/tables.js';
import { claimDueRow, dueRows } from '../../infra/store/schedule.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface MonitorFilter {
  kind?: string;
  enabled?: boolean;
  /** Ids below this one (newest first). */
  before?: string;
  limit: number;
}

export async function insertMonitor(db: Db, row: MonitorRow): Promise<void> {
  await db.insertInto('monitors').values(row).execute();
}

export async function findMonitor(db: Db, id: string): Promise<MonitorRow | undefined> {
  return db.selectFrom('monitors').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listMonitors(db: Db, filter: MonitorFilter): Promise<MonitorRow[]> {
  let query = db.selectFrom('monitors').selectAll();
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  if (filter.enabled !== undefined) query = query.where('enabled', '=', filter.enabled ? 1 : 0);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}

export async function updateMonitor(db: Db, id: string, changes: Updateable<MonitorsTable>): Promise<void> {
  await db.updateTable('monitors').set(changes).where('id', '=', id).execute();
}

/** Deletes the monitor and its runs; answers how many runs went. */
export async function deleteMonitor(db: Db, id: string): Promise<number> {
  const runs = await db.deleteFrom('monitor_runs').where('monitor_id', '=', id).executeTakeFirst();
  await db.deleteFrom('monitors').where('id', '=', id).execute();
  return Number(runs.numDeletedRows);
}

/** Enabled monitors whose next run is due, the longest-waiting first. */
export async function dueMonitors(db: Db, now: string, limit: number): Promise<MonitorRow[]> {
  return dueRows(db, 'monitors', now, limit);
}

/**
 * Moves a due monitor's next run on, only if nobody else did first (the same next_run_at, still
 * enabled): true when this caller claimed the slot.
 */
export async function claimDueSlot(db: Db, id: string, seenNextRunAt: string, nextRunAt: string, at: string): Promise<boolean> {
  return claimDueRow(db, 'monitors', id, seenNextRunAt, nextRunAt, at);
}

/**
 * Stores a baseline only if the monitor's baseline is still the one the run read (none, or the
 * one taken at `seenBaselineAt`): two runs finishing together do not both set one.
 */
export async function storeBaseline(db: Db, id: string, seenBaselineAt: string | null, baseline: string, at: string): Promise<boolean> {
  let query = db.updateTable('monitors').set({ baseline, baseline_at: at }).where('id', '=', id);
  query = seenBaselineAt === null ? query.where('baseline_at', 'is', null) : query.where('baseline_at', '=', seenBaselineAt);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertRun(db: Db, row: MonitorRunRow): Promise<void> {
  await db.insertInto('monitor_runs').values(row).execute();
}

export async function findRun(db: Db, id: string): Promise<MonitorRunRow | undefined> {
  return db.selectFrom('monitor_runs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Finishes a queued run; false when it was finished already (a retried job, another worker). */
export async function finishRun(db: Db, id: string, changes: Updateable<MonitorRunsTable>): Promise<boolean> {
  const result = await db.updateTable('monitor_runs').set(changes).where('id', '=', id).where('status', '=', 'queued').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A monitor's runs, newest first. */
export async function recentRuns(db: Db, monitorId: string, limit: number): Promise<MonitorRunRow[]> {
  return db.selectFrom('monitor_runs').selectAll().where('monitor_id', '=', monitorId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function mcpServerExists(db: Db, name: string): Promise<boolean> {
  const row = await db.selectFrom('mcp_servers').select('name').where('name', '=', name).executeTakeFirst();
  return row !== undefined;
}

export async function findSource(db: Db, key: string): Promise<KnowledgeSourceRow | undefined> {
  return db.selectFrom('knowledge_sources').selectAll().where('key', '=', key).executeTakeFirst();
}

/** Whether the error is the database refusing a duplicate of a unique key (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
