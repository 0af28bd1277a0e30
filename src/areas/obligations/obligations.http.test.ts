// The obligations calendar over HTTP with the test clock: framework dates from the obligations table
// (or the catalogue file for rows it lacks), and what the deployment's records make due: the checkpoint
// cadence, the evidence period, suppressions that expire and legal holds to review; overdue first.
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Item {
  key: string;
  title: string;
  due_at: string;
  source: string;
  status: 'overdue' | 'due_soon' | 'upcoming';
  detail: Record<string, unknown>;
}
const RANK = { overdue: 0, due_soon: 1, upcoming: 2 };

describe.each(DIALECTS)('GET /api/obligations (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { detector_timeout_ms: 10_000, enforcement_budget_ms: 20_000, request_budget_ms: 20_000 } });

  const obligations = async (query = ''): Promise<{ items: Item[]; summary: Record<string, number> }> => {
    const response = await ctx.gateway.request(`/api/obligations${query}`);
    expect(response.status).toBe(200);
    return response.json() as Promise<{ items: Item[]; summary: Record<string, number> }>;
  };
  const find = (items: Item[], key: string) => items.find((item) => item.key === key);
  const expectOrdered = (items: Item[]) => {
    for (let i = 1; i < items.length; i += 1) {
      const [a, b] = [items[i - 1] as Item, items[i] as Item];
      expect(RANK[a.status] < RANK[b.status] || (RANK[a.status] === RANK[b.status] && a.due_at <= b.due_at)).toBe(true);
    }
  };

  it('lists framework dates from the obligations table, and from the catalogue file for rows it lacks', async () => {
    const now = ctx.gateway.clock.now().getTime();
    // The gateway loads the catalogue into the table at start (POST /api/controls/sync does it again).
    const loaded = await obligations('?include_past=true');
    const annex = find(loaded.items, 'eu-ai-act.annex-i');
    expect(annex).toMatchObject({ source: 'eu-ai-act', due_at: '2027-08-02T00:00:00.000Z' });
    expect(annex?.detail.loaded).toBeUndefined();
    // One-off dates that have passed apply now: listed (as overdue) only when asked for.
    const past = loaded.items.filter((item) => item.source === 'eu-ai-act' && Date.parse(item.due_at) <= now);
    expect(past.length).toBeGreaterThan(0);
    for (const item of past) expect(item.status).toBe('overdue');
    const current = await obligations();
    expect(current.items.filter((item) => item.source === 'eu-ai-act' && Date.parse(item.due_at) <= now)).toEqual([]);
    expect(find(current.items, 'eu-ai-act.annex-i')?.status).toBe(Date.parse('2027-08-02') - now <= 14 * DAY ? 'due_soon' : 'upcoming');

    await ctx.gateway.store.db.deleteFrom('obligations').where('key', '=', 'eu-ai-act.annex-i').execute();
    const fromFile = find((await obligations()).items, 'eu-ai-act.annex-i');
    expect(fromFile).toMatchObject({ due_at: '2027-08-02T00:00:00.000Z', source: 'eu-ai-act' });
    expect(fromFile?.detail.loaded).toBe(false);
    await ctx.gateway.store.db.deleteFrom('obligations').execute();
    expect(find((await obligations('?include_past=true')).items, 'eu-ai-act.prohibitions')?.detail.loaded).toBe(false);
  });

  it('shows the checkpoint and evidence obligations overdue until their records exist, then the cadence', async () => {
    const fresh = await obligations();
    expect(find(fresh.items, 'audit.checkpoint')).toMatchObject({ status: 'overdue', source: 'deployment' });
    expect(find(fresh.items, 'evidence.package')?.status).toBe('overdue');
    expect(fresh.items[0]?.status).toBe('overdue');
    expectOrdered(fresh.items);

    expect((await ctx.gateway.request('/api/audit/checkpoint', { method: 'POST', json: {} })).status).toBe(201);
    const signed = find((await obligations()).items, 'audit.checkpoint') as Item;
    expect(signed.status).toBe('due_soon');
    const signedAt = Date.parse(signed.detail.last_checkpoint_at as string);
    expect(Date.parse(signed.due_at)).toBe(signedAt + 24 * HOUR);

    ctx.gateway.clock.advance(25 * HOUR);
    const late = await obligations();
    expect(find(late.items, 'audit.checkpoint')?.status).toBe('overdue');
    expectOrdered(late.items);
  });

  it('shows a suppression with a TTL at its expiry and an active legal hold at its review', async () => {
    const gateway = ctx.gateway;
    const decision = await gateway.app.services.pipeline.decide({ agent: 'ob-agent', surface: 'memory_write', content: 'Customer contact for invoices: jane.doe@example.com' });
    await gateway.app.services.recorder.flush();
    const feedback = await json(gateway.request('/api/guardrails/feedback', { method: 'POST', json: { decision_id: decision.decision_id, label: 'false_positive' } }));
    const suppression = await json(gateway.request('/api/guardrails/suppressions', { method: 'POST', json: { feedback_id: feedback.id, ttl_days: 7 } }));
    expect(typeof suppression.expires_at).toBe('string');
    const hold = await json(gateway.request('/api/legal-holds', { method: 'POST', json: { name: 'ob-hold', reason: 'a dispute' } }));

    const body = await obligations();
    const expiring = find(body.items, `suppression.expires:${suppression.id}`);
    expect(expiring).toMatchObject({ status: 'due_soon', source: 'deployment', due_at: new Date(suppression.expires_at).toISOString() });
    expect(expiring?.detail).toMatchObject({ suppression_id: suppression.id, agent: 'ob-agent' });
    const review = find(body.items, `legal_hold.review:${hold.id}`);
    expect(review?.status).toBe('upcoming');
    expect(Date.parse(review?.due_at ?? '')).toBe(Date.parse(hold.created_at) + 90 * DAY);
    expectOrdered(body.items);

    // Past its expiry the suppression no longer applies: nothing is due.
    gateway.clock.advance(8 * DAY);
    expect(find((await obligations()).items, `suppression.expires:${suppression.id}`)).toBeUndefined();
  });

  it("shows each agent's next risk review from its newest assessment", async () => {
    const gateway = ctx.gateway;
    const agent = await gateway.request('/api/agents', { method: 'POST', json: { slug: 'ob-risky', name: 'Ob risky', purpose: 'Answers questions about invoices', owner_team: 'finance' } });
    expect(agent.status).toBe(201);
    const body = { eu_ai_act_class: 'limited', inherent_risk: 'medium', residual_risk: 'low', answers: { note: 'test' }, review_months: 12 };
    expect((await gateway.request('/api/risk/assessments/ob-risky', { method: 'POST', json: body })).status).toBe(201);
    gateway.clock.advance(HOUR);
    const newest = await json(gateway.request('/api/risk/assessments/ob-risky', { method: 'POST', json: { ...body, review_months: 1 } }));
    const review = (await obligations()).items.filter((item) => item.key === 'risk.review:ob-risky');
    expect(review).toHaveLength(1);
    expect(review[0]).toMatchObject({ source: 'deployment', due_at: new Date(newest.next_review_at).toISOString(), status: 'upcoming' });
    gateway.clock.advance(40 * DAY);
    expect(find((await obligations()).items, 'risk.review:ob-risky')?.status).toBe('overdue');
  });

  it('answers viewers, refuses the anonymous and traffic tokens, and checks the query', async () => {
    const viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'ob-viewer', role: 'viewer' } }))).token as string;
    expect((await ctx.gateway.request('/api/obligations', { token: viewer })).status).toBe(200);
    expect((await ctx.gateway.request('/api/obligations', { token: null })).status).toBe(401);
    expect((await ctx.gateway.request('/api/obligations', { token: ctx.gateway.trafficToken })).status).toBe(403);
    for (const query of ['?due_soon_days=0', '?due_soon_days=366', '?include_past=maybe']) {
      const response = await ctx.gateway.request(`/api/obligations${query}`);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
  });
});
