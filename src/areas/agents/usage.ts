// Per-agent call counts that hold across every gateway process sharing the database: one atomic
// upsert per counted call, used only for agents that have a limit.
import { sql } from 'kysely';
import type { UsageCounter } from '../../engine/pipeline/runs.js';
import type { Store } from '../../infra/store/db.js';

export class DatabaseUsageCounter implements UsageCounter {
  constructor(private readonly store: Store) {}

  async increment(agent: string, window: string): Promise<number> {
    const row = await this.store.db
      .insertInto('agent_usage')
      .values({ agent, window, calls: 1, cost_usd: 0 })
      .onConflict((conflict) => conflict.columns(['agent', 'window']).doUpdateSet({ calls: sql`agent_usage.calls + 1` }))
      .returning('calls')
      .executeTakeFirstOrThrow();
    return Number(row.calls);
  }
}
