// Reports of the guardrail feedback loop: precision from the labels, detector latency from recorded
// decisions, and recommendations from both (spec 02 GET /api/guardrails/precision, /latency,
// /recommendations). Read-only. The JSON columns are parsed here: SQLite and PostgreSQL do not agree
// on JSON array functions, so the scans are bounded and walk the `at` index newest first.
import type { Clock } from '../../infra/lib/clock.js';
import type { ReadStore } from '../../infra/store/reader.js';
import type {
  LatencyQuery,
  LatencyReport,
  PrecisionQuery,
  PrecisionReport,
  Recommendation,
  RecommendationList,
  RecommendationsQuery,
} from './schemas.js';
import { detectedOf } from './service.js';
import { decisionsByIds, feedbackSince, scanDetectorRuns, type FeedbackRow } from './store.js';

/** The most decisions the latency report reads (newest first); it says `sampled` when the window held more. */
export const MAX_LATENCY_DECISIONS = 100_000;
const PAGE_ROWS = 5_000;
/** The most labels a report reads: labels are made by people, so this is far beyond real use. */
export const MAX_LABELS = 50_000;
/** A detector/entity needs this many TP + FP labels before a threshold is recommended. */
export const MIN_LABELS = 5;
/** ... and precision below this. */
export const PRECISION_BAR = 0.8;
/** A rule needs this many false-positive labels, and one agent this share of them, to be narrowed. */
export const MIN_RULE_FALSE_POSITIVES = 3;
export const AGENT_SHARE = 0.8;

const DAY_MS = 86_400_000;
const round = (value: number, places = 4): number => Math.round(value * 10 ** places) / 10 ** places;

interface Counts {
  tp: number;
  fp: number;
  fn: number;
}
const emptyCounts = (): Counts => ({ tp: 0, fp: 0, fn: 0 });
const precisionOf = (counts: Counts): number | null => (counts.tp + counts.fp === 0 ? null : round(counts.tp / (counts.tp + counts.fp)));
const withPrecision = (counts: Counts) => ({ ...counts, precision: precisionOf(counts) });

function count(counts: Counts, label: string): void {
  if (label === 'true_positive') counts.tp++;
  else if (label === 'false_positive') counts.fp++;
  else counts.fn++;
}

function grouped<K>(map: Map<string, { key: K; counts: Counts }>, id: string, key: K): Counts {
  let entry = map.get(id);
  if (entry === undefined) {
    entry = { key, counts: emptyCounts() };
    map.set(id, entry);
  }
  return entry.counts;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] as number;
}

interface RunStats {
  runs: number;
  /** Times of the runs that ran (a run skipped for budget never started and has no time). */
  ms: number[];
  degraded: number;
  statuses: Record<string, number>;
}
const emptyRunStats = (): RunStats => ({ runs: 0, ms: [], degraded: 0, statuses: {} });

function summarise(stats: RunStats) {
  const sorted = stats.ms.sort((a, b) => a - b);
  return {
    runs: stats.runs,
    p50_ms: percentile(sorted, 0.5),
    p95_ms: percentile(sorted, 0.95),
    max_ms: sorted.length === 0 ? null : (sorted.at(-1) as number),
    degraded: stats.degraded,
    degraded_rate: stats.runs === 0 ? 0 : round(stats.degraded / stats.runs),
    statuses: stats.statuses,
  };
}

