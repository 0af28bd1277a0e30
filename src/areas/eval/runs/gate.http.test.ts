// The gate over HTTP on both databases: it fails on a planted regression (a candidate baseline pack
// without its injection rules) with the reasons, passes without it, checks per-scorer thresholds,
// reuses completed runs, and refuses what it cannot gate without storing anything.
import { beforeAll, describe, expect, it } from 'vitest';
import { auditCount, auditOf } from '../../../../test/helpers/audit.js';
import { DIALECTS, json, withGateway } from '../../../../test/helpers/gateway.js';
import { createGuardSuite, enforcedBaseline, regressedBaseline, type GuardSuite } from '../../../../test/helpers/eval-fixtures.js';

describe.each(DIALECTS)('evaluation gate (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { jobs_in_process: false } });
  let suite: GuardSuite;
  let baselineRun: any;
  let viewer: string;

  const gate = (body: unknown, token?: string) => ctx.gateway.request('/api/eval/gate', { method: 'POST', json: body, ...(token === undefined ? {} : { token }) });
  const enforce = { type: 'guard', policy: 'baseline', mode: 'enforce' };

  beforeAll(async () => {
    suite = await createGuardSuite(ctx.gateway, 'gate-30');
    baselineRun = await json(ctx.gateway.request('/api/eval/runs', { method: 'POST', json: { suite: suite.key, target: enforce, scorers: ['verdict'] } }));
    expect(baselineRun.status).toBe('completed');
    viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer', ttl_days: 3650 } }))).token;
  });

  it('passes the pack as it is against the baseline run', async () => {
    const response = await gate({ suite: suite.key, target: { type: 'guard', candidate: enforcedBaseline() }, scorers: ['verdict'], baseline_run_id: baselineRun.id });
    expect(response.status).toBe(200);
    const answer: any = await response.json();
    expect(answer).toMatchObject({ passed: true, pass_rate: 1, min_pass_rate: 1, reasons: [], scorers: [{ scorer: 'verdict', pass_rate: 1, threshold: null, passed: true }] });
    expect(answer.comparison).toMatchObject({ baseline_run_id: baselineRun.id, regressed: [], improved: [], changed: [], significant: false });
    const run = await json(ctx.gateway.request(`/api/eval/runs/${answer.run_id}`));
    expect(run).toMatchObject({ status: 'completed', runner: 'inline', baseline_run_id: baselineRun.id, total: 30 });
    const audit = await auditOf(ctx.gateway, answer.run_id);
    expect(audit.map((entry) => entry.action)).toEqual(['eval.run_started', 'eval.gate']);
    expect(audit[1]?.detail).toMatchObject({ run: answer.run_id, passed: true });
  });

  it('fails on a planted regression: the injection rules removed', async () => {
    const response = await gate({ suite: suite.key, target: { type: 'guard', candidate: regressedBaseline() }, scorers: ['verdict'], baseline_run_id: baselineRun.id });
    expect(response.status).toBe(200);
    const answer: any = await response.json();
    expect(answer.passed).toBe(false);
    expect(answer.pass_rate).toBe(0.5);
    expect(answer.scorers).toEqual([{ scorer: 'verdict', pass_rate: 0.5, threshold: null, passed: true }]);
    expect(answer.comparison.regressed.sort()).toEqual([...suite.injectionIds].sort());
    expect(answer.comparison).toMatchObject({ improved: [], paired: 30, pass_rate_before: 1, pass_rate_after: 0.5, significant: true, test: { name: 'mcnemar_exact', b: 15, c: 0 } });
    expect(answer.comparison.test.p_value).toBeLessThan(0.001);
    expect(answer.reasons).toHaveLength(2);
    expect(answer.reasons[0]).toMatch(/pass rate 50\.0% is below min_pass_rate 100\.0%/);
    expect(answer.reasons[1]).toMatch(/15 case\(s\) regressed against baseline .*McNemar/);
    const audit = await auditOf(ctx.gateway, answer.run_id);
    expect(audit.find((entry) => entry.action === 'eval.gate')?.detail).toMatchObject({ run: answer.run_id, passed: false });
  });

  it('checks per-scorer thresholds instead of min_pass_rate when given', async () => {
    const candidate = { type: 'guard', candidate: regressedBaseline() };
    const loose = await json(gate({ suite: suite.key, target: candidate, scorers: ['verdict'], thresholds: { verdict: 0.5 } }));
    expect(loose).toMatchObject({ passed: true, min_pass_rate: null, comparison: null, scorers: [{ scorer: 'verdict', pass_rate: 0.5, threshold: 0.5, passed: true }], reasons: [] });
    const strict = await json(gate({ suite: suite.key, target: candidate, scorers: ['verdict'], thresholds: { verdict: 0.9 } }));
    expect(strict).toMatchObject({ passed: false, scorers: [{ scorer: 'verdict', pass_rate: 0.5, threshold: 0.9, passed: false }] });
    expect(strict.reasons).toEqual([expect.stringMatching(/^verdict: pass rate 50\.0% is below its threshold 90\.0%/)]);
    // Both together: min_pass_rate is checked as well when given.
    const both = await json(gate({ suite: suite.key, target: candidate, scorers: ['verdict'], thresholds: { verdict: 0.5 }, min_pass_rate: 0.6 }));
    expect(both).toMatchObject({ passed: false, min_pass_rate: 0.6 });
    expect(both.reasons).toEqual([expect.stringMatching(/below min_pass_rate 60\.0%/)]);
  });

  it('reuses a completed run, with another baseline if asked; a queued one is a conflict', async () => {
    const reused = await json(gate({ suite: suite.key, run_id: baselineRun.id }));
    expect(reused).toMatchObject({ passed: true, run_id: baselineRun.id, pass_rate: 1, comparison: null });
    const regressedRun = await json(ctx.gateway.request('/api/eval/runs', { method: 'POST', json: { suite: suite.key, target: { type: 'guard', candidate: regressedBaseline() }, scorers: ['verdict'] } }));
    const against = await json(gate({ suite: suite.key, run_id: regressedRun.id, baseline_run_id: baselineRun.id, thresholds: { verdict: 0.4 } }));
    expect(against.passed).toBe(false);
    expect(against.comparison.regressed).toHaveLength(15);
    expect(against.reasons).toEqual([expect.stringMatching(/regressed/)]);

    const queued = await json(ctx.gateway.request('/api/eval/runs', { method: 'POST', json: { suite: suite.key, target: enforce, runner: 'job' } }));
    expect(queued.status).toBe('queued');
    const conflict = await gate({ suite: suite.key, run_id: queued.id });
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as any).detail).toMatch(/queued/);
  });

  it('refuses what it cannot gate, and stores nothing', async () => {
    const other = await json(ctx.gateway.request('/api/eval/suites', { method: 'POST', json: { key: 'gate-other' } }));
    expect(other.key).toBe('gate-other');
    const before = await auditCount(ctx.gateway);
    const runsBefore = (await json(ctx.gateway.request('/api/eval/runs?limit=200'))).items.length;
    const cases: Array<[unknown, number, RegExp?]> = [
      [{ suite: suite.key, scorers: ['verdict'], thresholds: { exact: 0.5 } }, 422, /thresholds names exact/],
      [{ suite: suite.key, run_id: baselineRun.id, thresholds: { latency: 0.5 } }, 422, /thresholds names latency/],
      [{ suite: suite.key, run_id: 'run_nope' }, 404],
      [{ suite: 'gate-other', run_id: baselineRun.id }, 422, /not a run of suite/],
      [{ suite: suite.key, run_id: baselineRun.id, target: enforce }, 422, /not taken with run_id/],
      [{ suite: suite.key, baseline_run_id: 'run_nope' }, 404],
      [{ suite: 'no-such-suite' }, 404],
      [{ suite: 'gate-other' }, 422, /no cases/],
      [{ suite: suite.key, target: { type: 'guard', candidate: 'key: [unclosed' } }, 422, /candidate policy is not valid/],
      [{ suite: suite.key, thresholds: { verdict: 1.5 } }, 400],
      [{ suite: suite.key, min_pass_rate: -0.1 }, 400],
      [{ suite: suite.key, extra: 1 }, 400],
      [{}, 400],
    ];
    for (const [body, status, detail] of cases) {
      const response = await gate(body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      if (detail !== undefined) expect(JSON.stringify(await response.json())).toMatch(detail);
    }
    expect((await gate({ suite: suite.key }, viewer)).status).toBe(403);
    expect(await auditCount(ctx.gateway)).toBe(before);
    expect((await json(ctx.gateway.request('/api/eval/runs?limit=200'))).items).toHaveLength(runsBefore);
  });
});
