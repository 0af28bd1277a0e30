// Health: liveness checks (the database) and the list of what is currently unchecked, so that an
// operator sees coverage gaps rather than a green light that hides them. Areas register both.
// Readiness (GET /ready, for a load balancer) is more: the database answers, its schema is this
// gateway's, the detectors are warmed up, what the composition root registers (the change bus,
// Redis) is reachable, and the process is not shutting down.
import type { Store } from '../../infra/store/db.js';
import { LATEST_MIGRATION } from '../../infra/store/migrations/index.js';

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

/** A readiness check: resolves with a detail when ready, throws (or rejects) saying why not. */
export type ReadinessProbe = () => Promise<string> | string;

export interface ReadinessCheck {
  name: string;
  status: 'ok' | 'down';
  detail: string;
}

/** Repeated liveness probes within this window share one database round trip. */
const CHECK_CACHE_MS = 1000;
/** A readiness check that takes longer fails: a load balancer's probe must not hang. */
const READINESS_TIMEOUT_MS = 2000;
const MAX_DETAIL_CHARS = 300;

export class HealthRegistry {
  private readonly started = Date.now();
  private readonly gapSources: Array<() => Gap[]> = [];
  private lastDatabase: { at: number; result: Promise<CheckResult>; settled?: CheckResult } | undefined;
  private readonly probes: Array<{ name: string; probe: ReadinessProbe }> = [];
  private drainingSince: number | null = null;

  constructor(private readonly store: Store) {}

  /** A check GET /ready runs besides the database and the drain. */
  addReadiness(name: string, probe: ReadinessProbe): void {
    this.probes.push({ name, probe });
  }

  /** SIGTERM arrived: GET /ready answers 503 from now on, so a load balancer stops sending here. */
  startDraining(): void {
    this.drainingSince ??= Date.now();
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  async readiness(): Promise<{ ready: boolean; checks: ReadinessCheck[] }> {
    const database = this.database().then(({ status, detail }): ReadinessCheck => ({ name: 'database', status, detail }));
    const checks = await Promise.all([database, ...this.probes.map(({ name, probe }) => runProbe(name, probe))]);
    checks.push({ name: 'draining', status: this.draining ? 'down' : 'ok', detail: this.draining ? 'shutting down: finishing the requests in flight' : 'accepting requests' });
    return { ready: checks.every((check) => check.status === 'ok'), checks };
  }

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

async function runProbe(name: string, probe: ReadinessProbe): Promise<ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS);
  });
  try {
    const detail = await Promise.race([Promise.resolve().then(probe), timeout]);
    return { name, status: 'ok', detail: detail.slice(0, MAX_DETAIL_CHARS) };
  } catch (error) {
    return { name, status: 'down', detail: (error instanceof Error ? error.message : String(error)).slice(0, MAX_DETAIL_CHARS) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Readiness of the schema: the database has this gateway's latest migration (or a later one, from
 * a newer gateway sharing it). Once it has, it is not asked again: migrations are never undone.
 */
export function migrationsProbe(store: Store): ReadinessProbe {
  let applied = false;
  return async () => {
    if (!applied) {
      const latest = await store.latestMigration();
      if (latest === 'none' || latest < LATEST_MIGRATION) throw new Error(`the database is at migration ${latest}; this gateway needs ${LATEST_MIGRATION}`);
      applied = true;
    }
    return LATEST_MIGRATION;
  };
}
