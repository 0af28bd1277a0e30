// The suppressions in force, held in memory for the decision pipeline: a suppression made from a
// false-positive label stops the same guardrail_detection finding recurring for its agent (or for
// every agent), without touching the verdict. Hot path: `keep`/`filter` do no I/O and look only
// at the suppressions of the calling agent and the global ones; `sync` reads the database.
import type { Clock } from '../../infra/lib/clock.js';
import type { FindingUpsert } from '../../engine/recording/recorder.js';
import type { Store } from '../../infra/store/db.js';
import { activeSuppressions, type SuppressionRow } from './store.js';

/** What the pipeline knows of the call a finding came from. */
export interface SuppressionContext {
  /** The calling agent as named in the call (registered or not). */
  agent: string;
  /** sha256 of the checked content, as recorded on the trace: what an exact suppression matches. */
  contentSha256: string;
}

interface Compiled {
  id: string;
  /** null: any detector. */
  detector: string | null;
  /** null: any entity type. */
  entity: string | null;
  /** null: any content. */
  sha256: string | null;
  /** Infinity: until deleted. */
  expiresMs: number;
}

const compile = (row: SuppressionRow): Compiled => ({
  id: row.id,
  detector: row.detector_key,
  entity: row.entity_type,
  sha256: row.content_sha256,
  expiresMs: row.expires_at === null ? Number.POSITIVE_INFINITY : Date.parse(row.expires_at),
});

/**
 * @example
 * const suppressions = new SuppressionFilter(store, clock);
 * await suppressions.sync(); // then every second, and after each change in this process
 * const kept = suppressions.filter(findingsFor(context), { agent: call.agent, contentSha256 });
 */
export class SuppressionFilter {
  private byAgent = new Map<string, Compiled[]>();
  private global: Compiled[] = [];

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Reads the suppressions in force and swaps them in at once (a concurrent `keep` sees old or new, never half). */
  async sync(): Promise<void> {
    const rows = await activeSuppressions(this.store.db, this.clock.now().toISOString());
    const byAgent = new Map<string, Compiled[]>();
    const global: Compiled[] = [];
    for (const row of rows) {
      if (row.scope === 'global') global.push(compile(row));
      else if (row.agent !== null) {
        const list = byAgent.get(row.agent);
        if (list === undefined) byAgent.set(row.agent, [compile(row)]);
        else list.push(compile(row));
      }
    }
    this.byAgent = byAgent;
    this.global = global;
  }

  /** How many suppressions are held (for health and tests). */
  get size(): number {
    let count = this.global.length;
    for (const list of this.byAgent.values()) count += list.length;
    return count;
  }

  /** False when a suppression in force covers this finding for this call. Only guardrail_detection findings are ever suppressed. */
  keep(finding: FindingUpsert, context: SuppressionContext): boolean {
    if (finding.type !== 'guardrail_detection') return true;
    const own = this.byAgent.get(context.agent);
    if (own === undefined && this.global.length === 0) return true;
    // raise.ts writes the decisive detection's entity and detector into the evidence.
    const entity = typeof finding.evidence.entity === 'string' ? finding.evidence.entity : null;
    const detector = typeof finding.evidence.detector === 'string' ? finding.evidence.detector : null;
    return !this.covered(own, entity, detector, context.contentSha256) && !this.covered(this.global, entity, detector, context.contentSha256);
  }

  /** Whether one of `list` covers the detection; a plain loop, no closure per call. */
  private covered(list: readonly Compiled[] | undefined, entity: string | null, detector: string | null, sha256: string): boolean {
    if (list === undefined) return false;
    for (const item of list) {
      if (item.entity !== null && item.entity !== entity) continue;
      if (item.detector !== null && item.detector !== detector) continue;
      if (item.sha256 !== null && item.sha256 !== sha256) continue;
      // Expired between two syncs: read the clock only when a suppression with an expiry matches.
      if (item.expiresMs !== Number.POSITIVE_INFINITY && item.expiresMs <= this.clock.now().getTime()) continue;
      return true;
    }
    return false;
  }

  /** The findings `keep` lets through; the same array when none is dropped (no allocation on the common path). */
  filter(findings: FindingUpsert[], context: SuppressionContext): FindingUpsert[] {
    if (findings.length === 0 || (this.global.length === 0 && this.byAgent.size === 0)) return findings;
    let kept: FindingUpsert[] | undefined;
    for (let index = 0; index < findings.length; index++) {
      const finding = findings[index] as FindingUpsert;
      if (this.keep(finding, context)) kept?.push(finding);
      else kept ??= findings.slice(0, index);
    }
    return kept ?? findings;
  }
}
