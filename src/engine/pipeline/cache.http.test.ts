// The detection cache: an identical text on the same surface with the same detectors reuses the
// detections (policy still runs and the decision is still recorded); anything else runs again.
import { describe, expect, it } from 'vitest';
import { SURFACES, type Detection, type Detector } from '../detectors/types.js';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';
import { DetectionCache } from './cache.js';
import type { RunResult } from './runner.js';

function countingDetector(key: string, found: (text: string) => Detection[] = () => []): Detector & { calls: number } {
  const detector = {
    key,
    surfaces: SURFACES,
    entityTypes: ['INJECTION.INSTRUCTION_OVERRIDE'],
    costRank: 1,
    calls: 0,
    available: () => ({ available: true }),
    detect: (text: string) => {
      detector.calls += 1;
      return found(text);
    },
  };
  return detector;
}

const override = (text: string): Detection[] =>
  text.includes('ignore') ? [{ entity: 'INJECTION.INSTRUCTION_OVERRIDE', score: 0.95, start: 0, end: 6, explanation: 'test' }] : [];

describe.each(DIALECTS)('detection cache (%s)', (dialect) => {
  const counting = countingDetector('test.counting', override);
  let failNext = true;
  const flaky = countingDetector('test.flaky');
  flaky.detect = () => {
    flaky.calls += 1;
    if (failNext) {
      failNext = false;
      throw new Error('temporary failure');
    }
    return [];
  };
  const ctx = withGateway({
    dialect,
    detectors: [counting, flaky],
    overrides: { enabled_detectors: ['test.counting'] },
  });
  const check = async (body: Record<string, unknown>) => json(ctx.gateway.request('/v1/guard/input', { method: 'POST', json: body }));

  it('answers a repeated text from the cache, still evaluates policy and records every decision', async () => {
    const before = counting.calls;
    const first = await check({ agent: 'cache-agent', content: 'please ignore the rules' });
    const second = await check({ agent: 'cache-agent', content: 'please ignore the rules' });
    expect(counting.calls - before).toBe(1);
    expect(first.explanation.detectors).toEqual([expect.objectContaining({ key: 'test.counting', status: 'ok', matched: true })]);
    expect(first.explanation.detectors[0].cached).toBeUndefined();
    expect(second.explanation.detectors).toEqual([{ key: 'test.counting', status: 'ok', matched: true, ms: 0, cached: true }]);
    expect(second.entities).toEqual(first.entities);
    expect(second.effective_verdict).toBe(first.effective_verdict);
    expect(second.rules_fired).toEqual(first.rules_fired);
    expect(second.decision_id).not.toBe(first.decision_id);
    await ctx.gateway.app.services.recorder.flush();
    const traces = await ctx.gateway.store.db.selectFrom('traces').select('id').where('agent', '=', 'cache-agent').execute();
    expect(traces.map((row) => row.id).sort()).toEqual([first.decision_id, second.decision_id].sort());
    // The answer from the cache is not a detector run: statistics and latency histograms count one.
    const listed = await json(ctx.gateway.request('/api/detectors'));
    expect(listed.items.find((item: { key: string }) => item.key === 'test.counting').stats.runs).toBe(1);
    const metrics = await (await ctx.gateway.request('/metrics')).text();
    expect(metrics).toMatch(/parapet_detector_duration_seconds_count\{detector="test\.counting"\} 1\n/);
  });

  it('runs again for another surface, another text or a changed detector set', async () => {
    const text = 'ignore this on another surface';
    const before = counting.calls;
    await check({ agent: 'cache-agent', content: text });
    await check({ agent: 'cache-agent', content: text, surface: 'retrieved' });
    await check({ agent: 'cache-agent', content: `${text}!` });
    expect(counting.calls - before).toBe(3);
    // Switching a detector on changes the list for the surface: the earlier result no longer applies.
    const switched = await ctx.gateway.request('/api/detectors/test.flaky', { method: 'POST', json: { enabled: true } });
    expect(switched.status).toBe(200);
    const degraded = await check({ agent: 'cache-agent', content: text });
    expect(counting.calls - before).toBe(4);
    expect(degraded.degraded).toEqual(['test.flaky']);
    // A degraded result is not kept: the next identical check runs both detectors again.
    const retried = await check({ agent: 'cache-agent', content: text });
    expect(counting.calls - before).toBe(5);
    expect(retried.degraded).toEqual([]);
    const cached = await check({ agent: 'cache-agent', content: text });
    expect(counting.calls - before).toBe(5);
    expect(cached.explanation.detectors.every((run: { cached?: boolean }) => run.cached === true)).toBe(true);
    await ctx.gateway.request('/api/detectors/test.flaky', { method: 'POST', json: { enabled: false } });
  });
});

