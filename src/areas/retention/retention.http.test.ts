// Retention and legal holds over HTTP with the test clock: content is cleared after
// retention_trace_content_days, records deleted after retention_traces_days, expired memory after
// retention_memory_days, OTLP spans after retention_traces_days — except what a legal hold covers,
// until it is released.
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';

const DAY = 86_400_000;

async function decide(gateway: TestGateway, agent: string, content: string): Promise<string> {
  const response = await gateway.request('/v1/guard/input', { method: 'POST', json: { agent, content } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { decision_id: string }).decision_id;
}

/** A memory write: an entry that expires in a minute, and (like every check) a decision record. */
async function remember(gateway: TestGateway, agent: string): Promise<string> {
  const response = await gateway.request('/v1/guard/memory_write', { method: 'POST', json: { agent, content: `note of ${agent}`, ttl_seconds: 60 } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { decision_id: string }).decision_id;
}

async function auditActions(gateway: TestGateway): Promise<Array<{ action: string; target: string | null; actor: string }>> {
  return gateway.store.db.selectFrom('audit_entries').select(['action', 'target', 'actor']).where('action', 'like', 'legal_hold.%').orderBy('seq').execute();
}

describe.each(DIALECTS)('retention and legal holds (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { detector_timeout_ms: 10_000, enforcement_budget_ms: 20_000, request_budget_ms: 20_000 } });
  let viewer: string;
  let operator: string;
  const ids = { held_by_period: '', held_by_agent: '', other: '', plain: '', memory_held: '', memory_plain: '' };
  let periodStart = '';
  let periodEnd = '';

  const trace = async (id: string) => {
    const response = await ctx.gateway.request(`/api/traces/${id}`);
    return response.status === 404 ? null : ((await response.json()) as { content: string | null });
  };
  const memoryAgents = async () =>
    (await ctx.gateway.store.db.selectFrom('memory_entries').select('agent').orderBy('agent').execute()).map((row) => row.agent);
  const sweep = () => ctx.gateway.app.services.retention.sweep();
  const createHold = async (body: Record<string, unknown>, token?: string) =>
    ctx.gateway.request('/api/legal-holds', { method: 'POST', json: body, ...(token === undefined ? {} : { token }) });

  beforeAll(async () => {
    const gateway = ctx.gateway;
    // Ten years: the clock moves more than a year forward below.
    viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer', ttl_days: 3650 } }))).token;
    operator = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'ops', role: 'operator', ttl_days: 3650 } }))).token;
    // Two days apart: the period hold covers the first decision only.
    const first = gateway.clock.now().getTime();
    ids.held_by_period = await decide(gateway, 'rt-other', 'hello from the first day');
    periodStart = new Date(first - 3_600_000).toISOString();
    periodEnd = new Date(gateway.clock.now().getTime() + 3_600_000).toISOString();
    gateway.clock.advance(2 * DAY);
    ids.held_by_agent = await decide(gateway, 'keep-me', 'hello from keep-me');
    ids.other = await decide(gateway, 'rt-other', 'hello again later');
    ids.plain = await decide(gateway, 'rt-plain', 'hello from plain');
    ids.memory_held = await remember(gateway, 'keep-me');
    ids.memory_plain = await remember(gateway, 'rt-plain');
    await gateway.app.services.recorder.flush();
    await gateway.app.services.memory.flush();
  });

  it('shows the settings, no holds and nothing to remove yet', async () => {
    const retention = await json(ctx.gateway.request('/api/retention', { token: viewer }));
    expect(retention).toEqual({
      settings: { retention_trace_content_days: 30, retention_traces_days: 365, retention_memory_days: 90, retention_sweep_ms: 3_600_000 },
      legal_holds: [],
      next_sweep: { content_cleared: 0, traces_deleted: 0, memory_deleted: 0, spans_deleted: 0, held: 0 },
      last_sweep: null,
    });
    expect(await sweep()).toEqual({ content_cleared: 0, traces_deleted: 0, memory_deleted: 0, spans_deleted: 0, held: 0 });
  });

  it('lets an admin alone place a hold: validated, audited, listed', async () => {
    const auditBefore = (await auditActions(ctx.gateway)).length;
    const forOperator = await createHold({ scope: { agents: ['keep-me'] }, reason: 'litigation' }, operator);
    expect(forOperator.status).toBe(403);
    expect((await createHold({ scope: {}, reason: 'x' }, viewer)).status).toBe(403);
    for (const bad of [
      { scope: { agents: ['keep-me'] } },
      { scope: { agents: ['keep-me'], team: 'x' }, reason: 'r' },
      { scope: { from: 'not-a-date' }, reason: 'r' },
      { scope: { from: '2026-02-30' }, reason: 'r' },
      { scope: { from: '2026-11-21', to: '2026-11-01' }, reason: 'r' },
      { scope: { agents: [] }, reason: 'r' },
      { scope: 'everything', reason: 'r' },
      { reason: 'r', colour: 'blue' },
    ]) {
      const response = await createHold(bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect((await auditActions(ctx.gateway)).length).toBe(auditBefore);

    const byAgent = await createHold({ scope: { agents: ['keep-me'] }, reason: 'litigation: keep-me', name: 'Case 42' });
    expect(byAgent.status).toBe(201);
    const agentHold = (await byAgent.json()) as any;
    expect(agentHold).toMatchObject({ name: 'Case 42', reason: 'litigation: keep-me', scope: { agents: ['keep-me'] }, active: true, released_at: null });
    expect(agentHold.id).toMatch(/^hold_/);
    const byPeriod = await json(createHold({ scope: { from: periodStart, to: periodEnd }, reason: 'audit of the first day' }));
    expect(byPeriod.scope).toEqual({ from: periodStart, to: periodEnd });
    expect(byPeriod.name).toContain('every agent');

    const actions = await auditActions(ctx.gateway);
    expect(actions.slice(auditBefore).map(({ action, target }) => ({ action, target }))).toEqual([
      { action: 'legal_hold.create', target: agentHold.id },
      { action: 'legal_hold.create', target: byPeriod.id },
    ]);
    const listed = await json(ctx.gateway.request('/api/legal-holds?active=true', { token: viewer }));
    expect(listed.items.map((hold: { id: string }) => hold.id)).toEqual([byPeriod.id, agentHold.id]);
    const paged = await json(ctx.gateway.request('/api/legal-holds?limit=1', { token: viewer }));
    expect(paged.items).toHaveLength(1);
    expect(paged.next_cursor).not.toBeNull();
    expect((await json(ctx.gateway.request('/api/legal-holds?active=false', { token: viewer }))).items).toEqual([]);
  });

  it('clears content after retention_trace_content_days, except what a hold covers', async () => {
    ctx.gateway.clock.advance(31 * DAY);
    const view = await json(ctx.gateway.request('/api/retention', { token: viewer }));
    expect(view.legal_holds).toHaveLength(2);
    // Cleared: rt-other's later decision, rt-plain's and its memory write; held: the first day's, keep-me's two.
    expect(view.next_sweep).toEqual({ content_cleared: 3, traces_deleted: 0, memory_deleted: 0, spans_deleted: 0, held: 3 });
    expect(await sweep()).toEqual({ content_cleared: 3, traces_deleted: 0, memory_deleted: 0, spans_deleted: 0, held: 3 });
    expect((await trace(ids.other))?.content).toBeNull();
    expect((await trace(ids.plain))?.content).toBeNull();
    expect((await trace(ids.memory_plain))?.content).toBeNull();
    expect((await trace(ids.memory_held))?.content).not.toBeNull();
    expect((await trace(ids.held_by_agent))?.content).toBe('hello from keep-me');
    expect((await trace(ids.held_by_period))?.content).toBe('hello from the first day');
    const after = await json(ctx.gateway.request('/api/retention', { token: viewer }));
    expect(after.next_sweep).toEqual({ content_cleared: 0, traces_deleted: 0, memory_deleted: 0, spans_deleted: 0, held: 3 });
    expect(after.last_sweep).toMatchObject({ content_cleared: 3, held: 3 });
  });

  it('deletes records after retention_traces_days and old expired memory, except what a hold covers', async () => {
    ctx.gateway.clock.advance(335 * DAY);
    // Held: three decision records and keep-me's memory entry.
    expect(await sweep()).toEqual({ content_cleared: 0, traces_deleted: 3, memory_deleted: 1, spans_deleted: 0, held: 4 });
    expect(await trace(ids.other)).toBeNull();
    expect(await trace(ids.plain)).toBeNull();
    expect(await trace(ids.memory_plain)).toBeNull();
    expect(await trace(ids.memory_held)).not.toBeNull();
    expect(await trace(ids.held_by_agent)).not.toBeNull();
    expect(await trace(ids.held_by_period)).not.toBeNull();
    expect(await memoryAgents()).toEqual(['keep-me']);
  });

  it('applies retention to what a hold kept once it is released; a second release is a 409', async () => {
    const holds = (await json(ctx.gateway.request('/api/legal-holds?active=true'))).items as Array<{ id: string; scope: { agents?: string[] } }>;
    const agentHold = holds.find((hold) => hold.scope.agents !== undefined)!;
    const periodHold = holds.find((hold) => hold.scope.agents === undefined)!;
    const release = (id: string, token?: string) =>
      ctx.gateway.request(`/api/legal-holds/${id}/release`, { method: 'POST', json: { reason: 'case closed' }, ...(token === undefined ? {} : { token }) });

    expect((await release(agentHold.id, operator)).status).toBe(403);
    const released = await release(agentHold.id);
    expect(released.status).toBe(200);
    expect(await released.json()).toMatchObject({ id: agentHold.id, active: false, released_by: expect.stringMatching(/^admin \(tok_/) });
    const again = await release(agentHold.id);
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await release('hold_00000000000000000000000000')).status).toBe(404);

    const view = await json(ctx.gateway.request('/api/retention', { token: viewer }));
    expect(view.legal_holds.map((hold: { id: string }) => hold.id)).toEqual([periodHold.id]);
    expect(view.next_sweep).toEqual({ content_cleared: 0, traces_deleted: 2, memory_deleted: 1, spans_deleted: 0, held: 1 });
    expect(await sweep()).toEqual({ content_cleared: 0, traces_deleted: 2, memory_deleted: 1, spans_deleted: 0, held: 1 });
    expect(await trace(ids.held_by_agent)).toBeNull();
    expect(await trace(ids.memory_held)).toBeNull();
    expect(await trace(ids.held_by_period)).not.toBeNull();
    expect(await memoryAgents()).toEqual([]);

    expect((await release(periodHold.id)).status).toBe(200);
    expect(await sweep()).toEqual({ content_cleared: 0, traces_deleted: 1, memory_deleted: 0, spans_deleted: 0, held: 0 });
    expect(await trace(ids.held_by_period)).toBeNull();

    const releases = (await auditActions(ctx.gateway)).filter((entry) => entry.action === 'legal_hold.release');
    expect(releases.map((entry) => entry.target)).toEqual([agentHold.id, periodHold.id]);
    expect((await json(ctx.gateway.request('/api/legal-holds?active=false', { token: viewer }))).items).toHaveLength(2);
  });

  it('keeps everything while a hold with an empty scope is in force', async () => {
    const id = await decide(ctx.gateway, 'rt-late', 'a late hello');
    await ctx.gateway.app.services.recorder.flush();
    const hold = await json(createHold({ reason: 'preserve everything' }));
    expect(hold.scope).toEqual({});
    ctx.gateway.clock.advance(400 * DAY);
    expect(await sweep()).toEqual({ content_cleared: 0, traces_deleted: 0, memory_deleted: 0, spans_deleted: 0, held: 1 });
    expect((await trace(id))?.content).toBe('a late hello');
    await ctx.gateway.request(`/api/legal-holds/${hold.id}/release`, { method: 'POST', json: {} });
    expect(await sweep()).toEqual({ content_cleared: 0, traces_deleted: 1, memory_deleted: 0, spans_deleted: 0, held: 0 });
  });
});

