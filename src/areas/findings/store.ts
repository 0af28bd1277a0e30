// Queries for findings and for what the attention list reads. Returns plain rows.
import type { Kysely, Transaction } from 'kysely';
import type { Database, FindingRow } from '../../infra/store/tables.js';
import type { FindingStatus } from './schemas.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface FindingFilter {
  status?: string;
  severity?: string;
  type?: string;
  agent?: string;
  before?: string;
  limit: number;
}

export async function listFindings(db: Db, filter: FindingFilter): Promise<FindingRow[]> {
  let query = db.selectFrom('findings').selectAll().orderBy('id', 'desc').limit(filter.limit);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.severity !== undefined) query = query.where('severity', '=', filter.severity);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.agent !== undefined) query = query.where('agent', '=', filter.agent);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  return query.execute();
}

export async function findFinding(db: Db, id: string): Promise<FindingRow | undefined> {
  return db.selectFrom('findings').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes a finding's status only if it still has the one the caller read; false when it did not. */
export async function updateFindingStatus(
  db: Db,
  id: string,
  from: FindingStatus,
  changes: Pick<FindingRow, 'status' | 'status_changed_at' | 'status_changed_by'> &
    Partial<Pick<FindingRow, 'suppression_reason' | 'resolution_note' | 'reopened_count'>>,
): Promise<boolean> {
  const result = await db.updateTable('findings').set(changes).where('id', '=', id).where('status', '=', from).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export type AttentionFindingRow = Pick<FindingRow, 'id' | 'type' | 'severity' | 'title' | 'occurrences' | 'last_seen_at' | 'agent'>;

/**
 * Open findings of one severity, seen since (recent) or before `since`, most occurrences first.
 * Within one severity and one side of the recency window the attention score only grows with
 * occurrences, so the top `limit` of each of these eight lists hold the overall top `limit`.
 */
export async function openFindingsForAttention(
  db: Db,
  severity: string,
  since: string,
  recent: boolean,
  limit: number,
): Promise<AttentionFindingRow[]> {
  return db
    .selectFrom('findings')
    .select(['id', 'type', 'severity', 'title', 'occurrences', 'last_seen_at', 'agent'])
    .where('status', '=', 'open')
    .where('severity', '=', severity)
    .where('last_seen_at', recent ? '>=' : '<', since)
    .orderBy('occurrences', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function pendingApprovals(db: Db, now: string, limit: number) {
  return db
    .selectFrom('approvals')
    .select(['id', 'agent', 'tool', 'expires_at', 'created_at'])
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .orderBy('expires_at', 'asc')
    .limit(limit)
    .execute();
}

export async function stoppedAgents(db: Db, limit: number) {
  return db
    .selectFrom('agents')
    .select(['id', 'slug', 'control', 'control_reason', 'control_at'])
    .where('control', '!=', 'active')
    .orderBy('control_at', 'desc')
    .limit(limit)
    .execute();
}

export async function unownedAgents(db: Db, limit: number) {
  return db
    .selectFrom('agents')
    .select(['id', 'slug', 'created_at'])
    .where('status', '=', 'approved')
    .where('owner_email', 'is', null)
    .where('owner_team', 'is', null)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function deadJobs(db: Db, limit: number) {
  return db
    .selectFrom('jobs')
    .select(['id', 'kind', 'attempts', 'last_error', 'updated_at'])
    .where('status', '=', 'dead')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
