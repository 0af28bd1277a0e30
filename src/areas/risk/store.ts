// SQL of risk: agents and what traffic showed of them, assessments (every one kept) and open
// critical findings per agent.
import type { Kysely, Transaction } from 'kysely';
import { readJsonStrings } from '../../infra/store/json-columns.js';
import type { AgentRow, Database, RiskAssessmentRow } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Bounds on what one classification reads of traffic: distinct tools and distinct entity lists. */
const MAX_DISTINCT = 1000;

export async function findAgent(db: Db, slug: string): Promise<AgentRow | undefined> {
  return db.selectFrom('agents').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** Registered (approved) agents, by slug. */
export async function registeredAgents(db: Db): Promise<AgentRow[]> {
  return db.selectFrom('agents').selectAll().where('status', '=', 'approved').orderBy('slug').execute();
}

export interface Observed {
  decisions: number;
  blocked_calls: number;
  tools_used: string[];
  entity_types: string[];
}

/** What the decision records of `agent` since `since` show: tools, entity types, blocked calls. */
export async function observed(db: Db, agent: string, since: string): Promise<Observed> {
  const base = db.selectFrom('traces').where('agent', '=', agent).where('at', '>=', since);
  const [counts, tools, entities] = await Promise.all([
    base
      .select((eb) => [
        eb.fn.countAll<number | string>().as('n'),
        eb.fn.sum<number | string | null>(eb.case().when('effective_verdict', '=', 'block').then(1).else(0).end()).as('blocked'),
      ])
      .executeTakeFirstOrThrow(),
    base.select('tool').distinct().where('tool', 'is not', null).orderBy('tool').limit(MAX_DISTINCT).execute(),
    base.select('entities').distinct().where('entities', '!=', '[]').orderBy('entities').limit(MAX_DISTINCT).execute(),
  ]);
  const types = new Set<string>();
  for (const row of entities) for (const type of readJsonStrings(row.entities)) types.add(type);
  return {
    decisions: Number(counts.n),
    blocked_calls: Number(counts.blocked ?? 0),
    tools_used: tools.map((row) => row.tool).filter((tool): tool is string => tool !== null),
    entity_types: [...types].sort(),
  };
}

export async function insertAssessment(db: Db, row: RiskAssessmentRow): Promise<void> {
  await db.insertInto('risk_assessments').values(row).execute();
}

export async function countAssessments(db: Db, agent: string): Promise<number> {
  const row = await db
    .selectFrom('risk_assessments')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('agent', '=', agent)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The assessment in force per agent: the latest by assessed_at, then id. */
export async function latestAssessments(db: Db): Promise<Map<string, RiskAssessmentRow>> {
  const rows = await db
    .selectFrom('risk_assessments as a')
    .selectAll('a')
    // No later assessment of the same agent (a tie on assessed_at goes to the larger id).
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('risk_assessments as b')
            .select('b.id')
            .whereRef('b.agent', '=', 'a.agent')
            .where((inner) =>
              inner.or([
                inner('b.assessed_at', '>', inner.ref('a.assessed_at')),
                inner.and([inner('b.assessed_at', '=', inner.ref('a.assessed_at')), inner('b.id', '>', inner.ref('a.id'))]),
              ]),
            ),
        ),
      ),
    )
    .execute();
  return new Map(rows.map((row) => [row.agent, row]));
}

/** Open findings of severity critical, per agent. */
export async function openCriticalFindings(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('findings')
    .select((eb) => ['agent', eb.fn.countAll<number | string>().as('n')])
    .where('status', '=', 'open')
    .where('severity', '=', 'critical')
    .where('agent', 'is not', null)
    .groupBy('agent')
    .execute();
  return new Map(rows.map((row) => [row.agent ?? '', Number(row.n)]));
}
