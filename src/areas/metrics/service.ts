// Metrics over recorded decisions (spec 02 "/api/metrics/*"): counts are computed by the database;
// the JSON arrays kept in text columns (rules, entities, detector runs) are parsed here, from at
// most MAX_ROWS of the newest matching decisions, and the answer says `sampled: true` when the
// range held more.
import { problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { ReadStore } from '../../infra/store/reader.js';
import { DEFAULT_BREAKDOWN_DIM, type Breakdown, type BreakdownQuery, type ErrorsMetrics, type MetricsQuery, type RuleMetrics, type Summary } from './schemas.js';
import * as traces from '../traces/store.js';
import type { TraceFilter } from '../traces/store.js';
import { readJsonObject } from '../../infra/store/json-columns.js';

/** The most decisions a metric that parses JSON columns reads for one answer. */
export const MAX_ROWS = 100_000;
const PAGE_ROWS = 5_000;
const MAX_VALUES = 500;
const MAX_BREACHES = 100;
const HOUR_MS = 3_600_000;

/** `24h` or `7d` → milliseconds; at most a year, so that a range never scans the whole history by accident. */
export function rangeMs(range: string): number {
  const match = /^([1-9][0-9]{0,3})([hd])$/.exec(range);
  const ms = match === null ? Number.NaN : Number(match[1]) * (match[2] === 'd' ? 24 : 1) * HOUR_MS;
  if (!(ms <= 365 * 24 * HOUR_MS)) {
    throw problem('invalid-request', `range ${range} is not hours (1h to 8760h) or days (1d to 365d)`, [
      { field: '/querystring/range', message: 'like 1h, 24h, 7d or 30d; at most a year' },
    ]);
  }
  return ms;
}

interface Window {
  range: string;
  from: string;
  to: string;
  agent: string | null;
  environment: string | null;
}

const ratio = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);