describe.each(DIALECTS)('retention sweep timer (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { retention_sweep_ms: 1000, retention_traces_days: 40, retention_trace_content_days: 0 } });

  it('keeps content with retention_trace_content_days 0, and sweeps every retention_sweep_ms by itself', async () => {
    const id = await decide(ctx.gateway, 'rt-timer', 'hello timer');
    await ctx.gateway.app.services.recorder.flush();
    const view = await json(ctx.gateway.request('/api/retention'));
    expect(view.settings).toMatchObject({ retention_sweep_ms: 1000, retention_traces_days: 40, retention_trace_content_days: 0 });
    ctx.gateway.clock.advance(35 * DAY);
    expect(await ctx.gateway.app.services.retention.sweep()).toEqual({ content_cleared: 0, traces_deleted: 0, memory_deleted: 0, spans_deleted: 0, held: 0 });
    expect((await json(ctx.gateway.request(`/api/traces/${id}`))).content).toBe('hello timer');
    ctx.gateway.clock.advance(10 * DAY);
    // A sweep may already have run before the clock moved; wait for one that finds the record old.
    const deadline = Date.now() + 10_000;
    let status = 200;
    while (status !== 404 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await ctx.gateway.request(`/api/traces/${id}`)).status;
    }
    expect(status).toBe(404);
    expect((await json(ctx.gateway.request('/api/retention'))).last_sweep).toMatchObject({ content_cleared: 0 });
  });
});

