// SLOs over online results over HTTP on both engines: the upsert (201 new, 200 changed, audited),
// attainment, error budget and burn from known results (annotations counted, offline results
// not), the status of each, roles and bad input.
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../../test/helpers/gateway.js';
import { newId } from '../../../infra/lib/ids.js';

const DAY_MS = 86_400_000;

/** Online results of `agent` and `scorer`, `daysAgo` days before the gateway's now. */
async function results(
  gateway: TestGateway,
  input: { agent: string; scorer: string; daysAgo: number; passed: number; failed: number; annotation?: 'pass' | 'fail'; offline?: boolean },
) {
  const at = new Date(gateway.clock.now().getTime() - input.daysAgo * DAY_MS).toISOString();
  const rows = Array.from({ length: input.passed + input.failed }, (_, index) => ({
    id: newId('res'),
    run_id: 'run_slo_test',
    output_id: newId('out'),
    case_id: input.offline === true ? newId('case') : null,
    decision_id: input.offline === true ? null : newId('dec'),
    agent: input.agent,
    at,
    scorer: input.scorer,
    score: index < input.passed ? 1 : 0,
    passed: index < input.passed ? 1 : 0,
    threshold: null,
    reason: 'seeded',
    annotation: input.annotation ?? null,
    annotation_note: input.annotation === undefined ? null : 'seeded',
    annotated_by: input.annotation === undefined ? null : 'tester',
    annotated_at: input.annotation === undefined ? null : at,
  }));
  if (rows.length > 0) await gateway.store.db.insertInto('eval_results').values(rows).execute();
}

async function save(gateway: TestGateway, body: Record<string, unknown>, token?: string | null) {
  const response = await gateway.request('/api/eval/slos', { method: 'POST', json: body, ...(token === undefined ? {} : { token }) });
  return { status: response.status, body: await json(response) };
}

async function list(gateway: TestGateway, query = '') {
  const response = await gateway.request(`/api/eval/slos${query}`);
  expect(response.status).toBe(200);
  return (await json(response)).items as any[];
}

async function sloAudit(gateway: TestGateway) {
  return gateway.store.db.selectFrom('audit_entries').select(['action', 'target', 'detail']).where('action', '=', 'eval.slo_saved').orderBy('seq').execute();
}

