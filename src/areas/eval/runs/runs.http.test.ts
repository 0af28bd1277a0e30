// Evaluation runs over HTTP on both databases: a 30-case guard suite run with the baseline pack in
// observe and then in enforce (the comparison names exactly the cases whose verdict changed), the
// job path (202, worker tick, same results, a retried job duplicates nothing), listing, roles and
// refusals that store nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { auditCount, auditOf } from '../../../../test/helpers/audit.js';
import { malformedRequestFailures } from '../../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway } from '../../../../test/helpers/gateway.js';
import { createGuardSuite, INJECTIONS, type GuardSuite } from '../../../../test/helpers/eval-fixtures.js';

describe.each(DIALECTS)('evaluation runs (%s)', (dialect) => {
  // The worker runs only when the test ticks it.
  const ctx = withGateway({ dialect, overrides: { jobs_in_process: false } });
  let suite: GuardSuite;
  let viewer: string;
  let observeRun: any;
  let enforceRun: any;

  beforeAll(async () => {
    suite = await createGuardSuite(ctx.gateway, 'guard-30');
    viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer', ttl_days: 3650 } }))).token;
  });

  const startRun = (body: unknown, token?: string) => ctx.gateway.request('/api/eval/runs', { method: 'POST', json: body, ...(token === undefined ? {} : { token }) });

  it('runs 30 guard cases with the baseline pack in observe, in the request', async () => {
    const response = await startRun({ suite: suite.key, target: { type: 'guard', policy: 'baseline', mode: 'observe' }, scorers: ['verdict'] });
    expect(response.status).toBe(201);
    observeRun = await response.json();
    expect(observeRun).toMatchObject({ kind: 'offline', suite: suite.key, status: 'completed', total: 30, done: 30, runner: 'inline', baseline_run_id: null, comparison: null });
    expect(observeRun.id).toMatch(/^run_/);
    expect(observeRun.cases).toHaveLength(30);
    // Suite order, each case with its output row and one verdict result.
    expect(observeRun.cases.map((item: any) => item.case_id)).toEqual([...suite.injectionIds, ...suite.benignIds]);
    for (const item of observeRun.cases) {
      expect(item.output_id).toMatch(/^out_/);
      expect(item.results).toHaveLength(1);
      expect(item.results[0]).toMatchObject({ scorer: 'verdict', annotation: null });
      expect(item.results[0].id).toMatch(/^res_/);
    }
    // In observe the baseline pack lets injections through (verdict allow) but says it would block them.
    const injections = observeRun.cases.slice(0, INJECTIONS.length);
    expect(injections.every((item: any) => item.verdict === 'allow')).toBe(true);
    expect(injections.every((item: any) => item.entities.some((entity: string) => entity.startsWith('INJECTION.')))).toBe(true);
    const benign = observeRun.cases.slice(INJECTIONS.length);
    expect(benign.every((item: any) => item.verdict === 'allow' && item.passed === true)).toBe(true);
    // Whether an observed block counts as the expected block is the verdict scorer's call; the
    // pass rate and the summary must agree with the per-case results either way.
    const passed = observeRun.cases.filter((item: any) => item.passed).length;
    expect(observeRun.pass_rate).toBe(passed / 30);
    expect(observeRun.scorers_summary).toEqual([{ scorer: 'verdict', results: 30, passed, pass_rate: passed / 30, threshold: null }]);
    const audit = await auditOf(ctx.gateway, observeRun.id);
    expect(audit).toEqual([expect.objectContaining({ action: 'eval.run_started', detail: expect.objectContaining({ suite: suite.key, target: 'guard', total: 30, runner: 'inline', scorers: ['verdict'] }) })]);
  });

  it('runs it in enforce against the observe run: the comparison names exactly the cases whose verdict changed', async () => {
    const response = await startRun({ suite: suite.key, target: { type: 'guard', policy: 'baseline', mode: 'enforce' }, scorers: ['verdict'], baseline_run_id: observeRun.id });
    expect(response.status).toBe(201);
    enforceRun = await response.json();
    expect(enforceRun.status).toBe('completed');
    expect(enforceRun.pass_rate).toBe(1);
    const comparison = enforceRun.comparison;
    expect(comparison.baseline_run_id).toBe(observeRun.id);
    expect(comparison.paired).toBe(30);
    expect(comparison.changed.map((item: any) => item.case_id).sort()).toEqual([...suite.injectionIds].sort());
    for (const change of comparison.changed) expect(change).toMatchObject({ before: { verdict: 'allow', output: null }, after: { verdict: 'block', output: null } });
    // Cases that failed in observe and pass in enforce improved; none regressed.
    const failedBefore = observeRun.cases.filter((item: any) => item.passed === false).map((item: any) => item.case_id);
    expect(failedBefore.every((id: string) => suite.injectionIds.includes(id))).toBe(true);
    expect([...comparison.improved].sort()).toEqual([...failedBefore].sort());
    const c = failedBefore.length;
    expect(comparison).toMatchObject({ regressed: [], pass_rate_before: observeRun.pass_rate, pass_rate_after: 1, test: { name: 'mcnemar_exact', b: 0, c } });
    // Exact McNemar, two-sided: 2 × 0.5^c (capped at 1).
    expect(comparison.test.p_value).toBeCloseTo(Math.min(1, 2 * 0.5 ** c), 12);
    expect(comparison.significant).toBe(comparison.test.p_value < 0.05);
    // Read back: the same shape, computed on read.
    const again = await json(ctx.gateway.request(`/api/eval/runs/${enforceRun.id}`));
    expect(again).toEqual(enforceRun);
  });

  it('runs as a job when asked: 202, then completed by the worker with the same results', async () => {
    const response = await startRun({ suite: suite.key, target: { type: 'guard', policy: 'baseline', mode: 'enforce' }, scorers: ['verdict'], runner: 'job' });
    expect(response.status).toBe(202);
    const queued: any = await response.json();
    expect(queued).toEqual({ id: expect.stringMatching(/^run_/), status: 'queued', job_id: expect.stringMatching(/^job_/), total: 30 });
    const before = await json(ctx.gateway.request(`/api/eval/runs/${queued.id}`));
    expect(before).toMatchObject({ status: 'queued', done: 0, pass_rate: null, runner: 'job', job_id: queued.job_id, cases: [] });

    expect(await ctx.gateway.app.services.worker.tick()).toBe(true);
    const run = await json(ctx.gateway.request(`/api/eval/runs/${queued.id}`));
    expect(run).toMatchObject({ status: 'completed', done: 30, total: 30, pass_rate: 1 });
    expect(run.started_at).not.toBeNull();
    expect(run.finished_at).not.toBeNull();
    const shape = (r: any) => r.cases.map((item: any) => [item.case_id, item.verdict, item.passed, item.results.map((res: any) => [res.scorer, res.passed, res.score])]);
    expect(shape(run)).toEqual(shape(enforceRun));
    const job = await json(ctx.gateway.request(`/api/jobs/${queued.job_id}`));
    expect(job.status).toBe('done');
  });

  it('a retried job answers only what the last attempt left and duplicates nothing', async () => {
    const queued = await json(startRun({ suite: suite.key, target: { type: 'guard', policy: 'baseline', mode: 'enforce' }, scorers: ['verdict'], runner: 'job' }));
    expect(await ctx.gateway.app.services.worker.tick()).toBe(true);
    const first = await json(ctx.gateway.request(`/api/eval/runs/${queued.id}`));
    const { db } = ctx.gateway.store;
    // An attempt that died after ten cases: the rest of its outputs never happened, the run still says running.
    const lost = first.cases.slice(10).map((item: any) => item.output_id);
    await db.deleteFrom('eval_results').where('output_id', 'in', lost).execute();
    await db.deleteFrom('eval_outputs').where('id', 'in', lost).execute();
    await db.updateTable('eval_runs').set({ status: 'running', done: 10, finished_at: null }).where('id', '=', queued.id).execute();
    await ctx.gateway.app.services.queue.enqueue('eval.run', { run_id: queued.id }, { maxAttempts: 3, createdBy: 'test' });
    expect(await ctx.gateway.app.services.worker.tick()).toBe(true);

    const outputs = await db.selectFrom('eval_outputs').select(['id', 'case_id']).where('run_id', '=', queued.id).execute();
    expect(outputs).toHaveLength(30);
    expect(new Set(outputs.map((row) => row.case_id)).size).toBe(30);
    const kept = first.cases.slice(0, 10).map((item: any) => item.output_id);
    expect(outputs.filter((row) => kept.includes(row.id))).toHaveLength(10);
    const results = await db.selectFrom('eval_results').select('id').where('run_id', '=', queued.id).execute();
    expect(results).toHaveLength(30);
    const second = await json(ctx.gateway.request(`/api/eval/runs/${queued.id}`));
    expect(second).toMatchObject({ status: 'completed', done: 30, pass_rate: 1 });

    // Running the job once more after it completed changes nothing.
    await ctx.gateway.app.services.queue.enqueue('eval.run', { run_id: queued.id }, { maxAttempts: 3, createdBy: 'test' });
    expect(await ctx.gateway.app.services.worker.tick()).toBe(true);
    expect(await db.selectFrom('eval_outputs').select('id').where('run_id', '=', queued.id).execute()).toHaveLength(30);
  });

  it('stops on the job\'s abort (a lost lease) without failing the run; the next attempt completes it', async () => {
    const queued = await json(startRun({ suite: suite.key, target: { type: 'guard', policy: 'baseline', mode: 'enforce' }, scorers: ['verdict'], runner: 'job' }));
    const { db } = ctx.gateway.store;
    const job = await db.selectFrom('jobs').selectAll().where('id', '=', queued.job_id).executeTakeFirstOrThrow();
    const lost = new AbortController();
    lost.abort(new Error('lease lost'));
    const handler = ctx.gateway.app.services.evaluations.runs.jobHandlers()['eval.run'];
    await expect(handler?.({ job, payload: { run_id: queued.id }, workerId: 'gone', signal: lost.signal })).rejects.toThrow('lease lost');
    const stopped = await json(ctx.gateway.request(`/api/eval/runs/${queued.id}`));
    expect(stopped).toMatchObject({ status: 'running', done: 0, error: null, cases: [] });
    expect(await ctx.gateway.app.services.worker.tick()).toBe(true);
    expect(await json(ctx.gateway.request(`/api/eval/runs/${queued.id}`))).toMatchObject({ status: 'completed', done: 30 });
  });

  it('lists runs newest first, with kind and pass rate, filtered by suite', async () => {
    const page = await json(ctx.gateway.request(`/api/eval/runs?suite=${suite.key}&limit=200`));
    expect(page.items.length).toBeGreaterThanOrEqual(4);
    expect(page.items.every((item: any) => item.suite === suite.key && item.kind === 'offline' && item.cases === undefined && item.comparison === undefined)).toBe(true);
    const created = page.items.map((item: any) => item.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    const listed = page.items.find((item: any) => item.id === enforceRun.id);
    expect(listed).toMatchObject({ pass_rate: 1, status: 'completed', baseline_run_id: observeRun.id });
    expect((await json(ctx.gateway.request('/api/eval/runs?limit=1'))).items).toHaveLength(1);
    expect((await json(ctx.gateway.request('/api/eval/runs?suite=no-such-suite'))).items).toEqual([]);
    // A viewer reads.
    expect((await ctx.gateway.request(`/api/eval/runs/${enforceRun.id}`, { token: viewer })).status).toBe(200);
  });

  it('answers 404 for an unknown run and 400 for a bad list query', async () => {
    const missing = await ctx.gateway.request('/api/eval/runs/run_nope');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    expect((await ctx.gateway.request('/api/eval/runs?limit=0')).status).toBe(400);
    expect((await ctx.gateway.request('/api/eval/runs?suite=Bad%20Key')).status).toBe(400);
  });

  it('refuses what a run cannot do, and stores nothing', async () => {
    await ctx.gateway.request('/api/eval/suites', { method: 'POST', json: { key: 'empty-suite' } });
    const other = await json(ctx.gateway.request('/api/eval/suites', { method: 'POST', json: { key: 'other-suite' } }));
    expect(other.key).toBe('other-suite');
    await ctx.gateway.request('/api/eval/suites/other-suite/cases', { method: 'POST', json: { input: { text: 'hello' }, expected: { verdict: 'allow' } } });
    const otherRun = await json(startRun({ suite: 'other-suite', scorers: ['verdict'] }));
    expect(otherRun.status).toBe('completed');

    const auditBefore = await auditCount(ctx.gateway);
    const runsBefore = (await json(ctx.gateway.request('/api/eval/runs?limit=200'))).items.length;
    const cases: Array<[unknown, number, RegExp?]> = [
      [{ suite: 'no-such-suite' }, 404],
      [{ suite: 'empty-suite' }, 422, /no cases/],
      [{ suite: suite.key, scorers: ['no_such_scorer'] }, 422, /unknown scorer/],
      [{ suite: suite.key, scorers: ['exact'], target: { type: 'guard' } }, 422, /does not apply/],
      [{ suite: suite.key, baseline_run_id: 'run_nope' }, 404],
      [{ suite: suite.key, baseline_run_id: otherRun.id }, 422, /not a run of suite/],
      [{ suite: suite.key, target: { type: 'guard', policy: 'no-such-policy', mode: 'enforce' } }, 422, /no bound policy/],
      [{ suite: suite.key, target: { type: 'guard', candidate: 'key: broken\nversion: 1\nrules:\n  - id: x\n    when: { surface: nowhere }\n    effect: explode\n' } }, 422, /line \d+/],
      [{ suite: suite.key, target: { type: 'guard', url: 'http://127.0.0.1:1/v1/chat/completions' } }, 422, /takes no url/],
      [{ suite: suite.key, target: { type: 'http', url: 'http://127.0.0.1:1/v1/chat/completions' } }, 422, /eval_http_targets/],
      [{ suite: suite.key, target: { type: 'model' } }, 422, /needs model/],
      [{ suite: suite.key, target: { type: 'model', model: 'gpt-4o-mini' } }, 422, /upstream_openai_api_key/],
      [{}, 400],
      [{ suite: suite.key, surprise: true }, 400],
      [{ suite: suite.key, target: { type: 'teleport' } }, 400],
      [{ suite: suite.key, runner: 'sometimes' }, 400],
      [{ suite: suite.key, scorers: 'verdict' }, 400],
    ];
    for (const [body, status, detail] of cases) {
      const response = await startRun(body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      if (detail !== undefined) expect(JSON.stringify(await response.json())).toMatch(detail);
    }
    // A viewer may read runs but not start one.
    expect((await startRun({ suite: suite.key }, viewer)).status).toBe(403);
    expect((await startRun({ suite: suite.key }, null as unknown as string)).status).toBe(401);
    expect(await auditCount(ctx.gateway)).toBe(auditBefore);
    expect((await json(ctx.gateway.request('/api/eval/runs?limit=200'))).items).toHaveLength(runsBefore);
  });

  it('defaults a guard run to the verdict and entities scorers and the live policies', async () => {
    const run = await json(startRun({ suite: suite.key }));
    expect(run.status).toBe('completed');
    expect(run.target).toEqual({ type: 'guard', agent: 'eval', surface: 'input' });
    expect(run.scorers.map((spec: any) => spec.name)).toEqual(['verdict', 'entities']);
    expect(run.scorers_summary.map((summary: any) => summary.scorer)).toEqual(['verdict', 'entities']);
    expect(run.agent).toBe('eval');
  });

  it('keeps NUL and lone surrogates in the target as text on both databases', async () => {
    const response = await startRun({ suite: suite.key, target: { type: 'guard', agent: 'odd\u0000agent\ud800' }, scorers: ['verdict'] });
    expect(response.status).toBe(201);
    const run: any = await response.json();
    expect(run.status).toBe('completed');
    expect(run.agent).toBe('odd\ufffdagent\ufffd');
    expect((await json(ctx.gateway.request(`/api/eval/runs/${run.id}`))).target.agent).toBe('odd\u0000agent\ud800');
  });

  it('answers malformed requests to every run and gate route with a 4xx problem, changing nothing', async () => {
    const before = await auditCount(ctx.gateway);
    for (const prefix of ['/api/eval/runs', '/api/eval/gate']) {
      const { failures, operations } = await malformedRequestFailures(ctx.gateway, prefix);
      expect(operations).toBeGreaterThan(0);
      expect(failures).toEqual([]);
    }
    expect(await auditCount(ctx.gateway)).toBe(before);
  }, 120_000);
});
