// SQL of model usage: one atomic upsert per proxied call into (agent, model, day), the agent's
// totals for a day, the reservation of a call under a daily call budget or of its worst-case cost
// under a daily cost budget, and the rows of GET /api/usage.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, ModelUsageTable } from '../../infra/store/tables.js';

type Db = Kysely<Database>;

export interface UsageDelta {
  agent: string;
  model: string;
  day: string;
  calls: number;
  blocked: number;
  unpriced: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

/** Adds calls into the row of their agent, model and day; every process adds into the same row, so the sum is exact. */
export async function addCalls(db: Db | Transaction<Database>, delta: UsageDelta): Promise<void> {
  await db
    .insertInto('model_usage')
    .values({
      agent: delta.agent,
      model: delta.model,
      day: delta.day,
      calls: delta.calls,
      blocked: delta.blocked,
      unpriced: delta.unpriced,
      prompt_tokens: delta.promptTokens,
      completion_tokens: delta.completionTokens,
      cost_usd: delta.costUsd,
    })
    .onConflict((conflict) =>
      conflict.columns(['agent', 'model', 'day']).doUpdateSet({
        calls: sql`model_usage.calls + ${delta.calls}`,
        blocked: sql`model_usage.blocked + ${delta.blocked}`,
        unpriced: sql`model_usage.unpriced + ${delta.unpriced}`,
        prompt_tokens: sql`model_usage.prompt_tokens + ${delta.promptTokens}`,
        completion_tokens: sql`model_usage.completion_tokens + ${delta.completionTokens}`,
        cost_usd: sql`model_usage.cost_usd + ${delta.costUsd}`,
      }),
    )
    .execute();
}

/**
 * Writes a batch of deltas: merged per row, then one upsert per row in one transaction, in key
 * order, so that two processes writing overlapping batches wait for each other instead of deadlocking.
 */
export async function addBatch(db: Db, deltas: readonly UsageDelta[]): Promise<void> {
  const merged = new Map<string, UsageDelta>();
  for (const delta of deltas) {
    const key = JSON.stringify([delta.agent, delta.model, delta.day]);
    const existing = merged.get(key);
    if (existing === undefined) {
      merged.set(key, { ...delta });
      continue;
    }
    existing.calls += delta.calls;
    existing.blocked += delta.blocked;
    existing.unpriced += delta.unpriced;
    existing.promptTokens += delta.promptTokens;
    existing.completionTokens += delta.completionTokens;
    existing.costUsd += delta.costUsd;
  }
  const rows = [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, delta]) => delta);
  await db.transaction().execute(async (trx) => {
    for (const row of rows) await addCalls(trx, row);
  });
}

/** The agent's forwarded calls and cost on a day, over every model. */
export async function dayTotals(db: Db, agent: string, day: string): Promise<{ forwarded: number; costUsd: number }> {
  const row = await db
    .selectFrom('model_usage')
    .select((eb) => [eb.fn.sum<number | string | null>('calls').as('calls'), eb.fn.sum<number | string | null>('blocked').as('blocked'), eb.fn.sum<number | string | null>('cost_usd').as('cost')])
    .where('agent', '=', agent)
    .where('day', '=', day)
    .executeTakeFirst();
  return { forwarded: Number(row?.calls ?? 0) - Number(row?.blocked ?? 0), costUsd: Number(row?.cost ?? 0) };
}

export async function listUsage(db: Db, filter: { agent?: string; model?: string; fromDay: string }): Promise<ModelUsageTable[]> {
  let select = db.selectFrom('model_usage').selectAll().where('day', '>=', filter.fromDay);
  if (filter.agent !== undefined) select = select.where('agent', '=', filter.agent);
  if (filter.model !== undefined) select = select.where('model', '=', filter.model);
  // Bounded: one row per agent, model and day.
  return select.orderBy('day', 'desc').orderBy('agent').orderBy('model').limit(10_000).execute();
}

/**
 * Takes one call of the agent's daily call budget, or answers null when none is left. One
 * statement, so two processes (or two requests) cannot both take the last call: the counter row in
 * `agent_usage` is updated only while under the limit. The day's first reservation starts from the
 * calls `model_usage` already holds (a limit set during the day counts the calls made before it).
 */
