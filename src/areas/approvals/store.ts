// Queries for the approvals table. Returns plain rows. The pipeline holds and uses approvals per
// call, so the functions it reaches return Kysely's promise as is (no extra await).
import type { Kysely, Transaction, UpdateResult } from 'kysely';
import type { ApprovalRow, Database } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The approval that holds a pending key, if any. */
export function findByPendingKey(db: Db, key: string): Promise<{ id: string; expires_at: string } | undefined> {
  return db.selectFrom('approvals').select(['id', 'expires_at']).where('pending_key', '=', key).executeTakeFirst();
}

/** Gives up a lapsed approval's pending key, unless another request already did. */
export function releasePendingKey(db: Db, id: string, key: string): Promise<UpdateResult[]> {
  return db.updateTable('approvals').set({ pending_key: null }).where('id', '=', id).where('pending_key', '=', key).execute();
}

/** Inserts a pending approval; undefined when another one holds its pending key. */
export function insertPending(db: Db, row: ApprovalRow): Promise<{ id: string } | undefined> {
  return db
    .insertInto('approvals')
    .values(row)
    .onConflict((conflict) => conflict.column('pending_key').doNothing())
    .returning('id')
    .executeTakeFirst();
}

/** Marks an approved, unexpired approval of this exact call used: one conditional update. */
export function markUsed(
  db: Db,
  use: { approvalId: string; agent: string; tool: string; argumentsDigest: string; decisionId: string },
  now: string,
): Promise<UpdateResult> {
  return db
    .updateTable('approvals')
    .set({ status: 'used', used_at: now, used_decision_id: use.decisionId })
    .where('id', '=', use.approvalId)
    .where('status', '=', 'approved')
    .where('agent', '=', use.agent)
    .where('tool', '=', use.tool)
    .where('arguments_sha256', '=', use.argumentsDigest)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export function findApproval(db: Db, id: string): Promise<ApprovalRow | undefined> {
  return db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Newest first. `expired` means pending or approved past expiry; `pending` and `approved` only
 * those not yet past it (expiry is read, not swept).
 */
export async function listApprovals(
  db: Db,
  filter: { limit: number; agent: string | undefined; before: string | undefined; status: ApprovalRow['status'] | undefined; now: string },
): Promise<ApprovalRow[]> {
  let select = db.selectFrom('approvals').selectAll().orderBy('id', 'desc').limit(filter.limit);
  if (filter.agent !== undefined) select = select.where('agent', '=', filter.agent);
  if (filter.before !== undefined) select = select.where('id', '<', filter.before);
  if (filter.status === 'expired') {
    select = select.where('status', 'in', ['pending', 'approved']).where('expires_at', '<=', filter.now);
  } else if (filter.status === 'pending' || filter.status === 'approved') {
    select = select.where('status', '=', filter.status).where('expires_at', '>', filter.now);
  } else if (filter.status !== undefined) select = select.where('status', '=', filter.status);
  return select.execute();
}

/** Decides a pending approval; false when it was no longer pending. */
export async function decidePending(
  db: Db,
  id: string,
  decision: Pick<ApprovalRow, 'status' | 'decided_at' | 'decided_by' | 'rationale'>,
): Promise<boolean> {
  const result = await db
    .updateTable('approvals')
    .set({ status: decision.status, decided_at: decision.decided_at, decided_by: decision.decided_by, rationale: decision.rationale, pending_key: null })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