function parseArray(text: string): unknown[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

export class MetricsService {
  constructor(
    private readonly store: ReadStore,
    private readonly clock: Clock,
  ) {}

  private window(query: MetricsQuery): { window: Window; filter: TraceFilter } {
    const range = query.range ?? '24h';
    const now = this.clock.now();
    const from = new Date(now.getTime() - rangeMs(range)).toISOString();
    const to = now.toISOString();
    const filter: TraceFilter = {
      from,
      to,
      ...(query.agent !== undefined ? { agent: query.agent } : {}),
      ...(query.environment !== undefined ? { environment: query.environment } : {}),
    };
    return { window: { range, from, to, agent: query.agent ?? null, environment: query.environment ?? null }, filter };
  }

  async summary(query: MetricsQuery): Promise<Summary> {
    const { db, dialect } = this.store;
    const { window, filter } = this.window(query);
    const byVerdict = { allow: 0, block: 0, escalate: 0 };
    const byEffective = { allow: 0, block: 0, escalate: 0 };
    let decisions = 0;
    for (const row of await traces.verdictCounts(db, dialect, filter)) {
      decisions += row.n;
      if (row.verdict in byVerdict) byVerdict[row.verdict as keyof typeof byVerdict] += row.n;
      if (row.effective_verdict in byEffective) byEffective[row.effective_verdict as keyof typeof byEffective] += row.n;
    }
    const [totals, [p50, p95, p99], findingsOpened] = await Promise.all([
      traces.totals(db, dialect, filter),
      traces.latencyPercentiles(db, dialect, filter, decisions, [0.5, 0.95, 0.99]),
      traces.findingsOpened(db, filter),
    ]);
    return {
      ...window,
      decisions,
      by_verdict: byVerdict,
      by_effective_verdict: byEffective,
      block_rate: ratio(byVerdict.block, decisions),
      escalate_rate: ratio(byVerdict.escalate, decisions),
      latency_ms: { p50: p50 ?? null, p95: p95 ?? null, p99: p99 ?? null },
      degraded: totals.degraded,
      distinct_agents: totals.agents,
      findings_opened: findingsOpened,
    };
  }

  async errors(query: MetricsQuery): Promise<ErrorsMetrics> {
    const { db, dialect } = this.store;
    const { window, filter } = this.window(query);
    const decisions = (await traces.verdictCounts(db, dialect, filter)).reduce((sum, row) => sum + row.n, 0);
    const counts = new Map<string, { detector: string; status: string; count: number }>();
    let degraded = 0;
    const scan = await traces.scanJsonColumn(db, dialect, filter, 'detectors', { max: MAX_ROWS, pageSize: PAGE_ROWS, nonEmpty: 'degraded' }, (rows) => {
      for (const row of rows) {
        degraded += 1;
        for (const run of parseArray(row.json)) {
          const { key, status } = (run ?? {}) as { key?: unknown; status?: unknown };
          if (typeof key !== 'string' || typeof status !== 'string' || status === 'ok') continue;
          const id = `${key}\u0000${status}`;
          const entry = counts.get(id) ?? { detector: key, status, count: 0 };
          entry.count += 1;
          counts.set(id, entry);
        }
      }
    });
    // The exact count when the scan was cut short.
    if (scan.sampled) degraded = (await traces.totals(db, dialect, filter)).degraded;
    const breaches = await traces.budgetBreaches(db, filter, MAX_BREACHES);
    return {
      ...window,
      decisions,
      degraded_decisions: degraded,
      degraded_rate: ratio(degraded, decisions),
      by_detector: [...counts.values()].sort((a, b) => b.count - a.count || a.detector.localeCompare(b.detector) || a.status.localeCompare(b.status)),
      budget_breach: {
        findings: breaches.total,
        items: breaches.rows.map((row) => {
          const evidence = readJsonObject(row.evidence);
          return {
            id: row.id,
            subject: row.subject,
            detector: typeof evidence.detector === 'string' ? evidence.detector : null,
            detector_status: typeof evidence.status === 'string' ? evidence.status : null,
            severity: row.severity,
            status: row.status,
            occurrences: Number(row.occurrences),
            last_seen_at: row.last_seen_at,
          };
        }),
      },
      sampled: scan.sampled,
    };
  }

  async rules(query: MetricsQuery): Promise<RuleMetrics> {
    const { db, dialect } = this.store;
    const { window, filter } = this.window(query);
    const rules = new Map<string, RuleMetrics['items'][number]>();
    const scan = await traces.scanJsonColumn(db, dialect, filter, 'rules', { max: MAX_ROWS, pageSize: PAGE_ROWS, nonEmpty: 'rules' }, (rows) => {
      for (const row of rows) {
        // A rule counts once per decision, with the effect and mode it fired with there.
        const seen = new Set<string>();
        for (const fired of parseArray(row.json)) {
          const { rule_id: ruleId, pack, effect, mode } = (fired ?? {}) as Record<string, unknown>;
          if (typeof ruleId !== 'string' || seen.has(ruleId)) continue;
          seen.add(ruleId);
          const entry = rules.get(ruleId) ?? {
            rule_id: ruleId,
            pack: typeof pack === 'string' ? pack : '',
            fired: 0,
            by_effect: {},
            by_mode: {},
            last_fired_at: row.at,
          };
          entry.fired += 1;
          if (typeof effect === 'string') entry.by_effect[effect] = (entry.by_effect[effect] ?? 0) + 1;
          if (typeof mode === 'string') entry.by_mode[mode] = (entry.by_mode[mode] ?? 0) + 1;
          // Rows arrive newest first, so the first sighting is the last firing.
          rules.set(ruleId, entry);
        }
      }
    });
    return {
      ...window,
      items: [...rules.values()].sort((a, b) => b.fired - a.fired || a.rule_id.localeCompare(b.rule_id)),
      sampled: scan.sampled,
    };
  }

  async breakdown(query: BreakdownQuery): Promise<Breakdown> {
    const { db, dialect } = this.store;
    const { window, filter } = this.window(query);
    let items: Breakdown['items'];
    let sampled = false;
    // The route's schema fills the default; callers inside the process may leave it out too.
    const dim = query.dim ?? DEFAULT_BREAKDOWN_DIM;
    if (dim === 'entity' || dim === 'rule') {
      const column = dim === 'entity' ? 'entities' : 'rules';
      const values = new Map<string, Breakdown['items'][number]>();
      const scan = await traces.scanJsonColumn(db, dialect, filter, column, { max: MAX_ROWS, pageSize: PAGE_ROWS, nonEmpty: column }, (rows) => {
        for (const row of rows) {
          const names = new Set<string>();
          for (const item of parseArray(row.json)) {
            const name = dim === 'entity' ? item : (item as { rule_id?: unknown } | null)?.rule_id;
            if (typeof name === 'string') names.add(name);
          }
          for (const name of names) {
            const entry = values.get(name) ?? { value: name, count: 0, blocked: 0, effective_blocked: 0 };
            entry.count += 1;
            if (row.verdict === 'block') entry.blocked += 1;
            if (row.effective_verdict === 'block') entry.effective_blocked += 1;
            values.set(name, entry);
          }
        }
      });
      items = [...values.values()];
      sampled = scan.sampled;
    } else {
      items = await traces.columnBreakdown(db, dialect, filter, dim);
    }
    // Most frequent first; among equals, by value, with 'no value' last.
    items.sort((a, b) => b.count - a.count || (a.value === null ? 1 : 0) - (b.value === null ? 1 : 0) || (a.value ?? '').localeCompare(b.value ?? ''));
    return { ...window, dim, items: items.slice(0, MAX_VALUES), distinct_values: items.length, sampled };
  }
}

