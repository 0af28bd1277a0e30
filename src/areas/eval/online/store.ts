// SQL of online evaluation: online runs, the recorded decisions they sample (paged by time), their
// outputs and results, per-window aggregates for drift and SLOs, and the SLOs themselves.
import type { ExpressionBuilder, Kysely, Transaction, Updateable } from 'kysely';
import type { Database, EvalOutputRow, EvalResultRow, EvalRunRow, EvalRunsTable, EvalSloRow, EvalSlosTable } from '../../../infra/store/tables.js';
import type { WindowAggregate } from './drift.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Values per `in (...)` list: far below both databases' parameter limits. */
const IN_CHUNK = 500;

function chunks<T>(items: readonly T[], size = IN_CHUNK): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

// ---- runs

export async function insertRun(db: Db, row: EvalRunRow): Promise<void> {
  await db.insertInto('eval_runs').values(row).execute();
}

export async function findRun(db: Db, id: string): Promise<EvalRunRow | undefined> {
  return db.selectFrom('eval_runs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateRun(db: Db, id: string, patch: Updateable<EvalRunsTable>): Promise<void> {
  await db.updateTable('eval_runs').set(patch).where('id', '=', id).execute();
}

// ---- recorded decisions

/** The columns of a decision record an online subject is built from. */
export interface RecordedDecision {
  id: string;
  at: string;
  surface: string;
  verdict: string;
  effective_verdict: string;
  rules: string;
  entities: string;
  latency_ms: number;
  content: string | null;
  trace_id: string | null;
}

/** Characters of recorded content a subject reads: scorers look at the start of an answer, and a page stays small. */
export const MAX_SUBJECT_CONTENT = 32_768;
/** Decisions of the sampled traces one page reads at most: a runaway trace cannot fill memory. */
export const MAX_TRACE_DECISIONS = 10_000;

const decisionColumns = (eb: ExpressionBuilder<Database, 'traces'>) =>
  [
    'id',
    'at',
    'surface',
    'verdict',
    'effective_verdict',
    'rules',
    'entities',
    'latency_ms',
    'trace_id',
    eb.fn<string | null>('substr', [eb.ref('content'), eb.lit(1), eb.lit(MAX_SUBJECT_CONTENT)]).as('content'),
  ] as const;

/** One page of the agent's decisions in [from, to), in (at, id) order, after the keyset `after`. */
export async function decisionPage(
  db: Db,
  filter: { agent: string; from: string; to: string; after: { at: string; id: string } | null; limit: number },
): Promise<RecordedDecision[]> {
  let query = db
    .selectFrom('traces')
    .select(decisionColumns)
    .where('agent', '=', filter.agent)
    .where('at', '>=', filter.from)
    .where('at', '<', filter.to);
  const after = filter.after;
  if (after !== null) {
    query = query.where((eb) => eb.or([eb('at', '>', after.at), eb.and([eb('at', '=', after.at), eb('id', '>', after.id)])]));
  }
  const rows = await query.orderBy('at').orderBy('id').limit(filter.limit).execute();
  return rows.map((row) => ({ ...row, latency_ms: Number(row.latency_ms) }));
}

/** The decisions of the agent in [from, to) that carry one of `traceIds`, in (at, id) order; at most MAX_TRACE_DECISIONS. */
export async function decisionsOfTraces(db: Db, filter: { agent: string; from: string; to: string; traceIds: readonly string[] }): Promise<RecordedDecision[]> {
  const found: RecordedDecision[] = [];
  for (const part of chunks(filter.traceIds)) {
    if (found.length >= MAX_TRACE_DECISIONS) break;
    const rows = await db
      .selectFrom('traces')
      .select(decisionColumns)
      .where('agent', '=', filter.agent)
      .where('trace_id', 'in', part)
      .where('at', '>=', filter.from)
      .where('at', '<', filter.to)
      .orderBy('at')
      .orderBy('id')
      .limit(MAX_TRACE_DECISIONS - found.length)
      .execute();
    for (const row of rows) found.push({ ...row, latency_ms: Number(row.latency_ms) });
  }
  return found;
}

/** `decision_id scorer` pairs of `decisionIds` that some earlier run already scored. */
export async function alreadyScored(db: Db, decisionIds: readonly string[], scorers: readonly string[]): Promise<Set<string>> {
  const pairs = new Set<string>();
  if (scorers.length === 0) return pairs;
  for (const part of chunks(decisionIds)) {
    const rows = await db
      .selectFrom('eval_results')
      .select(['decision_id', 'scorer'])
      .where('decision_id', 'in', part)
      .where('scorer', 'in', [...scorers])
      .execute();
    for (const row of rows) if (row.decision_id !== null) pairs.add(scoredKey(row.decision_id, row.scorer));
  }
  return pairs;
}

export const scoredKey = (decisionId: string, scorer: string) => `${decisionId} ${scorer}`;

/** Rows per multi-row insert (14 parameters a row on eval_results). */
const INSERT_CHUNK = 200;

/** The outputs and results of one page of subjects, and the run's progress, in one transaction. */
export async function writeScored(
  db: Kysely<Database>,
  page: { outputs: readonly EvalOutputRow[]; results: readonly EvalResultRow[]; runId: string; progress: Updateable<EvalRunsTable> },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const part of chunks(page.outputs, INSERT_CHUNK)) await trx.insertInto('eval_outputs').values(part).execute();
    for (const part of chunks(page.results, INSERT_CHUNK)) await trx.insertInto('eval_results').values(part).execute();
    await trx.updateTable('eval_runs').set(page.progress).where('id', '=', page.runId).execute();
  });
}