describe.each(DIALECTS)('SLOs over online results (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('saves an SLO with defaults (201), changes it in place (200), audited', async () => {
    const { gateway } = ctx;
    const created = await save(gateway, { agent: 'slo-upsert', scorer: 'verdict' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^slo_/),
      agent: 'slo-upsert',
      scorer: 'verdict',
      objective: 'pass_rate',
      window: '28d',
      target: 0.95,
      n: 0,
      attainment: null,
      status: 'no_data',
      budget_consumed: null,
      budget_remaining: null,
      burn_rate_1d: null,
    });
    expect(created.body.error_budget).toBeCloseTo(0.05, 12);

    const same = await save(gateway, { agent: 'slo-upsert', scorer: 'verdict', window: '28d', objective: 'pass_rate', target: 0.95 });
    expect(same.status).toBe(200);
    expect(same.body.id).toBe(created.body.id);
    expect(await sloAudit(gateway)).toHaveLength(1);

    gateway.clock.advance(1000);
    const changed = await save(gateway, { agent: 'slo-upsert', scorer: 'verdict', target: 0.9 });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: created.body.id, target: 0.9, created_at: created.body.created_at });
    expect(changed.body.updated_at > created.body.updated_at).toBe(true);

    const otherWindow = await save(gateway, { agent: 'slo-upsert', scorer: 'verdict', window: '14d', target: 0.9 });
    expect(otherWindow.status).toBe(201);
    expect(otherWindow.body.window).toBe('14d');
    expect(otherWindow.body.id).not.toBe(created.body.id);

    const audit = await sloAudit(gateway);
    expect(audit.map((entry) => entry.target)).toEqual([created.body.id, created.body.id, otherWindow.body.id]);
    expect(JSON.parse(audit[1]?.detail as string)).toMatchObject({ agent: 'slo-upsert', scorer: 'verdict', window: '28d', target: 0.9, previous_target: 0.95, created: false });

    const items = await list(gateway, '?agent=slo-upsert');
    expect(items.map((item) => item.id)).toEqual([otherWindow.body.id, created.body.id]);
    expect(items[1]).toMatchObject({ target: 0.9, window: '28d' });
  });

  it('measures attainment, budget and burn from known results', async () => {
    const { gateway } = ctx;
    const agent = 'slo-measured';
    // verdict: 90 of 100 pass over the window → breached against 0.95.
    await results(gateway, { agent, scorer: 'verdict', daysAgo: 10, passed: 90, failed: 10 });
    // Outside the 28-day window and offline results: not counted.
    await results(gateway, { agent, scorer: 'verdict', daysAgo: 40, passed: 0, failed: 50 });
    await results(gateway, { agent, scorer: 'verdict', daysAgo: 2, passed: 0, failed: 50, offline: true });
    // refusal: met over the window (210 of 220) but the last day fails half: at_risk.
    await results(gateway, { agent, scorer: 'refusal', daysAgo: 10, passed: 200, failed: 0 });
    await results(gateway, { agent, scorer: 'refusal', daysAgo: 0.5, passed: 10, failed: 10 });
    // latency: failures a person annotated as passes count as passes: met, the last day at 1/4 of the budget.
    await results(gateway, { agent, scorer: 'latency', daysAgo: 3, passed: 95, failed: 0 });
    await results(gateway, { agent, scorer: 'latency', daysAgo: 3, passed: 0, failed: 4, annotation: 'pass' });
    await results(gateway, { agent, scorer: 'latency', daysAgo: 0.25, passed: 19, failed: 0 });
    await results(gateway, { agent, scorer: 'latency', daysAgo: 0.25, passed: 1, failed: 0, annotation: 'fail' });

    const verdict = await save(gateway, { agent, scorer: 'verdict', target: 0.95 });
    expect(verdict.body).toMatchObject({ n: 100, attainment: 0.9, status: 'breached', budget_remaining: 0, burn_rate_1d: null });
    expect(verdict.body.budget_consumed).toBeCloseTo(2, 10);

    const refusal = await save(gateway, { agent, scorer: 'refusal', target: 0.95 });
    expect(refusal.body).toMatchObject({ n: 220, status: 'at_risk' });
    expect(refusal.body.attainment).toBeCloseTo(210 / 220, 12);
    expect(refusal.body.budget_consumed).toBeCloseTo(10 / 220 / 0.05, 10);
    expect(refusal.body.budget_remaining).toBeCloseTo(1 - 10 / 220 / 0.05, 10);
    expect(refusal.body.burn_rate_1d).toBeCloseTo(0.5 / 0.05, 10);

    const latency = await save(gateway, { agent, scorer: 'latency', target: 0.8, window: '7d' });
    expect(latency.body).toMatchObject({ n: 119, status: 'met' });
    expect(latency.body.attainment).toBeCloseTo(118 / 119, 12);
    expect(latency.body.burn_rate_1d).toBeCloseTo(1 / 20 / 0.2, 10);

    // A window without results: no_data.
    const empty = await save(gateway, { agent, scorer: 'verdict', window: '1d' });
    expect(empty.body).toMatchObject({ n: 0, attainment: null, status: 'no_data', burn_rate_1d: null });

    const listed = await list(gateway, `?agent=${agent}`);
    expect(listed).toHaveLength(4);
    expect(listed.find((item) => item.id === refusal.body.id)).toEqual(refusal.body);
    // As time passes the last day's failures leave the one-day window: met again.
    gateway.clock.advance(DAY_MS);
    const later = (await list(gateway, `?agent=${agent}`)).find((item) => item.id === refusal.body.id);
    expect(later).toMatchObject({ status: 'met', burn_rate_1d: null });
  });

  it('refuses bad input and changes nothing', async () => {
    const { gateway } = ctx;
    const before = (await list(gateway)).length;
    const auditBefore = (await sloAudit(gateway)).length;
    const bad: Array<[Record<string, unknown>, number]> = [
      [{}, 400],
      [{ agent: 'a' }, 400],
      [{ scorer: 'verdict' }, 400],
      [{ agent: 'a', scorer: 'verdict', window: '0d' }, 400],
      [{ agent: 'a', scorer: 'verdict', window: '91d' }, 400],
      [{ agent: 'a', scorer: 'verdict', window: '07d' }, 400],
      [{ agent: 'a', scorer: 'verdict', window: '7' }, 400],
      [{ agent: 'a', scorer: 'verdict', objective: 'latency' }, 400],
      [{ agent: 'a', scorer: 'verdict', target: 0 }, 400],
      [{ agent: 'a', scorer: 'verdict', target: 1 }, 400],
      [{ agent: 'a', scorer: 'verdict', target: '0.9' }, 400],
      [{ agent: 'a', scorer: 'verdict', extra: 1 }, 400],
      [{ agent: 'a', scorer: 'x'.repeat(65) }, 400],
      [{ agent: 'a', scorer: 'entities' }, 422],
      [{ agent: 'a', scorer: 'no_such_scorer' }, 422],
    ];
    for (const [body, status] of bad) {
      const answer = await save(gateway, body);
      expect({ body, status: answer.status }).toEqual({ body, status });
      expect(answer.body.type).toMatch(/^urn:parapet:problem:/);
    }
    expect((await gateway.request('/api/eval/slos?agent=')).status).toBe(400);
    expect((await list(gateway)).length).toBe(before);
    expect((await sloAudit(gateway)).length).toBe(auditBefore);
    // NUL in the agent is kept as the database can store it, not a 500.
    expect((await save(gateway, { agent: 'nul\u0000agent', scorer: 'verdict' })).status).toBe(201);
  });

  it('needs operator to save and viewer to read', async () => {
    const { gateway } = ctx;
    const mint = async (role: string) => (await json(gateway.request('/api/tokens', { method: 'POST', json: { role, name: `slo-${role}` } }))).token as string;
    const viewer = await mint('viewer');
    const operator = await mint('operator');
    expect((await save(gateway, { agent: 'slo-roles', scorer: 'verdict' }, viewer)).status).toBe(403);
    expect((await save(gateway, { agent: 'slo-roles', scorer: 'verdict' }, null)).status).toBe(401);
    expect((await save(gateway, { agent: 'slo-roles', scorer: 'verdict' }, gateway.trafficToken)).status).toBe(403);
    expect((await save(gateway, { agent: 'slo-roles', scorer: 'verdict' }, operator)).status).toBe(201);
    expect((await gateway.request('/api/eval/slos?agent=slo-roles', { token: viewer })).status).toBe(200);
    expect((await gateway.request('/api/eval/slos', { token: null })).status).toBe(401);
    expect((await gateway.request('/api/eval/slos', { token: gateway.trafficToken })).status).toBe(403);
  });
});
