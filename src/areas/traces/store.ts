// SQL over the traces table for trace lists and metrics. Reads only: traces are written by the
// recorder (src/recording) and removed by retention (src/retention).
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Dialect } from '../../infra/store/db.js';
import type { Database } from '../../infra/store/tables.js';

type Db = Kysely<Database>;
type TracesEb = ExpressionBuilder<Database, 'traces'>;

export interface TraceFilter {
  agent?: string;
  verdict?: string;
  environment?: string;
  /** An entity type, or a family prefix ending in '.'. */
  entityType?: string;
  tool?: string;
  rule?: string;
  errors?: boolean;
  /** ISO timestamps, inclusive. */
  from?: string;
  to?: string;
}

/**
 * `column` contains `needle` as plain text. instr/strpos rather than LIKE: no wildcard to escape,
 * and the same case-sensitive answer on both engines (SQLite's LIKE ignores ASCII case).
 */
function containsText(dialect: Dialect, column: 'entities' | 'rules', needle: string): Expression<SqlBool> {
  return dialect === 'postgres'
    ? sql<SqlBool>`strpos(${sql.ref(`traces.${column}`)}, ${needle}) > 0`
    : sql<SqlBool>`instr(${sql.ref(`traces.${column}`)}, ${needle}) > 0`;
}

/**
 * The text an entity type or rule id has inside the JSON arrays the pipeline stores
 * (JSON.stringify, no whitespace): quoted, so PII.EMAIL never matches PII.EMAIL_DOMAIN, and a
 * prefix keeps its opening quote so that "PII." matches only types that start with it.
 */
export function entityNeedle(entityType: string): string {
  const quoted = JSON.stringify(entityType);
  return entityType.endsWith('.') ? quoted.slice(0, -1) : quoted;
}

export function ruleNeedle(ruleId: string): string {
  return `"rule_id":${JSON.stringify(ruleId)}`;
}

export function traceConditions(dialect: Dialect, filter: TraceFilter) {
  return (eb: TracesEb): Expression<SqlBool> => {
    const all: Array<Expression<SqlBool>> = [];
    if (filter.agent !== undefined) all.push(eb('traces.agent', '=', filter.agent));
    if (filter.verdict !== undefined) all.push(eb('traces.verdict', '=', filter.verdict));
    if (filter.environment !== undefined) all.push(eb('traces.environment', '=', filter.environment));
    if (filter.tool !== undefined) all.push(eb('traces.tool', '=', filter.tool));
    if (filter.entityType !== undefined) all.push(containsText(dialect, 'entities', entityNeedle(filter.entityType)));
    if (filter.rule !== undefined) all.push(containsText(dialect, 'rules', ruleNeedle(filter.rule)));
    if (filter.errors === true) all.push(eb('traces.degraded', '<>', '[]'));
    if (filter.errors === false) all.push(eb('traces.degraded', '=', '[]'));
    if (filter.from !== undefined) all.push(eb('traces.at', '>=', filter.from));
    if (filter.to !== undefined) all.push(eb('traces.at', '<=', filter.to));
    return eb.and(all);
  };
}

export async function listTraces(db: Db, dialect: Dialect, filter: TraceFilter, before: string | undefined, limit: number) {
  let query = db.selectFrom('traces').selectAll().where(traceConditions(dialect, filter)).orderBy('id', 'desc').limit(limit);
  if (before !== undefined) query = query.where('id', '<', before);
  return query.execute();
}

