// Per-agent call counts that hold across every gateway process sharing the database: one atomic
// upsert per counted call, used only for agents that have a limit.
import type { UsageCounter } from '../../engine/pipeline/runs.js';
import type { Store } from '../../infra/store/db.js';
import { incrementUsage } from './store.js';

export class DatabaseUsageCounter implements UsageCounter {
  constructor(private readonly store: Store) {}

  // Not async: the store's promise is returned as is, so a counted call costs one await, as before.
  increment(agent: string, window: string): Promise<number> {
    return incrementUsage(this.store.db, agent, window);
  }
}
