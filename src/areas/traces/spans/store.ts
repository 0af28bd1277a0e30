// SQL over the spans table and the links from spans to recorded decisions (traces.trace_id).
// Spans are written here only; decisions are read, never changed.
import type { Kysely } from 'kysely';
import type { Database, NewSpan, SpanRow } from '../../../infra/store/tables.js';

type Db = Kysely<Database>;

/**
 * Rows per INSERT: 21 columns × 200 rows stays far below SQLite's 32,766 bound variables and
 * PostgreSQL's 65,535 parameters, and a large export still takes few statements.
 */
const INSERT_CHUNK = 200;
/** Values per `IN (...)` list. */
const LOOKUP_CHUNK = 500;
/** The most trace ids and decision ids one resolve answer names. */
export const RESOLVE_LIMIT = 500;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let index = 0; index < items.length; index += size) out.push(items.slice(index, index + size));
  return out;
}

/**
 * Inserts the spans in one transaction, one statement per chunk. A span already stored (same
 * trace_id and span_id) is left as it is: exporters retry whole batches, and a retry must not
 * change what was recorded.
 */
export async function insertSpans(db: Db, rows: readonly NewSpan[]): Promise<void> {
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const chunk of chunks(rows, INSERT_CHUNK)) {
      await trx
        .insertInto('spans')
        .values(chunk)
        .onConflict((conflict) => conflict.columns(['trace_id', 'span_id']).doNothing())
        .execute();
    }
  });
}

/** For each trace id, the first decision recorded with it (decision ids sort by time). */
export async function firstDecisionByTrace(db: Db, traceIds: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const chunk of chunks([...new Set(traceIds)], LOOKUP_CHUNK)) {
    const rows = await db
      .selectFrom('traces')
      .select((eb) => ['trace_id', eb.fn.min('id').as('decision_id')])
      .where('trace_id', 'in', chunk)
      .groupBy('trace_id')
      .execute();
    for (const row of rows) if (row.trace_id !== null) found.set(row.trace_id, row.decision_id);
  }
  return found;
}

/** The trace ids of the spans known by this external run id, first received first, and their count. */
export async function spansByExternalId(db: Db, system: string, externalId: string): Promise<{ traceIds: string[]; spans: number }> {
  const rows = await db
    .selectFrom('spans')
    .select((eb) => ['trace_id', eb.fn.min('received_at').as('first'), eb.fn.countAll<number | string>().as('n')])
    .where('external_system', '=', system)
    .where('external_id', '=', externalId)
    .groupBy('trace_id')
    .orderBy('first')
    .orderBy('trace_id')
    .execute();
  return { traceIds: rows.slice(0, RESOLVE_LIMIT).map((row) => row.trace_id), spans: rows.reduce((sum, row) => sum + Number(row.n), 0) };
}

export async function countSpansOfTrace(db: Db, traceId: string): Promise<number> {
  const row = await db
    .selectFrom('spans')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('trace_id', '=', traceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Decisions linked to these traces, newest first: decisions recorded with one of the trace ids,
 * and decisions that spans of those traces name through `parapet.decision_id` (or were linked to
 * when they arrived).
 */
export async function decisionsOfTraces(db: Db, traceIds: readonly string[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const chunk of chunks(traceIds, LOOKUP_CHUNK)) {
    const recorded = await db
      .selectFrom('traces')
      .select('id')
      .where('trace_id', 'in', chunk)
      .orderBy('id', 'desc')
      .limit(RESOLVE_LIMIT)
      .execute();
    for (const row of recorded) ids.add(row.id);
    const named = await db
      .selectFrom('spans')
      .select('decision_id')
      .distinct()
      .where('trace_id', 'in', chunk)
      .where('decision_id', 'is not', null)
      .limit(RESOLVE_LIMIT)
      .execute();
    for (const row of named) if (row.decision_id !== null) ids.add(row.decision_id);
  }
  // A span may name a decision that retention has deleted, or one that never existed: keep only
  // decisions that are recorded.
  const existing = new Set<string>();
  for (const chunk of chunks([...ids], LOOKUP_CHUNK)) {
    const rows = await db.selectFrom('traces').select('id').where('id', 'in', chunk).execute();
    for (const row of rows) existing.add(row.id);
  }
  return [...existing].sort().reverse().slice(0, RESOLVE_LIMIT);
}

export async function getDecisionTraceId(db: Db, decisionId: string): Promise<{ trace_id: string | null } | undefined> {
  return db.selectFrom('traces').select('trace_id').where('id', '=', decisionId).executeTakeFirst();
}

export interface SpanPosition {
  start_time: string;
  trace_id: string;
  span_id: string;
}

/**
 * Spans of a decision, newest start first: those of its trace id and those that name it.
 * Paged by (start_time, trace_id, span_id) after `before`.
 */
export async function spansOfDecision(
  db: Db,
  decisionId: string,
  traceId: string | null,
  before: SpanPosition | undefined,
  limit: number,
): Promise<SpanRow[]> {
  let query = db
    .selectFrom('spans')
    .selectAll()
    .where((eb) => (traceId === null ? eb('decision_id', '=', decisionId) : eb.or([eb('trace_id', '=', traceId), eb('decision_id', '=', decisionId)])))
    .orderBy('start_time', 'desc')
    .orderBy('trace_id', 'desc')
    .orderBy('span_id', 'desc')
    .limit(limit);
  if (before !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb('start_time', '<', before.start_time),
        eb.and([eb('start_time', '=', before.start_time), eb('trace_id', '<', before.trace_id)]),
        eb.and([eb('start_time', '=', before.start_time), eb('trace_id', '=', before.trace_id), eb('span_id', '<', before.span_id)]),
      ]),
    );
  }
  return query.execute();
}