export async function getTrace(db: Db, id: string) {
  return db.selectFrom('traces').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function verdictCounts(db: Db, dialect: Dialect, filter: TraceFilter) {
  const rows = await db
    .selectFrom('traces')
    .select((eb) => ['verdict', 'effective_verdict', eb.fn.countAll<number | string>().as('n')])
    .where(traceConditions(dialect, filter))
    .groupBy(['verdict', 'effective_verdict'])
    .execute();
  return rows.map((row) => ({ verdict: row.verdict, effective_verdict: row.effective_verdict, n: Number(row.n) }));
}

export async function totals(db: Db, dialect: Dialect, filter: TraceFilter): Promise<{ degraded: number; agents: number }> {
  const row = await db
    .selectFrom('traces')
    .select((eb) => [
      eb.fn.sum<number | string | null>(sql`case when traces.degraded <> '[]' then 1 else 0 end`).as('degraded'),
      eb.fn.count<number | string>('traces.agent').distinct().as('agents'),
    ])
    .where(traceConditions(dialect, filter))
    .executeTakeFirstOrThrow();
  return { degraded: Number(row.degraded ?? 0), agents: Number(row.agents) };
}

/**
 * Nearest-rank percentiles of latency_ms (the smallest value with at least p of the decisions at
 * or below it), computed by the database: percentile_disc on PostgreSQL, and on SQLite, which
 * has no ordered-set aggregates, the row at rank ceil(p·n) of the sorted latencies.
 */
export async function latencyPercentiles(
  db: Db,
  dialect: Dialect,
  filter: TraceFilter,
  count: number,
  percentiles: readonly number[],
): Promise<Array<number | null>> {
  if (count === 0) return percentiles.map(() => null);
  if (dialect === 'postgres') {
    const row = await db
      .selectFrom('traces')
      .select(
        percentiles.map((p, index) =>
          sql<number | string | null>`percentile_disc(${sql.lit(p)}) within group (order by traces.latency_ms)`.as(`p${index}`),
        ),
      )
      .where(traceConditions(dialect, filter))
      .executeTakeFirstOrThrow();
    const values = row as Record<string, number | string | null>;
    return percentiles.map((_p, index) => {
      const value = values[`p${index}`];
      return value === null || value === undefined ? null : Number(value);
    });
  }
  const answers: Array<number | null> = [];
  for (const p of percentiles) {
    const rank = Math.max(1, Math.ceil(p * count));
    const row = await db
      .selectFrom('traces')
      .select('latency_ms')
      .where(traceConditions(dialect, filter))
      .orderBy('latency_ms')
      .limit(1)
      .offset(rank - 1)
      .executeTakeFirst();
    answers.push(row === undefined ? null : Number(row.latency_ms));
  }
  return answers;
}

export async function findingsOpened(db: Db, filter: TraceFilter): Promise<number> {
  let query = db.selectFrom('findings').select((eb) => eb.fn.countAll<number | string>().as('n'));
  if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('at', '<=', filter.to);
  if (filter.agent !== undefined) query = query.where('agent', '=', filter.agent);
  // Findings carry no environment: they count when the decision that last raised them has it.
  if (filter.environment !== undefined) {
    const environment = filter.environment;
    query = query.where('decision_id', 'in', (eb) => eb.selectFrom('traces').select('id').where('environment', '=', environment));
  }
  return Number((await query.executeTakeFirstOrThrow()).n);
}

export async function budgetBreaches(db: Db, filter: TraceFilter, limit: number) {
  let query = db.selectFrom('findings').where('type', '=', 'budget_breach');
  if (filter.from !== undefined) query = query.where('last_seen_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('last_seen_at', '<=', filter.to);
  if (filter.agent !== undefined) query = query.where('agent', '=', filter.agent);
  if (filter.environment !== undefined) {
    const environment = filter.environment;
    query = query.where('decision_id', 'in', (eb) => eb.selectFrom('traces').select('id').where('environment', '=', environment));
  }
  const total = Number((await query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n);
  const rows = await query.selectAll().orderBy('last_seen_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return { total, rows };
}

/** Dimensions held in a column of their own, counted by the database. */
export type ColumnDim = 'agent' | 'surface' | 'verdict' | 'tool' | 'environment';

export async function columnBreakdown(db: Db, dialect: Dialect, filter: TraceFilter, dim: ColumnDim) {
  const rows = await db
    .selectFrom('traces')
    .select((eb) => [
      sql.ref<string | null>(`traces.${dim}`).as('value'),
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string | null>(sql`case when traces.verdict = 'block' then 1 else 0 end`).as('blocked'),
      eb.fn.sum<number | string | null>(sql`case when traces.effective_verdict = 'block' then 1 else 0 end`).as('effective_blocked'),
    ])
    .where(traceConditions(dialect, filter))
    .groupBy(`traces.${dim}`)
    .execute();
  return rows.map((row) => ({
    value: row.value,
    count: Number(row.n),
    blocked: Number(row.blocked ?? 0),
    effective_blocked: Number(row.effective_blocked ?? 0),
  }));
}

export interface JsonColumnRow {
  id: string;
  at: string;
  verdict: string;
  effective_verdict: string;
  json: string;
}

/**
 * Reads one JSON-array column of the matching decisions, newest first, in pages of `pageSize`
 * (so that memory stays bounded), at most `max` rows in all; `only` skips rows whose column is
 * the empty array. Calls `each` per page; answers whether more rows matched than were read.
 */
export async function scanJsonColumn(
  db: Db,
  dialect: Dialect,
  filter: TraceFilter,
  column: 'rules' | 'entities' | 'detectors',
  options: { max: number; pageSize: number; nonEmpty?: 'rules' | 'entities' | 'degraded' },
  each: (rows: JsonColumnRow[]) => void,
): Promise<{ read: number; sampled: boolean }> {
  let read = 0;
  let after: { at: string; id: string } | null = null;
  for (;;) {
    const want = Math.min(options.pageSize, options.max - read);
    let query = db
      .selectFrom('traces')
      .select(['traces.id', 'traces.at', 'traces.verdict', 'traces.effective_verdict', sql.ref<string>(`traces.${column}`).as('json')])
      .where(traceConditions(dialect, filter))
      .orderBy('traces.at', 'desc')
      .orderBy('traces.id', 'desc')
      // One row more than wanted tells whether rows were left unread.
      .limit(want + 1);
    if (options.nonEmpty !== undefined) query = query.where(sql.ref(`traces.${options.nonEmpty}`), '<>', '[]');
    const position = after;
    if (position !== null) {
      query = query.where((eb) =>
        eb.or([eb('traces.at', '<', position.at), eb.and([eb('traces.at', '=', position.at), eb('traces.id', '<', position.id)])]),
      );
    }
    const rows = (await query.execute()) as JsonColumnRow[];
    const page = rows.slice(0, want);
    each(page);
    read += page.length;
    if (rows.length <= want) return { read, sampled: false };
    if (read >= options.max) return { read, sampled: true };
    const last = page.at(-1) as JsonColumnRow;
    after = { at: last.at, id: last.id };
  }
}