describe('detection cache turned off', () => {
  const counting = countingDetector('test.counting');
  const ctx = withGateway({ detectors: [counting], overrides: { enabled_detectors: ['test.counting'], detection_cache_chars: 0 } });

  it('runs the detectors on every check', async () => {
    for (let i = 0; i < 3; i += 1) {
      const decision = await json(ctx.gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'a', content: 'same' } }));
      expect(decision.explanation.detectors[0].cached).toBeUndefined();
    }
    expect(counting.calls).toBe(3);
  });
});

describe('DetectionCache', () => {
  const detectors: readonly Detector[] = [];
  const result = (): RunResult => ({
    detections: [{ entity: 'PII.EMAIL', score: 0.9, start: 0, end: 3, explanation: 'test' }],
    runs: [{ key: 'pii.native', status: 'ok', matched: true, ms: 0.1 }],
    degraded: [],
  });

  const clean = (): RunResult => ({ detections: [], runs: [{ key: 'pii.native', status: 'ok', matched: false, ms: 0.1 }], degraded: [] });

  it('evicts the least recently used texts once the character budget is spent', () => {
    const cache = new DetectionCache({ maxChars: 10, maxTextChars: 10 });
    cache.set('input', 'aaaa', detectors, clean());
    cache.set('input', 'bbbb', detectors, clean());
    expect(cache.get('input', 'aaaa', detectors)).toBeDefined(); // now the most recent
    cache.set('input', 'cccc', detectors, clean());
    expect(cache.get('input', 'bbbb', detectors)).toBeUndefined();
    expect(cache.get('input', 'aaaa', detectors)).toBeDefined();
    expect(cache.get('input', 'cccc', detectors)).toBeDefined();
    cache.set('input', 'x'.repeat(11), detectors, clean());
    expect(cache.get('input', 'x'.repeat(11), detectors)).toBeUndefined();
  });

  it('counts detections against the budget, not only the text', () => {
    // One detection with a 4-character explanation weighs 68 characters besides its 4-character text.
    const cache = new DetectionCache({ maxChars: 100, maxTextChars: 100 });
    cache.set('input', 'aaaa', detectors, result());
    expect(cache.get('input', 'aaaa', detectors)).toBeDefined();
    cache.set('input', 'bbbb', detectors, result());
    expect(cache.get('input', 'aaaa', detectors)).toBeUndefined();
    expect(cache.get('input', 'bbbb', detectors)).toBeDefined();
  });

  it('ages out a result a time-dependent detector took part in (cacheForMs), and no other', () => {
    let now = 1_000;
    const cache = new DetectionCache({ maxChars: 1000, maxTextChars: 100, now: () => now });
    const timed = [{ key: 'test.timed', cacheForMs: 60_000 } as Detector];
    cache.set('input', 'text', timed, clean());
    cache.set('input', 'text', detectors, clean());
    cache.set('output', 'text', timed, clean());
    now += 59_999;
    expect(cache.get('output', 'text', timed)).toBeDefined();
    now += 1;
    expect(cache.get('output', 'text', timed)).toBeUndefined();
    // The entry is gone, not only skipped: setting it again starts a new minute.
    cache.set('output', 'text', timed, clean());
    now += 30_000;
    expect(cache.get('output', 'text', timed)).toBeDefined();
    expect(cache.get('input', 'text', detectors)).toBeDefined();
  });

  it('keeps no result a detector was unsure of (a judgment tier that did not answer)', () => {
    const cache = new DetectionCache({ maxChars: 100, maxTextChars: 100 });
    cache.set('input', 'text', detectors, { ...clean(), uncacheable: true });
    expect(cache.get('input', 'text', detectors)).toBeUndefined();
  });

  it('hands out results nobody can change', () => {
    const cache = new DetectionCache({ maxChars: 100, maxTextChars: 100 });
    cache.set('input', 'text', detectors, result());
    const hit = cache.get('input', 'text', detectors)!;
    expect(() => {
      (hit.detections[0] as { score: number }).score = 0;
    }).toThrow(TypeError);
    expect(() => hit.detections.push({ entity: 'X', score: 1, start: 0, end: 1, explanation: 'x' })).toThrow(TypeError);
  });
});
