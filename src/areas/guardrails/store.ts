// Queries for guardrail feedback and suppressions, and the reads of recorded decisions the reports
// need. Returns plain rows; no rules here.
import type { Kysely, Transaction } from 'kysely';
import type { Database, GuardrailFeedbackTable, GuardrailSuppressionsTable } from '../../infra/store/tables.js';
import type { Selectable } from 'kysely';

type Db = Kysely<Database> | Transaction<Database>;
export type FeedbackRow = Selectable<GuardrailFeedbackTable>;
export type SuppressionRow = Selectable<GuardrailSuppressionsTable>;

/** What feedback needs of a recorded decision. */
export async function findDecision(db: Db, id: string) {
  return db
    .selectFrom('traces')
    .select(['id', 'at', 'agent', 'surface', 'rules', 'entities', 'facts', 'content_sha256'])
    .where('id', '=', id)
    .executeTakeFirst();
}
export type DecisionRow = NonNullable<Awaited<ReturnType<typeof findDecision>>>;

/** Several decisions by id (labelled ones, for recommendations), in chunks that keep parameter lists short. */
export async function decisionsByIds(db: Db, ids: readonly string[]): Promise<DecisionRow[]> {
  const rows: DecisionRow[] = [];
  for (let start = 0; start < ids.length; start += 500) {
    const chunk = ids.slice(start, start + 500);
    rows.push(
      ...(await db
        .selectFrom('traces')
        .select(['id', 'at', 'agent', 'surface', 'rules', 'entities', 'facts', 'content_sha256'])
        .where('id', 'in', chunk)
        .execute()),
    );
  }
  return rows;
}

export async function insertFeedback(db: Db, row: FeedbackRow): Promise<void> {
  await db.insertInto('guardrail_feedback').values(row).execute();
}

export async function findFeedback(db: Db, id: string): Promise<FeedbackRow | undefined> {
  return db.selectFrom('guardrail_feedback').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The same label on the same decision for the same detection, if one was given already. */
export async function sameFeedback(
  db: Db,
  key: { decision_id: string; label: string; detector_key: string | null; entity_type: string | null },
): Promise<FeedbackRow | undefined> {
  let query = db.selectFrom('guardrail_feedback').selectAll().where('decision_id', '=', key.decision_id).where('label', '=', key.label);
  query = key.detector_key === null ? query.where('detector_key', 'is', null) : query.where('detector_key', '=', key.detector_key);
  query = key.entity_type === null ? query.where('entity_type', 'is', null) : query.where('entity_type', '=', key.entity_type);
  return query.executeTakeFirst();
}

export async function listFeedback(db: Db, filter: { label?: string; status?: string; before?: string; limit: number }): Promise<FeedbackRow[]> {
  let query = db.selectFrom('guardrail_feedback').selectAll().orderBy('id', 'desc').limit(filter.limit);
  if (filter.label !== undefined) query = query.where('label', '=', filter.label);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  return query.execute();
}

/** Labels given since `since`, newest first, at most `max` (labels are made by people: few). */
export async function feedbackSince(db: Db, since: string, agent: string | undefined, max: number): Promise<FeedbackRow[]> {
  let query = db.selectFrom('guardrail_feedback').selectAll().where('created_at', '>=', since).orderBy('created_at', 'desc').limit(max);
  if (agent !== undefined) query = query.where('agent', '=', agent);
  return query.execute();
}

export async function setFeedbackStatus(db: Db, id: string, status: string): Promise<void> {
  await db.updateTable('guardrail_feedback').set({ status }).where('id', '=', id).execute();
}

export async function insertSuppression(db: Db, row: SuppressionRow): Promise<void> {
  await db.insertInto('guardrail_suppressions').values(row).execute();
}

export async function findSuppression(db: Db, id: string): Promise<SuppressionRow | undefined> {
  return db.selectFrom('guardrail_suppressions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Suppressions not deleted and not expired at `now` that were made from this feedback. */
export async function activeFromFeedback(db: Db, feedbackId: string, now: string): Promise<SuppressionRow[]> {
  return db
    .selectFrom('guardrail_suppressions')
    .selectAll()
    .where('feedback_id', '=', feedbackId)
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
}

/** Not deleted, newest first; with `agent`, the ones that apply to it (its own and the global ones). */
export async function listSuppressions(db: Db, filter: { agent?: string; before?: string; limit: number }): Promise<SuppressionRow[]> {
  let query = db.selectFrom('guardrail_suppressions').selectAll().where('deleted_at', 'is', null).orderBy('id', 'desc').limit(filter.limit);
  const agent = filter.agent;
  if (agent !== undefined) query = query.where((eb) => eb.or([eb('scope', '=', 'global'), eb('agent', '=', agent)]));
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  return query.execute();
}

/** Every suppression in force at `now`: what the in-memory filter holds. */
export async function activeSuppressions(db: Db, now: string): Promise<SuppressionRow[]> {
  return db
    .selectFrom('guardrail_suppressions')
    .selectAll()
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
}

/** Soft delete, only if not deleted already; false when someone else deleted it first. */
export async function deleteSuppression(db: Db, id: string, at: string): Promise<boolean> {
  const result = await db.updateTable('guardrail_suppressions').set({ deleted_at: at }).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface RunsRow {
  id: string;
  at: string;
  agent: string;
  detectors: string;
}

/**
 * Detector runs of the decisions since `since` (optionally of one agent), newest first, in pages of
 * `pageSize` by (at, id) so that memory stays bounded and the `at` (or `agent, at`) index is used;
 * at most `max` decisions. Answers whether more decisions matched than were read.
 */
export async function scanDetectorRuns(
  db: Db,
  filter: { since: string; agent?: string },
  options: { max: number; pageSize: number },
  each: (rows: RunsRow[]) => void,
): Promise<{ read: number; sampled: boolean }> {
  let read = 0;
  let after: { at: string; id: string } | null = null;
  const agent = filter.agent;
  for (;;) {
    const want = Math.min(options.pageSize, options.max - read);
    let query = db
      .selectFrom('traces')
      .select(['id', 'at', 'agent', 'detectors'])
      .where('at', '>=', filter.since)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      // One row more than wanted tells whether rows were left unread.
      .limit(want + 1);
    if (agent !== undefined) query = query.where('agent', '=', agent);
    const position = after;
    if (position !== null) {
      query = query.where((eb) => eb.or([eb('at', '<', position.at), eb.and([eb('at', '=', position.at), eb('id', '<', position.id)])]));
    }
    const rows = await query.execute();
    const page = rows.slice(0, want);
    each(page);
    read += page.length;
    if (rows.length <= want) return { read, sampled: false };
    if (read >= options.max) return { read, sampled: true };
    const last = page.at(-1) as RunsRow;
    after = { at: last.at, id: last.id };
  }
}
