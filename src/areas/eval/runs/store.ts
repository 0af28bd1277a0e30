// SQL of evaluation runs: the suite and cases a run answers, the run row, its outputs and results.
import type { Kysely, Transaction } from 'kysely';
import type { Database, EvalCaseRow, EvalOutputRow, EvalResultRow, EvalRunRow, EvalSuiteRow } from '../../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function findSuite(db: Db, key: string): Promise<EvalSuiteRow | undefined> {
  return db.selectFrom('eval_suites').selectAll().where('key', '=', key).executeTakeFirst();
}

export async function countCases(db: Db, suite: string): Promise<number> {
  const row = await db
    .selectFrom('eval_cases')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('suite', '=', suite)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The suite's cases in suite order. */
export async function listCases(db: Db, suite: string): Promise<EvalCaseRow[]> {
  return db.selectFrom('eval_cases').selectAll().where('suite', '=', suite).orderBy('position').orderBy('id').execute();
}

/** Team and environment of a registered agent (the scope its policies are bound at). */
export async function agentScope(db: Db, slug: string): Promise<{ team: string | null; environment: string | null } | undefined> {
  const row = await db.selectFrom('agents').select(['owner_team', 'environment']).where('slug', '=', slug).executeTakeFirst();
  return row === undefined ? undefined : { team: row.owner_team, environment: row.environment };
}

export async function insertRun(db: Db, row: EvalRunRow): Promise<void> {
  await db.insertInto('eval_runs').values(row).execute();
}

export async function findRun(db: Db, id: string): Promise<EvalRunRow | undefined> {
  return db.selectFrom('eval_runs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateRun(
  db: Db,
  id: string,
  change: Partial<Pick<EvalRunRow, 'status' | 'job_id' | 'total' | 'done' | 'error' | 'started_at' | 'finished_at'>>,
): Promise<void> {
  await db.updateTable('eval_runs').set(change).where('id', '=', id).execute();
}

/** Newest first; both kinds. */
export async function listRuns(db: Db, filter: { suite?: string; limit: number }): Promise<EvalRunRow[]> {
  let query = db.selectFrom('eval_runs').selectAll();
  if (filter.suite !== undefined) query = query.where('suite', '=', filter.suite);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}

/** Ids of the cases this run has already answered (a retried job skips them). */
export async function answeredCases(db: Db, runId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('eval_outputs').select('case_id').where('run_id', '=', runId).where('case_id', 'is not', null).execute();
  return new Set(rows.map((row) => row.case_id as string));
}

export async function hasOutput(db: Db, runId: string, caseId: string): Promise<boolean> {
  const row = await db.selectFrom('eval_outputs').select('id').where('run_id', '=', runId).where('case_id', '=', caseId).executeTakeFirst();
  return row !== undefined;
}

export async function insertOutput(db: Db, row: EvalOutputRow): Promise<void> {
  await db.insertInto('eval_outputs').values(row).execute();
}

export async function insertResults(db: Db, rows: readonly EvalResultRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('eval_results').values([...rows]).execute();
}

export async function countOutputs(db: Db, runId: string): Promise<number> {
  const row = await db
    .selectFrom('eval_outputs')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function outputsOf(db: Db, runId: string): Promise<EvalOutputRow[]> {
  return db.selectFrom('eval_outputs').selectAll().where('run_id', '=', runId).orderBy('id').execute();
}

export async function resultsOf(db: Db, runIds: readonly string[]): Promise<EvalResultRow[]> {
  if (runIds.length === 0) return [];
  return db.selectFrom('eval_results').selectAll().where('run_id', 'in', [...runIds]).orderBy('id').execute();
}

/** Per run: whether each output passed every applicable result, annotations counted — the inputs of pass_rate. */
export async function resultPasses(db: Db, runIds: readonly string[]): Promise<Array<Pick<EvalResultRow, 'run_id' | 'output_id' | 'passed' | 'annotation'>>> {
  if (runIds.length === 0) return [];
  return db.selectFrom('eval_results').select(['run_id', 'output_id', 'passed', 'annotation']).where('run_id', 'in', [...runIds]).execute();
}

/** Case keys by id (cases of the suite, and any since removed are simply absent). */
export async function caseKeys(db: Db, suite: string): Promise<Map<string, { key: string | null; position: number }>> {
  const rows = await db.selectFrom('eval_cases').select(['id', 'case_key', 'position']).where('suite', '=', suite).execute();
  return new Map(rows.map((row) => [row.id, { key: row.case_key, position: row.position }]));
}
