// SQL of escalation: escalation_turns, escalation_policies, escalation_handoffs (migration
// 2026-11-26-20-escalation), and the one read of approvals and traces for a held tool call.
import type { Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { Database, EscalationHandoffsTable } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;
export type TurnRow = Selectable<Database['escalation_turns']>;
export type PolicyRow = Selectable<Database['escalation_policies']>;
export type HandoffRow = Selectable<Database['escalation_handoffs']>;

/** Ids per IN list: well under both drivers' parameter limits. */
const IN_CHUNK = 500;

export async function insertTurn(db: Db, row: TurnRow): Promise<void> {
  await db.insertInto('escalation_turns').values(row).execute();
}

/** The session's latest turns of one agent after `after` (exclusive; null: all), newest first. */
export async function recentTurns(db: Db, agent: string, sessionId: string, after: string | null, limit: number): Promise<TurnRow[]> {
  let query = db.selectFrom('escalation_turns').selectAll().where('agent', '=', agent).where('session_id', '=', sessionId);
  if (after !== null) query = query.where('at', '>', after);
  return query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** A session's latest turns (any agent), newest first. */
export async function sessionTurns(db: Db, sessionId: string, limit: number): Promise<TurnRow[]> {
  return db.selectFrom('escalation_turns').selectAll().where('session_id', '=', sessionId).orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Turns at or after `since`, newest first (so that a cut keeps the latest). */
export async function turnsSince(db: Db, since: string, agent: string | undefined, limit: number): Promise<TurnRow[]> {
  let query = db.selectFrom('escalation_turns').selectAll().where('at', '>=', since);
  if (agent !== undefined) query = query.where('agent', '=', agent);
  return query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function findPolicy(db: Db, agent: string): Promise<PolicyRow | undefined> {
  return db.selectFrom('escalation_policies').selectAll().where('agent', '=', agent).executeTakeFirst();
}

export async function listPolicies(db: Db): Promise<PolicyRow[]> {
  return db.selectFrom('escalation_policies').selectAll().orderBy('agent').execute();
}

export async function savePolicy(db: Db, row: PolicyRow): Promise<void> {
  const { agent: _agent, ...rest } = row;
  await db
    .insertInto('escalation_policies')
    .values(row)
    .onConflict((conflict) => conflict.column('agent').doUpdateSet(rest))
    .execute();
}

/** Inserts a hand-off unless its id exists (another request made it first); true when inserted. */
export async function insertHandoff(db: Db, row: HandoffRow): Promise<boolean> {
  const result = await db
    .insertInto('escalation_handoffs')
    .values(row)
    .onConflict((conflict) => conflict.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findHandoff(db: Db, id: string): Promise<HandoffRow | undefined> {
  return db.selectFrom('escalation_handoffs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** One agent's hand-offs of a session, oldest first. */
export async function sessionHandoffs(db: Db, agent: string, sessionId: string): Promise<HandoffRow[]> {
  return db.selectFrom('escalation_handoffs').selectAll().where('agent', '=', agent).where('session_id', '=', sessionId).orderBy('created_at').orderBy('id').execute();
}

/** Every hand-off of a session (any agent), oldest first. */
export async function handoffsOfSession(db: Db, sessionId: string): Promise<HandoffRow[]> {
  return db.selectFrom('escalation_handoffs').selectAll().where('session_id', '=', sessionId).orderBy('created_at').orderBy('id').execute();
}

/** The hand-offs of any of these sessions. */
export async function handoffsOfSessions(db: Db, sessionIds: readonly string[]): Promise<HandoffRow[]> {
  const rows: HandoffRow[] = [];
  for (let index = 0; index < sessionIds.length; index += IN_CHUNK) {
    const chunk = sessionIds.slice(index, index + IN_CHUNK);
    rows.push(...(await db.selectFrom('escalation_handoffs').selectAll().where('session_id', 'in', chunk).execute()));
  }
  return rows;
}

export async function listHandoffs(db: Db, filter: { status?: string; agent?: string }, limit: number): Promise<HandoffRow[]> {
  let query = db.selectFrom('escalation_handoffs').selectAll();
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.agent !== undefined) query = query.where('agent', '=', filter.agent);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Hand-offs made at or after `since`. */
export async function handoffsSince(db: Db, since: string, agent: string | undefined, limit: number): Promise<HandoffRow[]> {
  let query = db.selectFrom('escalation_handoffs').selectAll().where('created_at', '>=', since);
  if (agent !== undefined) query = query.where('agent', '=', agent);
  return query.orderBy('created_at', 'desc').limit(limit).execute();
}

/** Live (not retroactive) enforce-mode hand-offs that are not closed: what the pipeline escalates on. */
export async function activeEnforcedHandoffs(db: Db, limit: number): Promise<Array<Pick<HandoffRow, 'id' | 'agent' | 'session_id' | 'reasons'>>> {
  return db
    .selectFrom('escalation_handoffs')
    .select(['id', 'agent', 'session_id', 'reasons'])
    .where('status', 'in', ['open', 'acknowledged'])
    .where('mode', '=', 'enforce')
    .where('retroactive', '=', 0)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}

/** Hand-offs whose SLA is breached and not yet reported: still open past due, or acknowledged late. */
export async function unreportedBreaches(db: Db, now: string, limit: number): Promise<HandoffRow[]> {
  return db
    .selectFrom('escalation_handoffs')
    .selectAll()
    .where('breached', '=', 0)
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'open'), eb('due_at', '<', now)]),
        eb.and([eb('acknowledged_at', 'is not', null), eb('acknowledged_at', '>', eb.ref('due_at'))]),
      ]),
    )
    .orderBy('due_at')
    .limit(limit)
    .execute();
}

/** Marks a breach reported; false when another process (or sweep) did it first. */
export async function claimBreach(db: Db, id: string): Promise<boolean> {
  const result = await db.updateTable('escalation_handoffs').set({ breached: 1 }).where('id', '=', id).where('breached', '=', 0).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Updates a hand-off only while it still has `status` (compare-and-set); false otherwise. */
export async function updateHandoff(db: Db, id: string, status: string, patch: Updateable<EscalationHandoffsTable>): Promise<boolean> {
  const result = await db.updateTable('escalation_handoffs').set(patch).where('id', '=', id).where('status', '=', status).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Whether a tool call of this trace (its decision id, or a decision recorded with this trace id) waits for approval. */
export async function pendingApprovalForTrace(db: Db, traceId: string, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('approvals')
    .select('id')
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .where((eb) => eb.or([eb('decision_id', '=', traceId), eb('decision_id', 'in', eb.selectFrom('traces').select('id').where('trace_id', '=', traceId))]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