export async function reserveCall(db: Db, agent: string, day: string, limit: number): Promise<number | null> {
  const row = await db
    .insertInto('agent_usage')
    .columns(['agent', 'window', 'calls', 'cost_usd'])
    .expression((eb) =>
      eb
        .selectFrom('model_usage')
        .select([
          eb.val(agent).as('agent'),
          eb.val(callWindow(day)).as('window'),
          sql<number>`coalesce(sum(model_usage.calls - model_usage.blocked), 0) + 1`.as('calls'),
          sql<number>`0`.as('cost_usd'),
        ])
        // A WHERE clause also keeps SQLite from reading ON CONFLICT as part of the SELECT.
        .where('model_usage.agent', '=', agent)
        .where('model_usage.day', '=', day),
    )
    .onConflict((conflict) =>
      conflict
        .columns(['agent', 'window'])
        .doUpdateSet({ calls: sql`agent_usage.calls + 1` })
        .where('agent_usage.calls', '<', limit),
    )
    .returning('calls')
    .executeTakeFirst();
  if (row === undefined) return null;
  const calls = Number(row.calls);
  return calls <= limit ? calls : null;
}

/** The agent_usage window of daily model-call budgets (hourly tool-call windows look like `2026-11-21T17`). */
export const callWindow = (day: string): string => `model-calls:${day}`;

/** The agent_usage window of daily cost budgets: its cost_usd is the day's cost spent plus the cost reserved by calls in flight. */
export const costWindow = (day: string): string => `model-cost:${day}`;

/**
 * Reserves `amount` USD of the agent's daily cost budget for one call, or answers false when the
 * day's charged cost (spent plus reserved) has reached the limit. One statement on one counter row,
 * so concurrent requests and processes take turns: each sees the reservations made before it. The
 * row starts from (and never falls below) the cost `model_usage` holds for the day, so that calls
 * made before the limit was set, or counted while this row was not kept, still count.
 */
export async function reserveCost(db: Db, agent: string, day: string, amount: number, limit: number): Promise<boolean> {
  const row = await db
    .insertInto('agent_usage')
    .columns(['agent', 'window', 'calls', 'cost_usd'])
    .expression((eb) =>
      eb
        .selectFrom(
          eb
            .selectFrom('model_usage')
            .select(sql<number>`coalesce(sum(model_usage.cost_usd), 0)`.as('spent'))
            .where('model_usage.agent', '=', agent)
            .where('model_usage.day', '=', day)
            .as('day_cost'),
        )
        .select([eb.val(agent).as('agent'), eb.val(costWindow(day)).as('window'), sql<number>`0`.as('calls'), sql<number>`day_cost.spent + ${amount}`.as('cost_usd')])
        // Also keeps SQLite from reading ON CONFLICT as part of the SELECT.
        .where('day_cost.spent', '<', limit),
    )
    .onConflict((conflict) =>
      conflict
        .columns(['agent', 'window'])
        .doUpdateSet({
          // excluded.cost_usd is the recorded cost plus this amount: the larger of the two ways to count.
          cost_usd: sql`CASE WHEN agent_usage.cost_usd + ${amount} > excluded.cost_usd THEN agent_usage.cost_usd + ${amount} ELSE excluded.cost_usd END`,
        })
        .where('agent_usage.cost_usd', '<', limit),
    )
    .returning('cost_usd')
    .executeTakeFirst();
  return row !== undefined;
}

/** Moves the agent's charged cost for a day by `delta` USD: a settled call's real cost minus its reservation, or a released reservation. */
export async function adjustCost(db: Db, agent: string, day: string, delta: number): Promise<void> {
  if (delta === 0) return;
  await db
    .updateTable('agent_usage')
    .set({ cost_usd: sql`agent_usage.cost_usd + ${delta}` })
    .where('agent', '=', agent)
    .where('window', '=', costWindow(day))
    .execute();
}

/** The agent's charged cost for a day (spent plus reserved), or null before its first reservation. */
export async function chargedCost(db: Db, agent: string, day: string): Promise<number | null> {
  const row = await db.selectFrom('agent_usage').select('cost_usd').where('agent', '=', agent).where('window', '=', costWindow(day)).executeTakeFirst();
  return row === undefined ? null : Number(row.cost_usd);
}