// ---- windows of online results

/** A result's pass as it counts: a person's annotation instead of the scorer when there is one. */
const effectivePassed = (eb: ExpressionBuilder<Database, 'eval_results'>) =>
  eb.case().when('annotation', 'is', null).then(eb.ref('passed')).when('annotation', '=', 'pass').then(1).else(0).end();

/** Online results of `agent` with `at` in [from, to), aggregated per scorer (or for `scorer` only). */
export async function windowAggregates(db: Db, filter: { agent: string; scorer?: string; from: string; to: string }): Promise<Map<string, WindowAggregate>> {
  let query = db
    .selectFrom('eval_results')
    .select((eb) => [
      'scorer',
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string | null>(effectivePassed(eb)).as('passed'),
      eb.fn.sum<number | string | null>('score').as('score_sum'),
      eb.fn.count<number | string>('score').as('score_count'),
    ])
    .where('agent', '=', filter.agent)
    .where('decision_id', 'is not', null)
    .where('case_id', 'is', null)
    .where('at', '>=', filter.from)
    .where('at', '<', filter.to);
  if (filter.scorer !== undefined) query = query.where('scorer', '=', filter.scorer);
  const rows = await query.groupBy('scorer').execute();
  const byScorer = new Map<string, WindowAggregate>();
  for (const row of rows) {
    byScorer.set(row.scorer, {
      n: Number(row.n),
      passed: Number(row.passed ?? 0),
      scoreSum: Number(row.score_sum ?? 0),
      scoreCount: Number(row.score_count),
    });
  }
  return byScorer;
}

/** Non-null online scores of one agent's scorer in [from, to). */
function onlineScores(db: Db, filter: { agent: string; scorer: string; from: string; to: string }) {
  return db
    .selectFrom('eval_results')
    .where('agent', '=', filter.agent)
    .where('scorer', '=', filter.scorer)
    .where('decision_id', 'is not', null)
    .where('case_id', 'is', null)
    .where('at', '>=', filter.from)
    .where('at', '<', filter.to)
    .where('score', 'is not', null);
}

/** Whether some online score of `scorer` in [from, to) is neither 0 nor 1 (a distribution worth testing). */
export async function hasGradedScores(db: Db, filter: { agent: string; scorer: string; from: string; to: string }): Promise<boolean> {
  const row = await onlineScores(db, filter).select('id').where('score', 'not in', [0, 1]).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The newest `limit` non-null online scores of `scorer` in [from, to). */
export async function windowScores(db: Db, filter: { agent: string; scorer: string; from: string; to: string; limit: number }): Promise<number[]> {
  const rows = await onlineScores(db, filter).select('score').orderBy('at', 'desc').limit(filter.limit).execute();
  return rows.map((row) => Number(row.score));
}

// ---- SLOs

export type SloKey = Pick<EvalSlosTable, 'agent' | 'scorer' | 'objective' | 'window_days'>;

export async function findSlo(db: Db, key: SloKey): Promise<EvalSloRow | undefined> {
  return db
    .selectFrom('eval_slos')
    .selectAll()
    .where('agent', '=', key.agent)
    .where('scorer', '=', key.scorer)
    .where('objective', '=', key.objective)
    .where('window_days', '=', key.window_days)
    .executeTakeFirst();
}

/** Inserts the SLO unless one with its key exists (a concurrent save included); true when inserted. */
export async function insertSloIfAbsent(db: Db, row: EvalSloRow): Promise<boolean> {
  const result = await db
    .insertInto('eval_slos')
    .values(row)
    .onConflict((conflict) => conflict.columns(['agent', 'scorer', 'objective', 'window_days']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function updateSloTarget(db: Db, id: string, target: number, updatedAt: string): Promise<void> {
  await db.updateTable('eval_slos').set({ target, updated_at: updatedAt }).where('id', '=', id).execute();
}

/** SLOs, newest first; of one agent when given. */
export async function listSlos(db: Db, filter: { agent?: string; limit: number }): Promise<EvalSloRow[]> {
  let query = db.selectFrom('eval_slos').selectAll();
  if (filter.agent !== undefined) query = query.where('agent', '=', filter.agent);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}
