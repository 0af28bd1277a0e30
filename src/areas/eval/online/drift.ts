// Drift of online results: the recent window against the baseline window before it, per scorer.
// One rule decides both GET /api/eval/drift and the findings the online job raises: a change is
// significant when both windows hold enough results, the two-proportion z test on pass rates is
// below alpha and the pass rate moved by at least min_effect. Kolmogorov–Smirnov on the scores is
// reported beside it when the scores are not all 0 or 1 (latency, cost, judge), as information.
import { ksTwoSample, twoProportionZ } from '../stats.js';

export const DRIFT_ALPHA = 0.01;
export const DRIFT_MIN_SAMPLES = 20;
export const DRIFT_MIN_EFFECT = 0.05;
/** Scores per window the distribution test reads (the newest). */
export const MAX_DISTRIBUTION_SCORES = 10_000;

const DAY_MS = 86_400_000;

export interface TimeWindow {
  from: string;
  to: string;
}

export interface DriftWindows {
  recent: TimeWindow;
  baseline: TimeWindow;
}

/** recent = [now − recentDays, now); baseline = the baselineDays before it. */
export function driftWindows(now: Date, recentDays: number, baselineDays: number): DriftWindows {
  const end = now.getTime();
  const recentFrom = end - recentDays * DAY_MS;
  const baselineFrom = recentFrom - baselineDays * DAY_MS;
  return {
    recent: { from: new Date(recentFrom).toISOString(), to: new Date(end).toISOString() },
    baseline: { from: new Date(baselineFrom).toISOString(), to: new Date(recentFrom).toISOString() },
  };
}

/** What one window holds of one scorer's online results. */
export interface WindowAggregate {
  n: number;
  /** Results that pass, annotations counted instead of the scorer. */
  passed: number;
  /** Sum and count of the non-null scores. */
  scoreSum: number;
  scoreCount: number;
}

export const EMPTY_WINDOW: WindowAggregate = { n: 0, passed: 0, scoreSum: 0, scoreCount: 0 };

export interface WindowSummary {
  n: number;
  passed: number;
  pass_rate: number | null;
  mean_score: number | null;
}

export interface DriftTest {
  name: string;
  statistic: number | null;
  p_value: number | null;
}

export interface DriftItem {
  scorer: string;
  recent: WindowSummary;
  baseline: WindowSummary;
  delta: number | null;
  test: DriftTest;
  distribution: DriftTest | null;
  significant: boolean;
  direction: 'worse' | 'better' | 'none';
  reason: string;
}

export function summarise(window: WindowAggregate): WindowSummary {
  return {
    n: window.n,
    passed: window.passed,
    pass_rate: window.n === 0 ? null : window.passed / window.n,
    mean_score: window.scoreCount === 0 ? null : window.scoreSum / window.scoreCount,
  };
}

/** Two-sided two-proportion z test; a pooled rate of 0 or 1 (no variance) is no evidence of a change. */
export function passRateTest(recent: WindowAggregate, baseline: WindowAggregate): DriftTest {
  const name = 'two_proportion_z';
  if (recent.n === 0 || baseline.n === 0) return { name, statistic: null, p_value: null };
  const pooled = (recent.passed + baseline.passed) / (recent.n + baseline.n);
  if (pooled <= 0 || pooled >= 1) return { name, statistic: 0, p_value: 1 };
  const { z, p } = twoProportionZ(recent.passed, recent.n, baseline.passed, baseline.n);
  if (!Number.isFinite(z) || !Number.isFinite(p)) return { name, statistic: 0, p_value: 1 };
  return { name, statistic: z, p_value: p };
}

/** KS on the scores of both windows; null unless both have scores and some score is neither 0 nor 1. */
export function distributionTest(recentScores: readonly number[] | null, baselineScores: readonly number[] | null): DriftTest | null {
  if (recentScores === null || baselineScores === null || recentScores.length === 0 || baselineScores.length === 0) return null;
  const binary = (score: number) => score === 0 || score === 1;
  if (recentScores.every(binary) && baselineScores.every(binary)) return null;
  const { d, p } = ksTwoSample([...recentScores], [...baselineScores]);
  return { name: 'ks_two_sample', statistic: Number.isFinite(d) ? d : null, p_value: Number.isFinite(p) ? p : null };
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

/** The drift of one scorer between the windows, with the one significance rule. */
export function assessDrift(
  scorer: string,
  recent: WindowAggregate,
  baseline: WindowAggregate,
  scores: { recent: readonly number[]; baseline: readonly number[] } | null = null,
): DriftItem {
  const recentSummary = summarise(recent);
  const baselineSummary = summarise(baseline);
  const test = passRateTest(recent, baseline);
  const distribution = scores === null ? null : distributionTest(scores.recent, scores.baseline);
  const delta = recentSummary.pass_rate === null || baselineSummary.pass_rate === null ? null : recentSummary.pass_rate - baselineSummary.pass_rate;
  const base = { scorer, recent: recentSummary, baseline: baselineSummary, delta, test, distribution };

  if (recent.n === 0 && baseline.n === 0) {
    return { ...base, significant: false, direction: 'none', reason: `no online results of ${scorer} in either window` };
  }
  if (recent.n < DRIFT_MIN_SAMPLES || baseline.n < DRIFT_MIN_SAMPLES) {
    return {
      ...base,
      significant: false,
      direction: 'none',
      reason: `too few results to judge: recent ${recent.n}, baseline ${baseline.n}; each window needs at least ${DRIFT_MIN_SAMPLES}`,
    };
  }
  // Both windows are non-empty here, so delta and the p-value are numbers.
  const change = delta as number;
  const p = test.p_value as number;
  const moved = `pass rate ${percent(baselineSummary.pass_rate as number)} → ${percent(recentSummary.pass_rate as number)}`;
  if (p >= DRIFT_ALPHA) {
    return { ...base, significant: false, direction: 'none', reason: `${moved}: within noise (p = ${p.toPrecision(3)} ≥ ${DRIFT_ALPHA})` };
  }
  if (Math.abs(change) < DRIFT_MIN_EFFECT) {
    return {
      ...base,
      significant: false,
      direction: 'none',
      reason: `${moved}: p = ${p.toPrecision(3)} but the change is below ${percent(DRIFT_MIN_EFFECT)}`,
    };
  }
  const direction = change < 0 ? 'worse' : 'better';
  return { ...base, significant: true, direction, reason: `${moved}: ${direction} (p = ${p.toPrecision(3)} < ${DRIFT_ALPHA})` };
}