function parseArray(text: string | null): unknown[] {
  if (text === null) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The fired rules of a decision that carried a detection (detector rules), with their entity and detector. */
function detectorRulesOf(rules: string): Array<{ rule_id: string; entity: string; detector: string | null }> {
  const out: Array<{ rule_id: string; entity: string; detector: string | null }> = [];
  for (const rule of parseArray(rules)) {
    if (isObject(rule) && typeof rule.rule_id === 'string' && typeof rule.entity === 'string') {
      out.push({ rule_id: rule.rule_id, entity: rule.entity, detector: typeof rule.detector === 'string' ? rule.detector : null });
    }
  }
  return out;
}

const matches = (item: { entity: string; detector: string | null }, label: Pick<FeedbackRow, 'entity_type' | 'detector_key'>): boolean =>
  item.entity === label.entity_type && (label.detector_key === null || item.detector === null || item.detector === label.detector_key);

export class GuardrailReports {
  constructor(
    private readonly store: ReadStore,
    private readonly clock: Clock,
  ) {}

  private window(days: number): { from: string; to: string } {
    const now = this.clock.now();
    return { from: new Date(now.getTime() - days * DAY_MS).toISOString(), to: now.toISOString() };
  }

  /** Labels given in the window, per detector, per detector and entity type, and per agent. */
  async precision(query: PrecisionQuery): Promise<PrecisionReport> {
    const days = query.days ?? 30;
    const { from, to } = this.window(days);
    const labels = await feedbackSince(this.store.db, from, query.agent, MAX_LABELS);
    const total = emptyCounts();
    const detectors = new Map<string, { key: string | null; counts: Counts }>();
    const entities = new Map<string, { key: { detector_key: string | null; entity_type: string | null }; counts: Counts }>();
    const agents = new Map<string, { key: string; counts: Counts }>();
    for (const label of labels) {
      count(total, label.label);
      count(grouped(detectors, JSON.stringify(label.detector_key), label.detector_key), label.label);
      count(
        grouped(entities, JSON.stringify([label.detector_key, label.entity_type]), { detector_key: label.detector_key, entity_type: label.entity_type }),
        label.label,
      );
      count(grouped(agents, label.agent, label.agent), label.label);
    }
    const byName = (a: string | null, b: string | null) => (a ?? '').localeCompare(b ?? '');
    return {
      days,
      agent: query.agent ?? null,
      from,
      to,
      total: withPrecision(total),
      detectors: [...detectors.values()].map(({ key, counts }) => ({ detector_key: key, ...withPrecision(counts) })).sort((a, b) => byName(a.detector_key, b.detector_key)),
      entities: [...entities.values()]
        .map(({ key, counts }) => ({ ...key, ...withPrecision(counts) }))
        .sort((a, b) => byName(a.detector_key, b.detector_key) || byName(a.entity_type, b.entity_type)),
      agents: [...agents.values()].map(({ key, counts }) => ({ agent: key, ...withPrecision(counts) })).sort((a, b) => byName(a.agent, b.agent)),
    };
  }

  /** Detector run times and degraded runs of the newest MAX_LATENCY_DECISIONS decisions in the window. */
  async latency(query: LatencyQuery): Promise<LatencyReport> {
    const days = query.days ?? 7;
    const { from, to } = this.window(days);
    const detectors = new Map<string, RunStats>();
    const agents = new Map<string, RunStats & { decisions: number; degradedDecisions: number }>();
    const scan = await scanDetectorRuns(
      this.store.db,
      { since: from, ...(query.agent === undefined ? {} : { agent: query.agent }) },
      { max: MAX_LATENCY_DECISIONS, pageSize: PAGE_ROWS },
      (rows) => {
        for (const row of rows) {
          let agent = agents.get(row.agent);
          if (agent === undefined) {
            agent = { ...emptyRunStats(), decisions: 0, degradedDecisions: 0 };
            agents.set(row.agent, agent);
          }
          agent.decisions++;
          let degradedDecision = false;
          for (const run of parseArray(row.detectors)) {
            // An answer from the detection cache is not a detector run (README "Decisions").
            if (!isObject(run) || typeof run.key !== 'string' || typeof run.status !== 'string' || run.cached === true) continue;
            let detector = detectors.get(run.key);
            if (detector === undefined) {
              detector = emptyRunStats();
              detectors.set(run.key, detector);
            }
            const degraded = run.status !== 'ok';
            degradedDecision ||= degraded;
            for (const stats of [detector, agent]) {
              stats.runs++;
              stats.statuses[run.status] = (stats.statuses[run.status] ?? 0) + 1;
              if (degraded) stats.degraded++;
              if (run.status !== 'skipped_budget' && typeof run.ms === 'number') stats.ms.push(run.ms);
            }
          }
          if (degradedDecision) agent.degradedDecisions++;
        }
      },
    );
    return {
      days,
      agent: query.agent ?? null,
      from,
      to,
      decisions: scan.read,
      sampled: scan.sampled,
      detectors: [...detectors.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, stats]) => ({ detector_key: key, ...summarise(stats) })),
      agents: [...agents.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, stats]) => ({ agent: key, decisions: stats.decisions, degraded_decisions: stats.degradedDecisions, ...summarise(stats) })),
    };
  }

  /**
   * Thresholds for detector/entity pairs with enough labels and poor precision (from the scores
   * the labelled decisions recorded), and rules whose false positives come mostly from one agent.
   */
  async recommendations(query: RecommendationsQuery): Promise<RecommendationList> {
    const days = query.days ?? 30;
    const { from, to } = this.window(days);
    const labels = (await feedbackSince(this.store.db, from, undefined, MAX_LABELS)).filter(
      (label) => label.label !== 'false_negative' && label.entity_type !== null,
    );
    const decisions = new Map((await decisionsByIds(this.store.db, [...new Set(labels.map((label) => label.decision_id))])).map((row) => [row.id, row]));
    const items: Recommendation[] = [];

    // 1. Thresholds per detector and entity type.
    const groups = new Map<string, { detector_key: string | null; entity_type: string; labels: FeedbackRow[] }>();
    for (const label of labels) {
      const id = JSON.stringify([label.detector_key, label.entity_type]);
      let group = groups.get(id);
      if (group === undefined) {
        group = { detector_key: label.detector_key, entity_type: label.entity_type as string, labels: [] };
        groups.set(id, group);
      }
      group.labels.push(label);
    }
    for (const group of groups.values()) {
      const tp = group.labels.filter((label) => label.label === 'true_positive');
      const fp = group.labels.filter((label) => label.label === 'false_positive');
      const precision = precisionOf({ tp: tp.length, fp: fp.length, fn: 0 });
      if (tp.length + fp.length < MIN_LABELS || precision === null || precision >= PRECISION_BAR) continue;
      // The score of the labelled detection: the highest of that entity (and detector) in the decision.
      const scoreOf = (label: FeedbackRow): number | null => {
        const row = decisions.get(label.decision_id);
        if (row === undefined) return null;
        const scores = detectedOf(row)
          .filter((item) => matches(item, label))
          .map((item) => item.score)
          .filter((score): score is number => score !== null);
        return scores.length === 0 ? null : Math.max(...scores);
      };
      const tpScores = tp.map(scoreOf).filter((score): score is number => score !== null);
      const fpScores = fp.map(scoreOf).filter((score): score is number => score !== null);
      if (fpScores.length === 0) continue;
      // The lowest true-positive score keeps every true positive; with none, just above the highest false positive.
      const threshold = tpScores.length > 0 ? Math.min(...tpScores) : round(Math.max(...fpScores) + 0.01, 2);
      if (threshold > 1) continue;
      const removed = fpScores.filter((score) => score < threshold).length;
      if (removed * 2 <= fpScores.length) continue;
      const ruleIds = new Set<string>();
      for (const label of group.labels) {
        const row = decisions.get(label.decision_id);
        if (row === undefined) continue;
        for (const rule of detectorRulesOf(row.rules)) if (matches(rule, label)) ruleIds.add(rule.rule_id);
      }
      const keptTp = tpScores.filter((score) => score >= threshold).length;
      const remainingFp = fp.length - removed;
      items.push({
        kind: 'raise_min_score',
        detector_key: group.detector_key,
        entity_type: group.entity_type,
        rule_id: null,
        agent: null,
        summary: `Raise min_score for ${group.entity_type}${group.detector_key === null ? '' : ` (${group.detector_key})`} to ${threshold}: it would have removed ${removed} of ${fpScores.length} scored false positives and kept ${keptTp} of ${tpScores.length} scored true positives.`,
        evidence: {
          tp: tp.length,
          fp: fp.length,
          precision,
          scored_tp: tpScores.length,
          scored_fp: fpScores.length,
          fp_removed: removed,
          tp_kept: keptTp,
          precision_after: precisionOf({ tp: tp.length, fp: remainingFp, fn: 0 }),
          fp_scores: { min: Math.min(...fpScores), max: Math.max(...fpScores) },
          tp_scores: tpScores.length === 0 ? null : { min: Math.min(...tpScores), max: Math.max(...tpScores) },
        },
        change: { rule_ids: [...ruleIds].sort(), when: { entity: group.entity_type, min_score: threshold } },
      });
    }

    // 2. Rules whose false positives come mostly from one agent.
    const rules = new Map<string, { fp: Map<string, FeedbackRow[]>; tpAgents: Set<string>; detector: string | null; entity: string }>();
    for (const label of labels) {
      const row = decisions.get(label.decision_id);
      if (row === undefined) continue;
      for (const rule of detectorRulesOf(row.rules)) {
        if (!matches(rule, label)) continue;
        let entry = rules.get(rule.rule_id);
        if (entry === undefined) {
          entry = { fp: new Map(), tpAgents: new Set(), detector: label.detector_key, entity: rule.entity };
          rules.set(rule.rule_id, entry);
        }
        if (label.label === 'true_positive') entry.tpAgents.add(label.agent);
        else {
          const list = entry.fp.get(label.agent) ?? [];
          list.push(label);
          entry.fp.set(label.agent, list);
        }
      }
    }
    for (const [ruleId, entry] of [...rules.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const fpTotal = [...entry.fp.values()].reduce((sum, list) => sum + list.length, 0);
      if (fpTotal < MIN_RULE_FALSE_POSITIVES) continue;
      const [agent, agentLabels] = [...entry.fp.entries()].sort((a, b) => b[1].length - a[1].length)[0] as [string, FeedbackRow[]];
      const share = agentLabels.length / fpTotal;
      if (share < AGENT_SHARE) continue;
      // Labels are newest first: the newest still open can become the suppression.
      const open = agentLabels.find((label) => label.status === 'open') ?? (agentLabels[0] as FeedbackRow);
      const others = [...new Set([...entry.tpAgents, ...entry.fp.keys()])].filter((other) => other !== agent).sort();
      items.push({
        kind: 'narrow_rule',
        detector_key: entry.detector,
        entity_type: entry.entity,
        rule_id: ruleId,
        agent,
        summary: `${agentLabels.length} of ${fpTotal} false positives of ${ruleId} are for agent ${agent}: suppress it for that agent${others.length === 0 ? '' : ', or limit the rule to the other agents with an agent condition'}.`,
        evidence: { fp: fpTotal, fp_for_agent: agentLabels.length, share: round(share), tp_agents: [...entry.tpAgents].sort() },
        change: {
          suppression: { method: 'POST', path: '/api/guardrails/suppressions', body: { feedback_id: open.id, scope: 'agent' } },
          agent_condition: others.length === 0 ? null : { rule_id: ruleId, when: { agent: others } },
        },
      });
    }
    return {
      days,
      from,
      to,
      thresholds: { min_labels: MIN_LABELS, precision_below: PRECISION_BAR, min_rule_false_positives: MIN_RULE_FALSE_POSITIVES, agent_share: AGENT_SHARE },
      items,
    };
  }
}
