// The drift rule alone: windows, the two-proportion test with its sample and effect floors, the
// distribution test only for graded scores, and the deterministic sample.
import { describe, expect, it } from 'vitest';
import { twoProportionZ } from '../stats.js';
import { assessDrift, distributionTest, driftWindows, DRIFT_MIN_SAMPLES, EMPTY_WINDOW, passRateTest, type WindowAggregate } from './drift.js';
import { sampled } from './service.js';

const DAY_MS = 86_400_000;
const window = (n: number, passed: number, scoreSum = passed): WindowAggregate => ({ n, passed, scoreSum, scoreCount: n });

describe('driftWindows', () => {
  it('puts the baseline right before the recent window, which ends now', () => {
    const now = new Date('2026-03-30T12:00:00.000Z');
    expect(driftWindows(now, 7, 28)).toEqual({
      recent: { from: '2026-03-23T12:00:00.000Z', to: '2026-03-30T12:00:00.000Z' },
      baseline: { from: '2026-02-23T12:00:00.000Z', to: '2026-03-23T12:00:00.000Z' },
    });
    const one = driftWindows(now, 1, 1);
    expect(Date.parse(one.recent.to) - Date.parse(one.baseline.from)).toBe(2 * DAY_MS);
  });
});

describe('assessDrift', () => {
  it('finds no drift when the pass rate holds', () => {
    const item = assessDrift('verdict', window(100, 90), window(100, 91));
    expect(item).toMatchObject({ significant: false, direction: 'none', recent: { n: 100, passed: 90, pass_rate: 0.9 }, baseline: { pass_rate: 0.91 } });
    expect(item.delta).toBeCloseTo(-0.01, 10);
    expect(item.test.p_value).toBeGreaterThan(0.5);
    expect(item.reason).toContain('within noise');
  });

  it('finds a significant worsening, with the z test of stats.ts', () => {
    const item = assessDrift('verdict', window(100, 60), window(100, 95));
    const { z, p } = twoProportionZ(60, 100, 95, 100);
    expect(item).toMatchObject({ significant: true, direction: 'worse', test: { name: 'two_proportion_z', statistic: z, p_value: p } });
    expect(p).toBeLessThan(0.01);
    expect(item.delta).toBeCloseTo(-0.35, 10);
    expect(item.reason).toContain('95.0% → 60.0%');
  });

  it('finds a significant improvement as better', () => {
    expect(assessDrift('refusal', window(100, 95), window(100, 60))).toMatchObject({ significant: true, direction: 'better' });
  });

  it('needs min_samples in each window, however large the change', () => {
    const few = assessDrift('verdict', window(DRIFT_MIN_SAMPLES - 1, 0), window(500, 500));
    expect(few).toMatchObject({ significant: false, direction: 'none' });
    expect(few.reason).toContain('too few results');
    expect(assessDrift('verdict', window(DRIFT_MIN_SAMPLES, 0), window(500, 500)).significant).toBe(true);
  });

  it('needs a change of at least min_effect, however small p is', () => {
    const item = assessDrift('verdict', window(1_000_000, 900_000), window(1_000_000, 910_000));
    expect(item.test.p_value).toBeLessThan(1e-10);
    expect(item).toMatchObject({ significant: false, direction: 'none' });
    expect(item.reason).toContain('below');
  });

  it('answers n 0 and no test when a window is empty', () => {
    const item = assessDrift('latency', EMPTY_WINDOW, EMPTY_WINDOW);
    expect(item).toEqual({
      scorer: 'latency',
      recent: { n: 0, passed: 0, pass_rate: null, mean_score: null },
      baseline: { n: 0, passed: 0, pass_rate: null, mean_score: null },
      delta: null,
      test: { name: 'two_proportion_z', statistic: null, p_value: null },
      distribution: null,
      significant: false,
      direction: 'none',
      reason: 'no online results of latency in either window',
    });
    expect(assessDrift('latency', EMPTY_WINDOW, window(50, 50)).test).toEqual({ name: 'two_proportion_z', statistic: null, p_value: null });
  });

  it('treats every result passing in both windows as no evidence of change', () => {
    expect(passRateTest(window(50, 50), window(80, 80))).toEqual({ name: 'two_proportion_z', statistic: 0, p_value: 1 });
    expect(passRateTest(window(50, 0), window(80, 0))).toEqual({ name: 'two_proportion_z', statistic: 0, p_value: 1 });
  });

  it('reports the mean score and the KS test on graded scores', () => {
    const recent = Array.from({ length: 200 }, (_, index) => 500 + index);
    const baseline = Array.from({ length: 200 }, (_, index) => 100 + index);
    const item = assessDrift('latency', window(200, 200, recent.reduce((a, b) => a + b, 0)), window(200, 200, baseline.reduce((a, b) => a + b, 0)), { recent, baseline });
    expect(item.recent.mean_score).toBeCloseTo(599.5, 10);
    expect(item.baseline.mean_score).toBeCloseTo(199.5, 10);
    expect(item.distribution).toMatchObject({ name: 'ks_two_sample', statistic: 1 });
    expect(item.distribution?.p_value).toBeLessThan(1e-10);
    // The distribution test informs; pass rates decide.
    expect(item.significant).toBe(false);
  });
});

describe('distributionTest', () => {
  it('is left out when every score is 0 or 1, or a window has none', () => {
    expect(distributionTest([0, 1, 1, 0], [1, 1, 1])).toBeNull();
    expect(distributionTest([0.5], [])).toBeNull();
    expect(distributionTest(null, [0.5])).toBeNull();
  });

  it('finds the same distribution unremarkable', () => {
    const scores = Array.from({ length: 100 }, (_, index) => index / 100);
    const test = distributionTest(scores, scores);
    expect(test).toMatchObject({ name: 'ks_two_sample', statistic: 0 });
    expect(test?.p_value).toBeGreaterThan(0.99);
  });
});

describe('sampled', () => {
  it('picks the same decisions every time, about rate of them', () => {
    const ids = Array.from({ length: 20_000 }, (_, index) => `dec_${index.toString(36).padStart(8, '0')}`);
    const picked = ids.filter((id) => sampled(id, 0.1));
    expect(picked.length).toBeGreaterThan(1_800);
    expect(picked.length).toBeLessThan(2_200);
    expect(ids.filter((id) => sampled(id, 0.1))).toEqual(picked);
    // A larger rate keeps every decision a smaller one picked.
    const more = new Set(ids.filter((id) => sampled(id, 0.3)));
    expect(picked.every((id) => more.has(id))).toBe(true);
    expect(ids.every((id) => sampled(id, 1))).toBe(true);
  });
});
