// SQL of answerability: boundaries, the checks made against them, the source registry's freshness
// of systems of record (read only) and the traces a report joins.
import type { Kysely } from 'kysely';
import type { AnswerabilityBoundaryRow, AnswerabilityCheckRow, Database } from '../../infra/store/tables.js';
import type { ReasonCode } from './check.js';

type Db = Kysely<Database>;

export function listBoundaries(db: Db, agent?: string): Promise<AnswerabilityBoundaryRow[]> {
  let query = db.selectFrom('answerability_boundaries').selectAll();
  if (agent !== undefined) query = query.where('agent', '=', agent);
  return query.orderBy('agent').execute();
}

export function findBoundary(db: Db, agent: string): Promise<AnswerabilityBoundaryRow | undefined> {
  return db.selectFrom('answerability_boundaries').selectAll().where('agent', '=', agent).executeTakeFirst();
}

/** Inserts or replaces the agent's boundary; true when it was new. */
export async function putBoundary(db: Db, row: AnswerabilityBoundaryRow): Promise<boolean> {
  const { agent, ...rest } = row;
  const updated = await db.updateTable('answerability_boundaries').set(rest).where('agent', '=', agent).executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return false;
  await db.insertInto('answerability_boundaries').values(row).execute();
  return true;
}

export interface SourceFreshnessRow {
  key: string;
  updated_at_source: string | null;
  freshness_sla_hours: number | null;
  deprecated: number;
}

export function sourceFreshness(db: Db, keys: readonly string[]): Promise<SourceFreshnessRow[]> {
  if (keys.length === 0) return Promise.resolve([]);
  return db.selectFrom('knowledge_sources').select(['key', 'updated_at_source', 'freshness_sla_hours', 'deprecated']).where('key', 'in', [...keys]).execute();
}

export async function insertCheck(db: Db, row: AnswerabilityCheckRow): Promise<void> {
  await db.insertInto('answerability_checks').values(row).execute();
}

export async function outcomeCounts(db: Db, since: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('answerability_checks')
    .select(['outcome', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('at', '>=', since)
    .groupBy('outcome')
    .execute();
  return new Map(rows.map((row) => [row.outcome, Number(row.n)]));
}

/** Checks in the window whose stored reasons hold the code (reasons are JSON written by the service). */
export async function reasonCount(db: Db, since: string, code: ReasonCode): Promise<number> {
  const row = await db
    .selectFrom('answerability_checks')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('at', '>=', since)
    .where('reasons', 'like', `%"code":"${code}"%`)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Not-answerable checks whose trace has an output decision that was allowed; newest first. */
export function answeredAnyway(db: Db, since: string, limit: number): Promise<Array<Pick<AnswerabilityCheckRow, 'trace_id' | 'agent' | 'at' | 'reasons'>>> {
  return db
    .selectFrom('answerability_checks as c')
    .select(['c.trace_id', 'c.agent', 'c.at', 'c.reasons'])
    .where('c.at', '>=', since)
    .where('c.outcome', '=', 'not_answerable')
    .where('c.trace_id', 'is not', null)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('traces as t')
          .select('t.id')
          .whereRef('t.trace_id', '=', 'c.trace_id')
          .where('t.surface', '=', 'output')
          .where('t.verdict', '=', 'allow'),
      ),
    )
    .orderBy('c.at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(limit)
    .execute();
}
