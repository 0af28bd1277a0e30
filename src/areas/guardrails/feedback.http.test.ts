// The guardrail feedback loop over HTTP on both dialects: labels, suppressions, precision, latency
// and recommendations, on the real gateway (test/helpers/gateway.ts). Checks go through the
// gateway's own pipeline, which leaves suppressed findings out of what it records.
// wired.http.test.ts checks the same loop through /v1/guard.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import type { Decision, GuardCall } from '../../engine/pipeline/decide.js';
import { newId } from '../../infra/lib/ids.js';
import type { TraceRow } from '../../infra/store/tables.js';

const EMAIL_NOTE = 'Customer contact for invoices: jane.doe@example.com';

/** A guard check through the pipeline; answers the decision once it is recorded. */
async function guard(h: TestGateway, agent: string, content: string, surface: GuardCall['surface'] = 'memory_write'): Promise<Decision> {
  const decision = await h.app.services.pipeline.decide({ agent, surface, content });
  await h.app.services.recorder.flush();
  return decision;
}

const post = (h: TestGateway, pathname: string, body: unknown, token?: string) =>
  h.request(pathname, { method: 'POST', json: body, ...(token === undefined ? {} : { token }) });

async function label(h: TestGateway, body: Record<string, unknown>): Promise<any> {
  const response = await post(h, '/api/guardrails/feedback', body);
  expect(response.status, JSON.stringify(await response.clone().json())).toBe(201);
  return response.json();
}

async function getJson(h: TestGateway, pathname: string): Promise<any> {
  const response = await h.request(pathname);
  expect(response.status, pathname).toBe(200);
  return response.json();
}

async function expectProblem(response: Response, status: number, field?: string): Promise<any> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  const body: any = await response.json();
  if (field !== undefined) expect(body.errors.map((item: { field: string }) => item.field)).toContain(field);
  return body;
}

/** A recorded decision written directly, for reports whose figures must be exact. */
function trace(h: TestGateway, row: Partial<TraceRow> & { agent: string }): TraceRow {
  return {
    id: newId('dec'),
    at: h.clock.now().toISOString(),
    subject: 'agent:None',
    surface: 'input',
    tool: null,
    verdict: 'allow',
    effective_verdict: 'allow',
    mode: 'enforce',
    rules: '[]',
    entities: '[]',
    degraded: '[]',
    detectors: '[]',
    latency_ms: 1,
    content_sha256: randomBytes(32).toString('hex'),
    content_length: 10,
    content: null,
    session_id: null,
    trace_id: null,
    environment: null,
    facts: null,
    canary: null,
    ...row,
  };
}

