// SQL of eval suites and cases: suites with their case counts and latest run, cases in position
// order, and the decision records a case is made from.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, EvalCaseRow, EvalSuiteRow, TraceRow } from '../../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function listSuites(db: Db): Promise<Array<EvalSuiteRow & { cases: number }>> {
  const [suites, counts] = await Promise.all([
    db.selectFrom('eval_suites').selectAll().orderBy('key').execute(),
    db
      .selectFrom('eval_cases')
      .select((eb) => ['suite', eb.fn.countAll<number | string>().as('n')])
      .groupBy('suite')
      .execute(),
  ]);
  const bySuite = new Map(counts.map((row) => [row.suite, Number(row.n)]));
  return suites.map((suite) => ({ ...suite, cases: bySuite.get(suite.key) ?? 0 }));
}

export async function findSuite(db: Db, key: string): Promise<EvalSuiteRow | undefined> {
  return db.selectFrom('eval_suites').selectAll().where('key', '=', key).executeTakeFirst();
}

export async function insertSuite(db: Db, row: EvalSuiteRow): Promise<void> {
  await db.insertInto('eval_suites').values(row).execute();
}

/** One more change to the suite's cases. */
export async function bumpVersion(db: Db, key: string, at: string): Promise<number> {
  const row = await db
    .updateTable('eval_suites')
    .set((eb) => ({ version: eb('version', '+', 1), updated_at: at }))
    .where('key', '=', key)
    .returning('version')
    .executeTakeFirstOrThrow();
  return Number(row.version);
}

export async function countCases(db: Db, suite: string): Promise<number> {
  const row = await db
    .selectFrom('eval_cases')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('suite', '=', suite)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function nextPosition(db: Db, suite: string): Promise<number> {
  const row = await db
    .selectFrom('eval_cases')
    .select((eb) => eb.fn.max<number | string | null>('position').as('last'))
    .where('suite', '=', suite)
    .executeTakeFirstOrThrow();
  return row.last === null ? 0 : Number(row.last) + 1;
}

export async function findCaseByKey(db: Db, suite: string, caseKey: string): Promise<EvalCaseRow | undefined> {
  return db.selectFrom('eval_cases').selectAll().where('suite', '=', suite).where('case_key', '=', caseKey).executeTakeFirst();
}

export async function findCase(db: Db, id: string): Promise<EvalCaseRow | undefined> {
  return db.selectFrom('eval_cases').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertCase(db: Db, row: EvalCaseRow): Promise<void> {
  await db.insertInto('eval_cases').values(row).execute();
}

/** A case replaced in place: same id, position and creation. */
export async function replaceCase(
  db: Db,
  id: string,
  change: Pick<EvalCaseRow, 'input' | 'expected' | 'context' | 'labels' | 'split' | 'source' | 'source_ref'>,
): Promise<EvalCaseRow> {
  return db.updateTable('eval_cases').set(change).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function listCases(db: Db, suite: string, limit: number): Promise<EvalCaseRow[]> {
  return db.selectFrom('eval_cases').selectAll().where('suite', '=', suite).orderBy('position').orderBy('id').limit(limit).execute();
}

export interface LastRun {
  id: string;
  suite: string;
  status: string;
  created_at: string;
}

/** The newest run of each suite (ties on created_at go to the larger id). */
export async function latestRuns(db: Db, suites: readonly string[]): Promise<Map<string, LastRun>> {
  if (suites.length === 0) return new Map();
  const rows = await db
    .selectFrom('eval_runs as a')
    .select(['a.id', 'a.suite', 'a.status', 'a.created_at'])
    .where('a.kind', '=', 'offline')
    .where('a.suite', 'in', suites)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('eval_runs as b')
            .select('b.id')
            .whereRef('b.suite', '=', 'a.suite')
            .where('b.kind', '=', 'offline')
            .where((inner) =>
              inner.or([
                inner('b.created_at', '>', inner.ref('a.created_at')),
                inner.and([inner('b.created_at', '=', inner.ref('a.created_at')), inner('b.id', '>', inner.ref('a.id'))]),
              ]),
            ),
        ),
      ),
    )
    .execute();
  const latest = new Map<string, LastRun>();
  for (const row of rows) if (row.suite !== null) latest.set(row.suite, { id: row.id, suite: row.suite, status: row.status, created_at: row.created_at });
  return latest;
}

/**
 * Pass rate per run: outputs none of whose results fails, over outputs. A result counts as
 * pass.ts says: a person's annotation, when there is one, instead of the scorer's call. An output
 * no scorer applied to is left out, as in the run detail.
 */
export async function passRates(db: Db, runIds: readonly string[]): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map();
  const failing = sql<number>`case when exists (
      select 1 from eval_results r
      where r.run_id = o.run_id and r.output_id = o.id
        and (case when r.annotation is null then r.passed when r.annotation = 'pass' then 1 else 0 end) = 0
    ) then 1 else 0 end`;
  const rows = await db
    .selectFrom('eval_outputs as o')
    .select((eb) => ['o.run_id', eb.fn.countAll<number | string>().as('cases'), eb.fn.sum<number | string>(failing).as('failing')])
    .where('o.run_id', 'in', runIds)
    // As the run detail counts: an output no scorer applied to is not in the pass rate.
    .where(sql<boolean>`exists (select 1 from eval_results r where r.run_id = o.run_id and r.output_id = o.id)`)
    .groupBy('o.run_id')
    .execute();
  return new Map(rows.map((row) => [row.run_id, (Number(row.cases) - Number(row.failing)) / Number(row.cases)]));
}

export async function findDecision(db: Db, id: string): Promise<TraceRow | undefined> {
  return db.selectFrom('traces').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The decision of a request trace a case is made from: its earliest on the input surface, else its earliest. */
export async function decisionOfTrace(db: Db, traceId: string): Promise<TraceRow | undefined> {
  const earliest = (surface?: string) => {
    let query = db.selectFrom('traces').selectAll().where('trace_id', '=', traceId);
    if (surface !== undefined) query = query.where('surface', '=', surface);
    return query.orderBy('at').orderBy('id').limit(1).executeTakeFirst();
  };
  return (await earliest('input')) ?? earliest();
}
