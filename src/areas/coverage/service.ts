// GET /api/coverage/threats: the threat catalogue (catalogue/threats.yaml) against what this
// deployment runs now. A threat is covered when a mapped rule is enforcing somewhere and, if the
// threat needs detection, a mapped detector is enabled and available; observed_only when the rules
// are only observing; uncovered when nothing running addresses it. The fired counts come from the
// metrics report jobs (reader threads), so a long window does not hold the main thread.
import { readFileSync } from 'node:fs';
import Value from 'typebox/value';
import { parse } from 'yaml';
import type { Clock } from '../../infra/lib/clock.js';
import type { Reports } from '../../infra/store/reader.js';
import type { DetectorRegistry } from '../../engine/detectors/registry.js';
import type { PolicyRegistry } from '../../engine/policy/registry.js';
import type { METRICS_REPORT_JOBS } from '../metrics/report-jobs.js';
import { COVERAGE_STATUSES, ThreatsFile, type CoverageQuery, type CoverageStatus, type CoverageView, type Threat, type ThreatCoverage } from './schemas.js';

const DAY_MS = 86_400_000;
export const DEFAULT_WINDOW_DAYS = 30;

export class ThreatCatalogueError extends Error {}

/** Reads and checks the threat catalogue; a malformed file fails at start, not at request time. */
export function loadThreats(file: string): Threat[] {
  const value: unknown = parse(readFileSync(file, 'utf8'));
  const errors = [...Value.Errors(ThreatsFile, value)].slice(0, 5).map((error) => `${error.instancePath || '/'} ${error.message}`);
  if (errors.length > 0) throw new ThreatCatalogueError(`${file}: ${errors.join('; ')}`);
  const threats = (value as ThreatsFile).threats;
  const ids = new Set<string>();
  for (const threat of threats) {
    if (ids.has(threat.id)) throw new ThreatCatalogueError(`${file}: threat ${threat.id} appears twice`);
    ids.add(threat.id);
  }
  return threats;
}

export interface CoverageServiceDeps {
  threats: readonly Threat[];
  detectors: DetectorRegistry;
  policies: PolicyRegistry;
  reports: Reports<typeof METRICS_REPORT_JOBS>;
  clock: Clock;
}

export class CoverageService {
  constructor(private readonly deps: CoverageServiceDeps) {}

  async threats(query: CoverageQuery): Promise<CoverageView> {
    const { reports, clock } = this.deps;
    const windowDays = query.window_days ?? DEFAULT_WINDOW_DAYS;
    const range = `${windowDays}d`;
    const now = clock.now();
    const [rules, entities] = await Promise.all([reports.run('metrics.rules', { range }), reports.run('metrics.breakdown', { dim: 'entity', range })]);
    const fired = new Map(rules.items.map((item) => [item.rule_id, item]));
    const bound = this.boundRules();
    const items = this.deps.threats.map((threat) => this.assess(threat, bound, fired, entities.items));
    const rank = (status: CoverageStatus) => COVERAGE_STATUSES.indexOf(status);
    // Stable sort: within a status, the catalogue's order.
    items.sort((a, b) => rank(a.status) - rank(b.status));
    const summary = { uncovered: 0, observed_only: 0, covered: 0 };
    for (const item of items) summary[item.status] += 1;
    return {
      window_days: windowDays,
      from: new Date(now.getTime() - windowDays * DAY_MS).toISOString(),
      to: now.toISOString(),
      sampled: rules.sampled || entities.sampled,
      summary,
      items,
    };
  }

  /** Every rule id held by a bound policy, with where and in which mode. */
  private boundRules(): Map<string, ThreatCoverage['rules'][number]['bound']> {
    const out = new Map<string, ThreatCoverage['rules'][number]['bound']>();
    for (const policy of this.deps.policies.list()) {
      for (const rule of policy.pack.rules) {
        const list = out.get(rule.id) ?? [];
        // A rule's own mode overrides the policy's (src/engine/policy/schema.ts).
        list.push({ policy: policy.key, level: policy.level, scope_id: policy.scopeId, mode: rule.mode ?? policy.mode, enabled: rule.enabled !== false });
        out.set(rule.id, list);
      }
    }
    return out;
  }

  private assess(
    threat: Threat,
    bound: Map<string, ThreatCoverage['rules'][number]['bound']>,
    fired: Map<string, { fired: number; last_fired_at: string }>,
    entities: ReadonlyArray<{ value: string | null; count: number }>,
  ): ThreatCoverage {
    const registry = this.deps.detectors;
    const detectors = threat.detectors.map((key) => {
      const detector = registry.get(key);
      if (detector === undefined) return { key, known: false, enabled: false, available: false, reason: 'not a detector of this build' };
      const availability = registry.availability(detector);
      return {
        key,
        known: true,
        enabled: registry.isEnabled(key),
        available: availability.available,
        reason: availability.available ? null : (availability.reason ?? 'unavailable'),
      };
    });
    const rules = threat.rules.map((ruleId) => ({
      rule_id: ruleId,
      bound: bound.get(ruleId) ?? [],
      fired: fired.get(ruleId)?.fired ?? 0,
      last_fired_at: fired.get(ruleId)?.last_fired_at ?? null,
    }));
    const live = rules.flatMap((rule) => rule.bound.filter((where) => where.enabled));
    const enforcing = live.some((where) => where.mode === 'enforce');
    const detecting = threat.detectors.length === 0 || detectors.some((detector) => detector.enabled && detector.available);
    const reasons: string[] = [];
    if (!detecting) reasons.push(`no mapped detector is enabled and available (${threat.detectors.join(', ')})`);
    if (live.length === 0) reasons.push('no mapped rule is bound and enabled');
    else if (!enforcing) reasons.push(`mapped rules only observe (${[...new Set(live.map((where) => where.policy))].join(', ')})`);
    else {
      const policiesIn = (mode: string) => [...new Set(live.filter((where) => where.mode === mode).map((where) => where.policy))].join(', ');
      reasons.push(`enforced by ${policiesIn('enforce')}`);
      // Covered by one enforcing rule may still leave others only observing: say which.
      if (live.some((where) => where.mode === 'observe')) reasons.push(`other mapped rules only observe (${policiesIn('observe')})`);
    }
    const status: CoverageStatus = !detecting || live.length === 0 ? 'uncovered' : enforcing ? 'covered' : 'observed_only';
    return {
      id: threat.id,
      framework: threat.framework,
      title: threat.title,
      summary: threat.summary,
      scope: threat.scope,
      status,
      reasons,
      detectors,
      entity_prefixes: threat.entity_prefixes.map((prefix) => ({
        prefix,
        seen: entities.reduce((sum, item) => sum + (item.value?.startsWith(prefix) === true ? item.count : 0), 0),
      })),
      rules,
      conditions: [...threat.conditions],
      fired: rules.reduce((sum, rule) => sum + rule.fired, 0),
      red_team: { status: 'not_run', detail: 'no red-team runs are recorded by this gateway yet' },
    };
  }
}
