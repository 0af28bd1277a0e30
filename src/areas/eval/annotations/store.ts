// SQL of annotation: the results a person should look at (near a threshold, or where an output's
// scorers disagree), one result with what it scored, and a person's call written onto it.
import { sql, type Kysely, type SqlBool, type Transaction } from 'kysely';
import type { Database, EvalResultRow } from '../../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface QueueRow {
  id: string;
  run_id: string;
  output_id: string;
  case_id: string | null;
  decision_id: string | null;
  agent: string | null;
  at: string;
  scorer: string;
  score: number | null;
  passed: number;
  threshold: number | null;
  reason: string;
  near: number;
  case_input: string | null;
  decision_content: string | null;
  output: string | null;
}

export interface QueueFilter {
  runId?: string;
  band: number;
  limit: number;
  /** Scorers whose scores are not 0..1 (milliseconds, dollars): near means within band × threshold. Not empty. */
  scaledScorers: readonly string[];
}

export async function runExists(db: Db, runId: string): Promise<boolean> {
  return (await db.selectFrom('eval_runs').select('id').where('id', '=', runId).executeTakeFirst()) !== undefined;
}

/** Results not yet annotated that are near their threshold or whose output's scorers disagree; newest first. */
export async function queue(db: Db, filter: QueueFilter): Promise<QueueRow[]> {
  const band = filter.band;
  // Annotated results count as annotated: what pass rates count decides whether scorers disagree.
  const counted = sql<number>`case when annotation is null then passed when annotation = 'pass' then 1 else 0 end`;
  let disagreeing = db
    .selectFrom('eval_results')
    .select('output_id')
    .groupBy('output_id')
    .having(sql<boolean>`min(${counted}) <> max(${counted})`);
  if (filter.runId !== undefined) disagreeing = disagreeing.where('run_id', '=', filter.runId);
  const scaled = sql.join([...filter.scaledScorers]);
  const nearThreshold = sql<SqlBool>`(r.threshold is not null and r.score is not null and (
      (r.scorer in (${scaled}) and abs(r.score - r.threshold) <= ${band} * abs(r.threshold))
      or (r.scorer not in (${scaled}) and abs(r.score - r.threshold) <= ${band})))`;
  let query = db
    .selectFrom('eval_results as r')
    .innerJoin('eval_outputs as o', 'o.id', 'r.output_id')
    .leftJoin('eval_cases as c', 'c.id', 'r.case_id')
    .leftJoin('traces as t', 't.id', 'r.decision_id')
    .select([
      'r.id',
      'r.run_id',
      'r.output_id',
      'r.case_id',
      'r.decision_id',
      'r.agent',
      'r.at',
      'r.scorer',
      'r.score',
      'r.passed',
      'r.threshold',
      'r.reason',
      'c.input as case_input',
      't.content as decision_content',
      'o.output',
      sql<number>`case when ${nearThreshold} then 1 else 0 end`.as('near'),
    ])
    .where('r.annotation', 'is', null)
    .where((eb) => eb.or([nearThreshold, eb('r.output_id', 'in', disagreeing)]));
  if (filter.runId !== undefined) query = query.where('r.run_id', '=', filter.runId);
  const rows = await query.orderBy('r.at', 'desc').orderBy('r.output_id').orderBy('r.scorer').orderBy('r.id').limit(filter.limit).execute();
  return rows.map((row) => ({
    ...row,
    score: row.score === null ? null : Number(row.score),
    threshold: row.threshold === null ? null : Number(row.threshold),
    passed: Number(row.passed),
    near: Number(row.near),
  }));
}

export interface ResultWithOutput extends EvalResultRow {
  output_verdict: string | null;
}

export async function findResult(db: Db, id: string): Promise<ResultWithOutput | undefined> {
  const row = await db
    .selectFrom('eval_results as r')
    .innerJoin('eval_outputs as o', 'o.id', 'r.output_id')
    .selectAll('r')
    .select('o.verdict as output_verdict')
    .where('r.id', '=', id)
    .executeTakeFirst();
  return row === undefined ? undefined : { ...row, score: row.score === null ? null : Number(row.score), threshold: row.threshold === null ? null : Number(row.threshold) };
}

export async function annotate(
  db: Db,
  id: string,
  annotation: Pick<EvalResultRow, 'annotation' | 'annotation_note' | 'annotated_by' | 'annotated_at'>,
): Promise<void> {
  await db.updateTable('eval_results').set(annotation).where('id', '=', id).execute();
}
