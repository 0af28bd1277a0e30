// Degraded checks (spec 01 §7.3, §8): timeouts, errors and budget skips are reported, raise
// budget_breach, and block through pipeline.fail_closed when the deployment fails closed.
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';
import { fakeDetector } from '../../../test/helpers/fake-detector.js';


const slow = fakeDetector('test.slow', 50, () => new Promise((resolve) => setTimeout(() => resolve([]), 300)));
const broken = fakeDetector('test.broken', 2, () => {
  throw new Error('model file is corrupt');
});
const busy = fakeDetector('test.busy', 1, () => {
  const until = performance.now() + 60;
  while (performance.now() < until) {
    // A synchronous detector that overruns the whole budget.
  }
  return [];
});
const fine = fakeDetector('test.fine', 3, () => []);

describe.each(DIALECTS)('degraded checks (%s)', (dialect) => {
  describe('fail_mode open', () => {
    const ctx = withGateway({
      dialect,
      detectors: [slow, broken, fine],
      overrides: { enabled_detectors: ['test.slow', 'test.broken', 'test.fine'], detector_timeout_ms: 30 },
    });

    it('reports timeout and error, lets the call through and raises budget_breach', async () => {
      const started = Date.now();
      const decision = await json(ctx.gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'a', content: 'hello' } }));
      expect(Date.now() - started).toBeLessThan(250);
      expect(decision.degraded.sort()).toEqual(['test.broken', 'test.slow']);
      const statuses = Object.fromEntries(decision.explanation.detectors.map((d: { key: string; status: string }) => [d.key, d.status]));
      expect(statuses).toEqual({ 'test.slow': 'timeout', 'test.broken': 'error', 'test.fine': 'ok' });
      expect(decision.verdict).toBe('allow');
      await ctx.gateway.app.services.recorder.flush();
      const breaches = await ctx.gateway.store.db.selectFrom('findings').selectAll().where('type', '=', 'budget_breach').execute();
      expect(breaches.map((row) => JSON.parse(row.evidence).detector).sort()).toEqual(['test.broken', 'test.slow']);
      const listed = await json(ctx.gateway.request('/api/detectors'));
      const slowView = listed.items.find((item: { key: string }) => item.key === 'test.slow');
      expect(slowView.stats).toMatchObject({ runs: 1, timeout: 1 });
    });
  });

  describe('fail_mode closed', () => {
    const ctx = withGateway({
      dialect,
      detectors: [slow, fine],
      overrides: { enabled_detectors: ['test.slow', 'test.fine'], detector_timeout_ms: 30, fail_mode: 'closed' },
    });

    it('blocks a degraded call through pipeline.fail_closed', async () => {
      const decision = await json(ctx.gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'a', content: 'hello' } }));
      expect(decision.verdict).toBe('block');
      expect(decision.rules_fired.map((rule: { rule_id: string }) => rule.rule_id)).toContain('pipeline.fail_closed');
    });
  });

  describe('budget', () => {
    const ctx = withGateway({
      dialect,
      detectors: [busy, fine],
      overrides: { enabled_detectors: ['test.busy', 'test.fine'], enforcement_budget_ms: 40, detector_timeout_ms: 40 },
    });

    it('skips detectors once the enforcement budget is spent', async () => {
      const decision = await json(ctx.gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'a', content: 'x' } }));
      const statuses = Object.fromEntries(decision.explanation.detectors.map((d: { key: string; status: string }) => [d.key, d.status]));
      expect(statuses).toEqual({ 'test.busy': 'timeout', 'test.fine': 'skipped_budget' });
    });
  });
});
