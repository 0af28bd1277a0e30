// Queries behind GET /api/board. They run in a report reader thread (report-jobs.ts). Plain rows.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/store/tables.js';

type Db = Kysely<Database>;
const n = (value: unknown): number => Number(value ?? 0);

export async function agentsForBoard(db: Db): Promise<Array<{ slug: string; risk_tier: string | null }>> {
  return db.selectFrom('agents').select(['slug', 'risk_tier']).where('status', '!=', 'rejected').orderBy('slug').execute();
}

/** The latest assessment's class per agent; null when the risk_assessments table does not exist. */
export async function latestClasses(db: Db): Promise<Map<string, string> | null> {
  try {
    const rows = await db.selectFrom('risk_assessments').select(['agent', 'eu_ai_act_class', 'assessed_at', 'id']).orderBy('assessed_at').orderBy('id').execute();
    return new Map(rows.map((row) => [row.agent, row.eu_ai_act_class]));
  } catch {
    return null;
  }
}

/** Blocked and held decisions in [from, to). */
export async function verdictCounts(db: Db, from: string, to: string): Promise<{ blocked: number; held: number }> {
  const rows = await db
    .selectFrom('traces')
    .select(['effective_verdict', (eb) => eb.fn.countAll().as('n')])
    .where('at', '>=', from)
    .where('at', '<', to)
    .where('effective_verdict', 'in', ['block', 'escalate'])
    .groupBy('effective_verdict')
    .execute();
  const of = (verdict: string) => n(rows.find((row) => row.effective_verdict === verdict)?.n);
  return { blocked: of('block'), held: of('escalate') };
}

export async function approvalsRequested(db: Db, from: string, to: string): Promise<number> {
  const row = await db.selectFrom('approvals').select((eb) => eb.fn.countAll().as('n')).where('created_at', '>=', from).where('created_at', '<', to).executeTakeFirst();
  return n(row?.n);
}

/** Open findings per severity, counted by age since first seen: under a day, 1 to 7 days, over 7 days. */
export async function openFindingAges(db: Db, dayAgo: string, weekAgo: string): Promise<Array<{ severity: string; under_1d: number; days_1_to_7: number; over_7d: number }>> {
  const rows = await db
    .selectFrom('findings')
    .select((eb) => [
      'severity',
      eb.fn.sum<number>(eb.case().when('at', '>', dayAgo).then(1).else(0).end()).as('under_1d'),
      eb.fn.sum<number>(eb.case().when(eb.and([eb('at', '<=', dayAgo), eb('at', '>', weekAgo)])).then(1).else(0).end()).as('days_1_to_7'),
      eb.fn.sum<number>(eb.case().when('at', '<=', weekAgo).then(1).else(0).end()).as('over_7d'),
    ])
    .where('status', '=', 'open')
    .groupBy('severity')
    .execute();
  return rows.map((row) => ({ severity: row.severity, under_1d: n(row.under_1d), days_1_to_7: n(row.days_1_to_7), over_7d: n(row.over_7d) }));
}

export async function findingsOpened(db: Db, from: string, to: string): Promise<number> {
  const row = await db.selectFrom('findings').select((eb) => eb.fn.countAll().as('n')).where('at', '>=', from).where('at', '<', to).executeTakeFirst();
  return n(row?.n);
}
