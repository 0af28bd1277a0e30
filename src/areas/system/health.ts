// Health: liveness checks (the database) and the list of what is currently unchecked, so that an
// operator sees coverage gaps rather than a green light that hides them. Areas register both.
import type { Store } from '../../infra/store/db.js';

export interface CheckResult {
  name: string;
  status: 'ok' | 'down';
  latency_ms: number;
  detail: string;
}

export interface Gap {
  what: string;
  why: string;
}

/** Repeated liveness probes within this window share one database round trip. */
const CHECK_CACHE_MS = 1000;

export class HealthRegistry {
  private readonly started = Date.now();
  private readonly gapSources: Array<() => Gap[]> = [];
  private lastDatabase: { at: number; result: Promise<CheckResult>; settled?: CheckResult } | undefined;

  constructor(private readonly store: Store) {}

  addGaps(source: () => Gap[]): void {
    this.gapSources.push(source);
  }

  uptimeSeconds(): number {
    return Math.round((Date.now() - this.started) / 100) / 10;
  }

  /** The last database check when it is recent and finished; undefined otherwise. */
  recentDatabase(): CheckResult | undefined {
    const last = this.lastDatabase;
    return last?.settled !== undefined && Date.now() - last.at < CHECK_CACHE_MS ? last.settled : undefined;
  }

  async database(): Promise<CheckResult> {
    const now = Date.now();
    if (this.lastDatabase !== undefined && now - this.lastDatabase.at < CHECK_CACHE_MS) return this.lastDatabase.result;
    const result = this.store
      .ping()
      .then((latency): CheckResult => ({
        name: 'database',
        status: 'ok',
        latency_ms: Math.round(latency * 1000) / 1000,
        detail: this.store.dialect,
      }))
      .catch((error: unknown): CheckResult => ({
        name: 'database',
        status: 'down',
        latency_ms: 0,
        detail: `${this.store.dialect}: ${(error as Error).message}`,
      }));
    const entry: { at: number; result: Promise<CheckResult>; settled?: CheckResult } = { at: now, result };
    this.lastDatabase = entry;
    void result.then((settled) => (entry.settled = settled));
    return result;
  }

  gaps(): Gap[] {
    return this.gapSources.flatMap((source) => source());
  }
}
