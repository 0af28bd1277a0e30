// GET /api/detectors and POST /api/detectors/{key}: which detectors exist, run and why not.
// Operator switches are stored in the database (audited) and announced on the change bus; every
// process reads them back on that message and, as a fallback, every few seconds, so several
// gateway processes agree on the enabled set.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import type { ChangePublisher } from '../../infra/store/notify.js';
import type { DetectorRegistry } from '../../engine/detectors/registry.js';
import type { DetectorView } from './schemas.js';
import { listDetectorSettings, upsertDetectorSetting } from './store.js';

export class DetectorService {
  /** Whether warmUp() ran (main.ts runs it before listening); readiness waits for it. */
  warmedUp = false;

  constructor(
    private readonly registry: DetectorRegistry,
    private readonly configured: readonly string[],
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly changes?: ChangePublisher,
  ) {}

  /** Lets every enabled detector compile its patterns before traffic arrives; returns the milliseconds spent. */
  warmUp(): number {
    const started = performance.now();
    for (const detector of this.registry.detectors) if (this.registry.isEnabled(detector.key)) detector.warmUp?.();
    this.warmedUp = true;
    return performance.now() - started;
  }

  list(): DetectorView[] {
    return this.registry.detectors.map((detector) => {
      const availability = this.registry.availability(detector);
      const stats = this.registry.stats.get(detector.key);
      const runs = stats?.runs ?? 0;
      return {
        key: detector.key,
        surfaces: [...detector.surfaces],
        entity_types: [...detector.entityTypes],
        cost_rank: detector.costRank,
        timeout_ms: detector.timeoutMs ?? null,
        opt_in: detector.optIn === true,
        available: availability.available,
        reason: availability.available ? null : (availability.reason ?? 'unavailable'),
        enabled: this.registry.isEnabled(detector.key),
        stats: {
          runs,
          ok: stats?.ok ?? 0,
          timeout: stats?.timeout ?? 0,
          skipped_budget: stats?.skipped_budget ?? 0,
          error: stats?.error ?? 0,
          matched: stats?.matched ?? 0,
          avg_ms: runs === 0 ? 0 : Math.round(((stats?.total_ms ?? 0) / runs) * 1000) / 1000,
          max_ms: stats?.max_ms ?? 0,
        },
      };
    });
  }

  async setEnabled(caller: Principal, key: string, enabled: boolean, reason: string | undefined): Promise<DetectorView> {
    const detector = this.registry.get(key);
    if (detector === undefined) throw notFound('detector', key);
    const availability = this.registry.availability(detector);
    if (enabled && !availability.available) {
      throw problem('refused', `detector ${key} cannot run: ${availability.reason ?? 'unavailable'}`);
    }
    const at = this.clock.now().toISOString();
    await this.audit.transact(async (trx, append) => {
      await upsertDetectorSetting(trx, { key, enabled: enabled ? 1 : 0, reason: reason ?? null, updated_at: at });
      await append({ actor: actorOf(caller), action: 'detector.switch', target: key, detail: { enabled, reason: reason ?? null } });
    });
    this.registry.setEnabled(key, enabled);
    this.changes?.publish('detectors');
    return this.list().find((view) => view.key === key) as DetectorView;
  }

  /** Applies the switches stored by any process over the configured list. */
  async sync(): Promise<void> {
    const rows = await listDetectorSettings(this.store.db);
    const enabled = new Set(this.configured);
    for (const row of rows) {
      if (Number(row.enabled) === 1) enabled.add(row.key);
      else enabled.delete(row.key);
    }
    this.registry.setEnabledKeys(enabled);
  }
}
