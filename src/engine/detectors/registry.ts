// The detector registry: every registered detector, which are enabled (the `enabled_detectors`
// setting, then operator switches stored in the database), which are available, and their run
// statistics. Hot path: `forSurface()` answers from a per-surface list rebuilt only on change.
import type { Availability, Detector, DetectorRun, Surface } from './types.js';

export interface DetectorStats {
  runs: number;
  ok: number;
  timeout: number;
  skipped_budget: number;
  error: number;
  matched: number;
  total_ms: number;
  max_ms: number;
}

/** Why a restricted-licence detector cannot run while the operator has not accepted such licences. */
export const RESTRICTED_LICENCE_REASON =
  'its model carries a restricted licence: set accept_restricted_model_licences (PARAPET_ACCEPT_RESTRICTED_MODEL_LICENCES) to true to allow it';

export interface DetectorRegistryOptions {
  /** The `accept_restricted_model_licences` setting: may detectors with restricted-licence models run. */
  acceptRestrictedModelLicences?: boolean;
}

const emptyStats = (): DetectorStats => ({ runs: 0, ok: 0, timeout: 0, skipped_budget: 0, error: 0, matched: 0, total_ms: 0, max_ms: 0 });

export class DetectorRegistry {
  private readonly byKey: Map<string, Detector>;
  private enabled: Set<string>;
  private readonly bySurface = new Map<Surface, Detector[]>();
  readonly stats = new Map<string, DetectorStats>();

  constructor(
    readonly detectors: readonly Detector[],
    enabledKeys: readonly string[],
    private readonly options: DetectorRegistryOptions = {},
  ) {
    this.byKey = new Map(detectors.map((detector) => [detector.key, detector]));
    this.enabled = new Set(enabledKeys);
    for (const detector of detectors) this.stats.set(detector.key, emptyStats());
  }

  get(key: string): Detector | undefined {
    return this.byKey.get(key);
  }

  /** Whether a detector can run here: its own availability, after the licence setting. */
  availability(detector: Detector): Availability {
    if (detector.restrictedLicence === true && this.options.acceptRestrictedModelLicences !== true) {
      return { available: false, reason: RESTRICTED_LICENCE_REASON };
    }
    return detector.available();
  }

  isEnabled(key: string): boolean {
    return this.enabled.has(key);
  }

  /** Switches a detector on or off in this process (the caller persists and audits it). */
  setEnabled(key: string, enabled: boolean): void {
    if (enabled) this.enabled.add(key);
    else this.enabled.delete(key);
    this.bySurface.clear();
  }

  /** Replaces the enabled set, e.g. after reading the switches other processes stored. */
  setEnabledKeys(keys: Iterable<string>): void {
    const next = new Set(keys);
    if (next.size === this.enabled.size && [...next].every((key) => this.enabled.has(key))) return;
    this.enabled = next;
    this.bySurface.clear();
  }

  enabledKeys(): string[] {
    return [...this.enabled].sort();
  }

  /** The detectors a check on this surface runs: enabled, available and serving the surface. */
  forSurface(surface: Surface): readonly Detector[] {
    let list = this.bySurface.get(surface);
    if (list === undefined) {
      list = this.detectors.filter(
        (detector) => this.enabled.has(detector.key) && detector.surfaces.includes(surface) && this.availability(detector).available,
      );
      this.bySurface.set(surface, list);
    }
    return list;
  }

  /** Keys that are enabled but cannot run, with the reason (health reports them as unchecked). */
  unavailableEnabled(): Array<{ key: string; reason: string }> {
    return this.detectors
      .filter((detector) => this.enabled.has(detector.key))
      .map((detector) => ({ key: detector.key, availability: this.availability(detector) }))
      .filter(({ availability }) => !availability.available)
      .map(({ key, availability }) => ({ key, reason: availability.reason ?? 'unavailable' }));
  }

  note(runs: readonly DetectorRun[]): void {
    for (const run of runs) {
      const stats = this.stats.get(run.key);
      if (stats === undefined) continue;
      stats.runs += 1;
      stats[run.status] += 1;
      if (run.matched) stats.matched += 1;
      stats.total_ms += run.ms;
      if (run.ms > stats.max_ms) stats.max_ms = run.ms;
    }
  }
}
