// GET /api/onboarding on both engines: a fresh install does the steps one by one through the API
// and the checklist moves item by item; role checks.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';

type Item = { key: string; done: boolean; state: string; done_at: string | null; reason: string | null; how: string };

describe.each(DIALECTS)('onboarding (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  const checklist = async (token?: string) => {
    const response = await ctx.gateway.request('/api/onboarding', token === undefined ? {} : { token });
    expect(response.status).toBe(200);
    return (await response.json()) as { items: Item[]; done_count: number; total: number; next: Item | null };
  };
  const item = (list: { items: Item[] }, key: string) => list.items.find((entry) => entry.key === key) as Item;

  it('moves item by item as the install is done through the API', async () => {
    const gateway = ctx.gateway;
    let list = await checklist();
    expect(list.total).toBe(10);
    for (const entry of list.items) expect(entry.how.length).toBeGreaterThan(0);
    // The test gateway starts with an admin token from the environment and a traffic token.
    expect(item(list, 'admin_token_rotated')).toMatchObject({ done: false, state: 'todo', reason: expect.stringContaining('bootstrap') });
    expect(item(list, 'admin_token_rotated').how).toContain('parapet admin token create');
    expect(item(list, 'traffic_token_minted')).toMatchObject({ done: true, done_at: expect.any(String) });
    expect(item(list, 'detectors_available')).toMatchObject({ done: true });
    for (const key of ['agent_registered', 'decision_recorded', 'baseline_enforced', 'grant_approved', 'audit_checkpoint_signed', 'evidence_package_built', 'controls_computed']) {
      expect(item(list, key), key).toMatchObject({ done: false, state: 'todo', done_at: null });
    }
    expect(list.next?.key).toBe('admin_token_rotated');
    let count = list.done_count;

    const step = async (key: string) => {
      list = await checklist();
      expect(item(list, key), key).toMatchObject({ done: true, state: 'done', reason: null });
      expect(list.done_count).toBe(count + 1);
      count = list.done_count;
    };

    expect((await gateway.request('/api/tokens', { method: 'POST', json: { name: 'my admin', role: 'admin' } })).status).toBe(201);
    await step('admin_token_rotated');
    expect(list.next?.key).toBe('agent_registered');

    const agent = await json(gateway.request('/api/agents', { method: 'POST', json: { slug: 'first-bot', owner_email: 'o@example.com', purpose: 'answers', declared_tools: ['lookup'] } }));
    await step('agent_registered');

    expect((await gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'first-bot', content: 'hello' } })).status).toBe(200);
    await gateway.app.services.recorder.flush();
    await step('decision_recorded');
    expect(list.next?.key).toBe('baseline_enforced');
    expect(list.next?.how).toContain('parapet policy mode baseline enforce');

    expect((await gateway.request('/api/policies/baseline/mode', { method: 'POST', json: { mode: 'enforce' } })).status).toBe(200);
    await step('baseline_enforced');

    const granted = await gateway.request(`/api/identities/${agent.identity_id}/capabilities`, { method: 'POST', json: { tool_key: 'lookup', actions: ['read'] } });
    expect(granted.status).toBe(201);
    await step('grant_approved');

    expect((await gateway.request('/api/audit/checkpoint', { method: 'POST', json: {} })).status).toBe(201);
    await step('audit_checkpoint_signed');

    expect((await gateway.request('/api/evidence', { method: 'POST', json: {} })).status).toBe(201);
    await step('evidence_package_built');

    expect((await gateway.request('/api/controls/compute', { method: 'POST', json: {} })).status).toBe(200);
    await step('controls_computed');
    expect(list.done_count).toBe(list.total);
    expect(list.next).toBeNull();
  });

  it('lets a viewer read it and refuses without a credential', async () => {
    const viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer' } }))).token;
    expect((await checklist(viewer)).total).toBe(10);
    expect((await ctx.gateway.request('/api/onboarding', { token: null })).status).toBe(401);
    expect((await ctx.gateway.request('/api/onboarding', { token: ctx.gateway.trafficToken })).status).toBe(403);
  });

  // Last: it drops a table. A database without compliance's table still answers, with the item unknown.
  it('leaves controls_computed unknown, with a reason, when control_results does not exist', async () => {
    await sql`drop table control_results`.execute(ctx.gateway.store.db);
    const list = await checklist();
    expect(item(list, 'controls_computed')).toMatchObject({ done: false, state: 'unknown', done_at: null, reason: expect.stringContaining('control_results') });
  });
});