describe.each(DIALECTS)('guardrail feedback over HTTP (%s)', (dialect) => {
  // Generous budgets: a first regex compile must not turn a check into a degraded one here.
  const ctx = withGateway({ dialect, overrides: { enforcement_budget_ms: 10_000, detector_timeout_ms: 5_000 } });
  let h: TestGateway;
  beforeAll(() => {
    h = ctx.gateway;
  });

  it('labels what a decision detected, copying agent, surface and content digest from it (audited)', async () => {
    const decision = await guard(h, 'fb-label', EMAIL_NOTE);
    expect(decision.entities).toContain('PII.EMAIL');
    const feedback = await label(h, { decision_id: decision.decision_id, label: 'false_positive', note: 'a work address, not personal' });
    const recorded = await h.store.db.selectFrom('traces').selectAll().where('id', '=', decision.decision_id).executeTakeFirstOrThrow();
    expect(feedback).toMatchObject({
      decision_id: decision.decision_id,
      label: 'false_positive',
      // Left out, both were taken from the only detection the decision made.
      entity_type: 'PII.EMAIL',
      detector_key: 'pii.native',
      note: 'a work address, not personal',
      agent: 'fb-label',
      surface: 'memory_write',
      content_sha256: recorded.content_sha256,
      status: 'open',
    });
    expect(feedback.id).toMatch(/^gfb_/);
    const audit = await h.store.db.selectFrom('audit_entries').selectAll().where('target', '=', feedback.id).execute();
    expect(audit.map((row) => row.action)).toEqual(['guardrail.feedback']);
    expect(JSON.parse(audit[0]?.detail ?? '{}')).toMatchObject({ decision_id: decision.decision_id, label: 'false_positive', entity_type: 'PII.EMAIL' });
  });

  it('refuses labels that do not fit the decision: 404 unknown decision, 400 entity or detector it did not detect, 409 the same label twice', async () => {
    const decision = await guard(h, 'fb-refuse', EMAIL_NOTE);
    await expectProblem(await post(h, '/api/guardrails/feedback', { decision_id: 'dec_unknown', label: 'true_positive' }), 404);
    await expectProblem(
      await post(h, '/api/guardrails/feedback', { decision_id: decision.decision_id, label: 'false_positive', entity_type: 'PII.PHONE' }),
      400,
      '/body/entity_type',
    );
    await expectProblem(
      await post(h, '/api/guardrails/feedback', { decision_id: decision.decision_id, label: 'true_positive', entity_type: 'PII.EMAIL', detector_key: 'secrets.native' }),
      400,
      '/body/detector_key',
    );
    // A miss is about what was not detected: any entity type goes.
    const missed = await label(h, { decision_id: decision.decision_id, label: 'false_negative', entity_type: 'PII.PHONE' });
    expect(missed).toMatchObject({ label: 'false_negative', entity_type: 'PII.PHONE', detector_key: null });
    await label(h, { decision_id: decision.decision_id, label: 'true_positive', entity_type: 'PII.EMAIL' });
    await expectProblem(await post(h, '/api/guardrails/feedback', { decision_id: decision.decision_id, label: 'true_positive', entity_type: 'PII.EMAIL' }), 409);
    // A decision that detected nothing has no false positive.
    const clean = await guard(h, 'fb-refuse', 'Remember the meeting is on Tuesday.');
    await expectProblem(await post(h, '/api/guardrails/feedback', { decision_id: clean.decision_id, label: 'false_positive' }), 400, '/body/label');
  });

  it('answers malformed bodies and queries with problem+json 400', async () => {
    for (const body of [
      {},
      { decision_id: 'dec_x' },
      { decision_id: 'dec_x', label: 'maybe' },
      { decision_id: 'dec_x', label: 'true_positive', extra: 1 },
      { decision_id: 7, label: 'true_positive' },
      { decision_id: 'dec_x', label: 'true_positive', entity_type: 'lower.case' },
      // PostgreSQL text cannot hold NUL: refused at the edge, never a 500.
      { decision_id: 'dec_x', label: 'true_positive', note: 'a\u0000b' },
      { decision_id: 'dec\u0000x', label: 'true_positive' },
    ]) {
      await expectProblem(await post(h, '/api/guardrails/feedback', body), 400);
    }
    for (const body of [{}, { feedback_id: 'gfb_x', scope: 'team' }, { feedback_id: 'gfb_x', ttl_days: 1.5 }, { feedback_id: 'gfb_x', exact: 'yes' }]) {
      await expectProblem(await post(h, '/api/guardrails/suppressions', body), 400);
    }
    for (const query of ['/api/guardrails/feedback?label=nope', '/api/guardrails/precision?days=0', '/api/guardrails/latency?days=91', '/api/guardrails/recommendations?days=x', '/api/guardrails/suppressions?agent=a%00b']) {
      await expectProblem(await h.request(query), 400);
    }
  });

  it('needs the operator role to label or suppress', async () => {
    const minted = await post(h, '/api/tokens', { name: 'viewer', role: 'viewer' });
    expect(minted.status).toBe(201);
    const viewer = ((await minted.json()) as { token: string }).token;
    expect((await h.request('/api/guardrails/feedback', { token: viewer })).status).toBe(200);
    await expectProblem(await post(h, '/api/guardrails/feedback', { decision_id: 'dec_x', label: 'true_positive' }, viewer), 403);
    await expectProblem(await post(h, '/api/guardrails/suppressions', { feedback_id: 'gfb_x' }, viewer), 403);
  });

  it('lists labels newest first, filtered by label and status, in pages', async () => {
    const decisions = [await guard(h, 'fb-list', `${EMAIL_NOTE} one`), await guard(h, 'fb-list', `${EMAIL_NOTE} two`), await guard(h, 'fb-list', `${EMAIL_NOTE} three`)];
    const made = [];
    for (const decision of decisions) made.push(await label(h, { decision_id: decision.decision_id, label: 'false_positive', note: 'fb-list' }));
    const firstPage = await getJson(h, '/api/guardrails/feedback?label=false_positive&status=open&limit=2');
    expect(firstPage.items).toHaveLength(2);
    expect(firstPage.items.every((item: any) => item.label === 'false_positive' && item.status === 'open')).toBe(true);
    expect(firstPage.items[0].id > firstPage.items[1].id).toBe(true);
    expect(firstPage.items[0].id).toBe(made[2].id);
    const secondPage = await getJson(h, `/api/guardrails/feedback?label=false_positive&status=open&limit=2&cursor=${firstPage.next_cursor}`);
    expect(secondPage.items[0].id).toBe(made[0].id);
    const negatives = await getJson(h, '/api/guardrails/feedback?label=false_negative&limit=500');
    expect(negatives.items.length).toBeGreaterThan(0);
    expect(negatives.items.every((item: any) => item.label === 'false_negative')).toBe(true);
  });

  it('makes suppressions only from false positives, one in force per label; deleting reopens the label', async () => {
    const decision = await guard(h, 'fb-sup', EMAIL_NOTE);
    const positive = await label(h, { decision_id: decision.decision_id, label: 'true_positive' });
    await expectProblem(await post(h, '/api/guardrails/suppressions', { feedback_id: positive.id }), 409);
    await expectProblem(await post(h, '/api/guardrails/suppressions', { feedback_id: 'gfb_unknown' }), 404);

    const other = await guard(h, 'fb-sup', `${EMAIL_NOTE} again`);
    const falsePositive = await label(h, { decision_id: other.decision_id, label: 'false_positive' });
    const created = await post(h, '/api/guardrails/suppressions', { feedback_id: falsePositive.id, ttl_days: 7, exact: true, reason: 'test address' });
    expect(created.status).toBe(201);
    const suppression: any = await created.json();
    expect(suppression).toMatchObject({
      feedback_id: falsePositive.id,
      scope: 'agent',
      agent: 'fb-sup',
      entity_type: 'PII.EMAIL',
      detector_key: 'pii.native',
      content_sha256: falsePositive.content_sha256,
      exact: true,
      reason: 'test address',
      active: true,
      deleted_at: null,
    });
    expect(Date.parse(suppression.expires_at) - Date.parse(suppression.created_at)).toBe(7 * 86_400_000);
    const labelled = await getJson(h, '/api/guardrails/feedback?status=suppressed&limit=500');
    expect(labelled.items.map((item: any) => item.id)).toContain(falsePositive.id);
    await expectProblem(await post(h, '/api/guardrails/suppressions', { feedback_id: falsePositive.id }), 409);

    const forAgent = await getJson(h, '/api/guardrails/suppressions?agent=fb-sup');
    expect(forAgent.items.map((item: any) => item.id)).toContain(suppression.id);
    const forOther = await getJson(h, '/api/guardrails/suppressions?agent=someone-else');
    expect(forOther.items.map((item: any) => item.id)).not.toContain(suppression.id);

    const deleted = await h.request(`/api/guardrails/suppressions/${suppression.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toMatchObject({ id: suppression.id, active: false });
    expect((await getJson(h, '/api/guardrails/suppressions?agent=fb-sup')).items.map((item: any) => item.id)).not.toContain(suppression.id);
    const reopened = await getJson(h, '/api/guardrails/feedback?status=open&limit=500');
    expect(reopened.items.map((item: any) => item.id)).toContain(falsePositive.id);
    await expectProblem(await h.request(`/api/guardrails/suppressions/${suppression.id}`, { method: 'DELETE' }), 409);
    await expectProblem(await h.request('/api/guardrails/suppressions/gsp_unknown', { method: 'DELETE' }), 404);
    const audit = await h.store.db.selectFrom('audit_entries').select('action').where('target', '=', suppression.id).orderBy('seq').execute();
    expect(audit.map((row) => row.action)).toEqual(['guardrail.suppression.create', 'guardrail.suppression.delete']);
  });

  it('a false positive plus a suppression stops the same finding recurring for that agent, not for others, and precision moves', async () => {
    const { pipeline, recorder } = h.app.services;
    // Registered agents: their findings have their own subject (a shadow agent's is agent:None).
    for (const slug of ['reg-e2e-a', 'reg-e2e-b']) expect((await post(h, '/api/agents', { slug, owner_email: 'owner@example.com' })).status).toBe(201);
    const call = (agent: string): GuardCall => ({ agent, surface: 'memory_write', content: EMAIL_NOTE });
    const findingFor = async (agent: string) => {
      await recorder.flush();
      const items = (await getJson(h, '/api/findings?type=guardrail_detection&limit=500')).items.filter((item: any) => item.subject === `agent:${agent}`);
      expect(items.length).toBeLessThanOrEqual(1);
      return items[0];
    };
    const first = await pipeline.decide(call('reg-e2e-a'));
    const raised = await findingFor('reg-e2e-a');
    expect(raised).toMatchObject({ occurrences: 1, evidence: { entity: 'PII.EMAIL', detector: 'pii.native' } });

    const before = await getJson(h, '/api/guardrails/precision?agent=reg-e2e-a');
    expect(before.total).toEqual({ tp: 0, fp: 0, fn: 0, precision: null });
    const feedback = await label(h, { decision_id: first.decision_id, label: 'false_positive' });
    const afterLabel = await getJson(h, '/api/guardrails/precision?agent=reg-e2e-a');
    expect(afterLabel.total).toEqual({ tp: 0, fp: 1, fn: 0, precision: 0 });
    expect(afterLabel.detectors).toEqual([{ detector_key: 'pii.native', tp: 0, fp: 1, fn: 0, precision: 0 }]);
    expect(afterLabel.agents).toEqual([{ agent: 'reg-e2e-a', tp: 0, fp: 1, fn: 0, precision: 0 }]);

    expect((await post(h, '/api/guardrails/suppressions', { feedback_id: feedback.id, scope: 'agent' })).status).toBe(201);
    const again = await pipeline.decide(call('reg-e2e-a'));
    // The verdict is unchanged: a suppression is about findings only.
    expect(again.verdict).toBe(first.verdict);
    expect(await findingFor('reg-e2e-a')).toMatchObject({ id: raised.id, occurrences: 1 });
    // Another agent still raises it.
    await pipeline.decide(call('reg-e2e-b'));
    expect(await findingFor('reg-e2e-b')).toMatchObject({ occurrences: 1, evidence: { entity: 'PII.EMAIL' } });

    const secondDecision = await pipeline.decide({ ...call('reg-e2e-a'), content: 'Store: my private address is joe@example.org' });
    await recorder.flush();
    await label(h, { decision_id: secondDecision.decision_id, label: 'true_positive' });
    expect((await getJson(h, '/api/guardrails/precision?agent=reg-e2e-a')).total).toEqual({ tp: 1, fp: 1, fn: 0, precision: 0.5 });
  });

  it('reports detector latency per detector and per agent, leaving out cached answers and counting degraded runs', async () => {
    const agent = 'fb-latency';
    const runs = (ms: number[], statuses: string[] = []) =>
      JSON.stringify([
        ...ms.map((value) => ({ key: 'pii.native', status: 'ok', matched: false, ms: value })),
        ...statuses.map((status) => ({ key: 'injection.heuristic', status, matched: false, ms: status === 'skipped_budget' ? 0 : 40 })),
        { key: 'secrets.native', status: 'ok', matched: false, ms: 0, cached: true },
      ]);
    const rows = [
      trace(h, { agent, detectors: runs([1, 2]) }),
      trace(h, { agent, detectors: runs([3, 4], ['ok']) }),
      trace(h, { agent, detectors: runs([5, 6, 7, 8, 9, 10], ['timeout', 'skipped_budget']) }),
      // Outside the window.
      trace(h, { agent, at: new Date(h.clock.now().getTime() - 8 * 86_400_000).toISOString(), detectors: runs([500]) }),
    ];
    await h.store.db.insertInto('traces').values(rows).execute();
    const report = await getJson(h, `/api/guardrails/latency?agent=${agent}`);
    expect(report).toMatchObject({ days: 7, agent, decisions: 3, sampled: false });
    const pii = report.detectors.find((item: any) => item.detector_key === 'pii.native');
    expect(pii).toEqual({ detector_key: 'pii.native', runs: 10, p50_ms: 5, p95_ms: 10, max_ms: 10, degraded: 0, degraded_rate: 0, statuses: { ok: 10 } });
    const injection = report.detectors.find((item: any) => item.detector_key === 'injection.heuristic');
    // The skipped run has no time: percentiles are over the two that ran.
    expect(injection).toMatchObject({ runs: 3, max_ms: 40, degraded: 2, degraded_rate: 0.6667, statuses: { ok: 1, timeout: 1, skipped_budget: 1 } });
    expect(report.detectors.find((item: any) => item.detector_key === 'secrets.native')).toBeUndefined();
    expect(report.agents).toEqual([expect.objectContaining({ agent, decisions: 3, degraded_decisions: 1, runs: 13, degraded: 2, max_ms: 40 })]);
    // Real traffic shows up too, without the agent filter.
    await guard(h, 'fb-latency-live', 'hello there');
    const all = await getJson(h, '/api/guardrails/latency?days=1');
    expect(all.agents.map((item: any) => item.agent)).toEqual(expect.arrayContaining([agent, 'fb-latency-live']));
  });

  it('recommends a min_score that removes most false positives and keeps the true positives, and narrowing a rule for one agent', async () => {
    const rule = (entity: string, score: number) =>
      JSON.stringify([{ rule_id: 'pii.custom_phone', pack: 'custom', effect: 'escalate', mode: 'enforce', message: 'phone', entity, score, detector: 'pii.native' }]);
    const make = (agent: string, score: number) =>
      trace(h, {
        agent,
        surface: 'memory_write',
        rules: rule('PII.PHONE', score),
        entities: '["PII.PHONE"]',
        facts: JSON.stringify({ s: 'memory_write', a: agent, d: [['PII.PHONE', score, 'pii.native']] }),
      });
    const falsePositives = [0.3, 0.35, 0.4, 0.45].map((score) => make('fb-rec-noisy', score));
    const truePositives = [0.8, 0.9].map((score) => make('fb-rec-quiet', score));
    await h.store.db.insertInto('traces').values([...falsePositives, ...truePositives]).execute();
    for (const row of falsePositives) await label(h, { decision_id: row.id, label: 'false_positive' });
    for (const row of truePositives) await label(h, { decision_id: row.id, label: 'true_positive' });

    const { items, thresholds } = await getJson(h, '/api/guardrails/recommendations');
    expect(thresholds).toEqual({ min_labels: 5, precision_below: 0.8, min_rule_false_positives: 3, agent_share: 0.8 });
    const threshold = items.find((item: any) => item.kind === 'raise_min_score' && item.entity_type === 'PII.PHONE');
    expect(threshold).toMatchObject({
      detector_key: 'pii.native',
      evidence: { tp: 2, fp: 4, precision: 0.3333, fp_removed: 4, tp_kept: 2, precision_after: 1 },
      change: { rule_ids: ['pii.custom_phone'], when: { entity: 'PII.PHONE', min_score: 0.8 } },
    });
    const narrow = items.find((item: any) => item.kind === 'narrow_rule' && item.rule_id === 'pii.custom_phone');
    expect(narrow).toMatchObject({
      agent: 'fb-rec-noisy',
      evidence: { fp: 4, fp_for_agent: 4, share: 1, tp_agents: ['fb-rec-quiet'] },
      change: { suppression: { body: { scope: 'agent' } }, agent_condition: { rule_id: 'pii.custom_phone', when: { agent: ['fb-rec-quiet'] } } },
    });
    // The suggested suppression body is one that POST accepts.
    expect((await post(h, '/api/guardrails/suppressions', narrow.change.suppression.body)).status).toBe(201);
    const precision = await getJson(h, '/api/guardrails/precision?agent=fb-rec-noisy');
    expect(precision.entities).toEqual([{ detector_key: 'pii.native', entity_type: 'PII.PHONE', tp: 0, fp: 4, fn: 0, precision: 0 }]);
  });
});