/** One OTLP/JSON span of `agent` (by the resource's parapet.agent), as an exporter sends it. */
function otlpSpan(agent: string, traceId: string) {
  const start = BigInt(Date.now()) * 1_000_000n;
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'parapet.agent', value: { stringValue: agent } }] },
        scopeSpans: [
          { scope: { name: 'retention-test' }, spans: [{ traceId, spanId: 'ab'.repeat(8), name: 'step', kind: 1, startTimeUnixNano: String(start), endTimeUnixNano: String(start + 1_000_000n) }] },
        ],
      },
    ],
  };
}

describe.each(DIALECTS)('retention of OTLP spans (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { retention_traces_days: 10, retention_trace_content_days: 0 } });

  it('deletes spans received more than retention_traces_days ago, except those a hold covers by agent and period', async () => {
    const gateway = ctx.gateway;
    const send = async (agent: string, traceId: string) => {
      // A traffic token without X-Parapet-Agent: the span's own resource names the agent.
      const response = await gateway.request('/v1/traces', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(otlpSpan(agent, traceId)) });
      expect(response.status).toBe(200);
    };
    const first = gateway.clock.now().getTime();
    await send('sp-drop', '01'.repeat(16));
    await send('sp-keep', '02'.repeat(16));
    gateway.clock.advance(3 * DAY);
    // Received after the period the second hold covers.
    await send('sp-late', '03'.repeat(16));
    const byAgent = await json(gateway.request('/api/legal-holds', { method: 'POST', json: { scope: { agents: ['sp-keep'] }, reason: 'keep sp-keep' } }));
    const byPeriod = await json(
      gateway.request('/api/legal-holds', { method: 'POST', json: { scope: { from: new Date(first - DAY).toISOString(), to: new Date(first + DAY).toISOString(), agents: ['sp-drop', 'sp-late'] }, reason: 'first day' } }),
    );
    const agents = async () => (await gateway.store.db.selectFrom('spans').select('agent').orderBy('agent').execute()).map((row) => row.agent);
    expect(await agents()).toEqual(['sp-drop', 'sp-keep', 'sp-late']);

    gateway.clock.advance(9 * DAY);
    // sp-late was received 9 days ago: not yet past 10 days; the first two are 12 days old and held.
    expect(await gateway.app.services.retention.sweep()).toEqual({ content_cleared: 0, traces_deleted: 0, memory_deleted: 0, spans_deleted: 0, held: 2 });
    gateway.clock.advance(2 * DAY);
    const view = await json(gateway.request('/api/retention'));
    expect(view.next_sweep).toEqual({ content_cleared: 0, traces_deleted: 0, memory_deleted: 0, spans_deleted: 1, held: 2 });
    expect(await gateway.app.services.retention.sweep()).toEqual({ content_cleared: 0, traces_deleted: 0, memory_deleted: 0, spans_deleted: 1, held: 2 });
    expect(await agents()).toEqual(['sp-drop', 'sp-keep']);

    await gateway.request(`/api/legal-holds/${byPeriod.id}/release`, { method: 'POST', json: {} });
    expect(await gateway.app.services.retention.sweep()).toEqual({ content_cleared: 0, traces_deleted: 0, memory_deleted: 0, spans_deleted: 1, held: 1 });
    expect(await agents()).toEqual(['sp-keep']);
    await gateway.request(`/api/legal-holds/${byAgent.id}/release`, { method: 'POST', json: {} });
    expect(await gateway.app.services.retention.sweep()).toEqual({ content_cleared: 0, traces_deleted: 0, memory_deleted: 0, spans_deleted: 1, held: 0 });
    expect(await agents()).toEqual([]);
  });
});
