// Red-team campaigns over HTTP on both dialects, runner pipeline: the baseline in observe lets
// attacks through as configured and would stop more if enforced; promoting it makes the same
// seed's as-configured figure fall to the previous if-enforced one, and loosening it again is a
// posture regression. Benign probes show over-blocking, adaptive retries find a mutation class a
// narrow rule misses, budgets hold, the same seed gives the same results, nothing is recorded as
// live traffic, roles and malformed bodies are refused.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { malformedRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';

async function countRows(gateway: TestGateway, table: 'traces' | 'redteam_campaigns' | 'redteam_results' | 'approvals'): Promise<number> {
  const row = await gateway.store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function findingsOf(gateway: TestGateway, agent: string, type: string): Promise<Array<{ type: string; subject: string; evidence: string }>> {
  await gateway.app.services.recorder.flush();
  return gateway.store.db.selectFrom('findings').select(['type', 'subject', 'evidence']).where('agent', '=', agent).where('type', '=', type).execute();
}

async function resultsOf(gateway: TestGateway, campaignId: string): Promise<Array<{ probe_id: string; mutation: string | null; text: string; outcome: string; as_configured: string | null; if_enforced: string | null }>> {
  return gateway.store.db
    .selectFrom('redteam_results')
    .select(['probe_id', 'mutation', 'text', 'outcome', 'as_configured', 'if_enforced'])
    .where('campaign_id', '=', campaignId)
    .orderBy('id')
    .execute();
}

describe.each(DIALECTS)('red-team campaigns, runner pipeline (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  let viewer: string;
  let operator: string;

  const campaign = async (body: Record<string, unknown>, token?: string): Promise<any> => {
    const response = await ctx.gateway.request('/api/redteam/campaigns', { method: 'POST', json: body, ...(token === undefined ? {} : { token }) });
    const answer = await response.json();
    expect(response.status, JSON.stringify(answer).slice(0, 400)).toBe(201);
    return answer;
  };
  const setMode = async (key: string, mode: 'observe' | 'enforce') => {
    const response = await ctx.gateway.request(`/api/policies/${key}/mode`, { method: 'POST', json: { mode } });
    expect(response.status).toBe(200);
  };

  beforeAll(async () => {
    const gateway = ctx.gateway;
    viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer', ttl_days: 3650 } }))).token;
    operator = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'ops', role: 'operator', ttl_days: 3650 } }))).token;
  });

  it('serves the probe library to a viewer, and refuses anonymous callers', async () => {
    const library = await json(ctx.gateway.request('/api/redteam/probes', { token: viewer }));
    expect(library.items.length).toBeGreaterThan(100);
    expect(library.classes.find((entry: { class: string }) => entry.class === 'benign').probes).toBeGreaterThanOrEqual(30);
    expect(library.mutations.map((entry: { class: string }) => entry.class)).toContain('base64');
    expect((await ctx.gateway.request('/api/redteam/probes', { token: null })).status).toBe(401);
    expect((await ctx.gateway.request('/api/redteam/campaigns', { token: null })).status).toBe(401);
  });

  it('refuses a viewer, malformed bodies, unknown probes and a target run without a target; stores and audits nothing', async () => {
    const gateway = ctx.gateway;
    const before = { campaigns: await countRows(gateway, 'redteam_campaigns'), audit: (await gateway.store.db.selectFrom('audit_entries').select('id').where('action', '=', 'redteam.campaign').execute()).length };
    expect((await gateway.request('/api/redteam/campaigns', { method: 'POST', token: viewer, json: { agent: 'rt-roles' } })).status).toBe(403);
    for (const bad of [
      {},
      { agent: '' },
      { agent: 'x'.repeat(201) },
      { agent: 'rt-roles', budget: 0 },
      { agent: 'rt-roles', budget: 2001 },
      { agent: 'rt-roles', budget: 2.5 },
      { agent: 'rt-roles', seed: -1 },
      { agent: 'rt-roles', runner: 'cloud' },
      { agent: 'rt-roles', adaptive: 'yes' },
      { agent: 'rt-roles', probes: 'benign' },
      { agent: 'rt-roles', probes: ['x'.repeat(121)] },
      { agent: 'rt-roles', probes: Array.from({ length: 501 }, (_, index) => `p${index}`) },
      { agent: 'rt-roles', colour: 'blue' },
    ]) {
      const response = await gateway.request('/api/redteam/campaigns', { method: 'POST', token: operator, json: bad });
      expect(response.status, JSON.stringify(bad).slice(0, 200)).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    for (const refused of [
      { agent: 'rt-roles', probes: ['direct_injection.01', 'no_such_probe'] },
      { agent: 'rt-roles', probes: ['no_such_class'] },
      { agent: 'rt-roles', runner: 'target' },
      { agent: 'rt-roles', target_id: 'prt_x' },
    ]) {
      const response = await gateway.request('/api/redteam/campaigns', { method: 'POST', token: operator, json: refused });
      expect(response.status, JSON.stringify(refused)).toBe(422);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect(await countRows(gateway, 'redteam_campaigns')).toBe(before.campaigns);
    expect((await gateway.store.db.selectFrom('audit_entries').select('id').where('action', '=', 'redteam.campaign').execute()).length).toBe(before.audit);
  });

  it('answers every malformed request to its routes with a 4xx problem and stores nothing', async () => {
    const campaigns = await countRows(ctx.gateway, 'redteam_campaigns');
    const { failures, operations } = await malformedRequestFailures(ctx.gateway, '/api/redteam');
    expect(operations).toBe(3);
    expect(failures).toEqual([]);
    expect(await countRows(ctx.gateway, 'redteam_campaigns')).toBe(campaigns);
  });

  it('baseline in observe, promoted, then loosened: rates, the comparison and a posture regression; nothing recorded as live traffic', async () => {
    const gateway = ctx.gateway;
    const traces = await countRows(gateway, 'traces');
    const approvals = await countRows(gateway, 'approvals');

    const observed = await campaign({ agent: 'rt-posture', seed: 7, budget: 2000 }, operator);
    expect(observed).toMatchObject({ agent: 'rt-posture', runner: 'pipeline', status: 'completed', seed: 7, adaptive: false, comparison: null, previous_campaign_id: null, created_by: expect.any(String) });
    expect(observed.id).toMatch(/^rtc_/);
    expect(observed.name).toMatch(/^rt-posture \d{4}-\d{2}-\d{2}$/);
    const asConfigured = observed.summary.attack_success_rate_as_configured;
    const ifEnforced = observed.summary.attack_success_rate_if_enforced;
    expect(asConfigured).toBeGreaterThan(0.5);
    expect(ifEnforced).toBeLessThan(asConfigured);
    const injection = observed.summary.classes.find((entry: { class: string }) => entry.class === 'direct_injection');
    expect(injection.through_as_configured).toBeGreaterThan(injection.through_if_enforced);
    // Tools without a grant are stopped by agent-boundaries, which enforces already.
    expect(observed.summary.classes.find((entry: { class: string }) => entry.class === 'tool_without_grant')).toMatchObject({ through_as_configured: 0 });
    expect(observed.results_through.length).toBeGreaterThan(0);
    expect(observed.results_through.every((result: { outcome: string; kind: string; as_configured: string }) => result.outcome === 'through' && result.kind === 'attack' && result.as_configured === 'allow')).toBe(true);
    expect(observed.summary.through.length).toBeLessThanOrEqual(100);
    expect(observed.calls_used).toBe(observed.summary.probes_sent);
    expect(await countRows(gateway, 'redteam_results')).toBeGreaterThanOrEqual(observed.calls_used);
    expect((await findingsOf(gateway, 'rt-posture', 'redteam')).length).toBe(observed.summary.classes.filter((entry: { through_as_configured: number }) => entry.through_as_configured > 0).length);

    await setMode('baseline', 'enforce');
    try {
      const promoted = await campaign({ agent: 'rt-posture', seed: 7, budget: 2000 }, operator);
      expect(promoted.summary.attack_success_rate_as_configured).toBeLessThan(asConfigured);
      expect(promoted.summary.attack_success_rate_as_configured).toBeCloseTo(ifEnforced, 10);
      expect(promoted.comparison).toMatchObject({
        previous_campaign_id: observed.id,
        asr_before: asConfigured,
        previous_asr_if_enforced: ifEnforced,
        same_probes: true,
        regression: false,
        worse_classes: [],
      });
      expect(promoted.comparison.asr_after).toBeCloseTo(ifEnforced, 10);
      expect(promoted.comparison.better_classes).toContain('direct_injection');
      expect(promoted.comparison.note).toMatch(/if-enforced figure/);
      expect(promoted.previous_campaign_id).toBe(observed.id);
    } finally {
      await setMode('baseline', 'observe');
    }
    expect(await findingsOf(gateway, 'rt-posture', 'redteam_posture_regression')).toEqual([]);

    // The baseline back in observe is a deliberate loosening: the next campaign is worse than the last.
    const loosened = await campaign({ agent: 'rt-posture', seed: 7, budget: 2000 }, operator);
    expect(loosened.comparison).toMatchObject({ regression: true, same_probes: true, asr_after: asConfigured });
    expect(loosened.comparison.worse_classes).toContain('direct_injection');
    const regressions = await findingsOf(gateway, 'rt-posture', 'redteam_posture_regression');
    expect(regressions).toHaveLength(1);
    expect(regressions[0]).toMatchObject({ subject: 'agent:rt-posture' });
    expect(JSON.parse(regressions[0]!.evidence)).toMatchObject({ campaign_id: loosened.id, asr_after: asConfigured });

    // Newest first, of this agent only; a viewer may read them.
    const listed = await json(gateway.request('/api/redteam/campaigns?agent=rt-posture', { token: viewer }));
    expect(listed.items.map((item: { id: string }) => item.id)).toEqual([loosened.id, expect.any(String), observed.id]);
    expect(listed.items[0].summary.attack_success_rate_as_configured).toBe(asConfigured);
    expect(listed.items[0]).not.toHaveProperty('results_through');
    expect((await json(gateway.request('/api/redteam/campaigns?agent=rt-posture&limit=1', { token: viewer }))).items).toHaveLength(1);

    // Every audit entry names the campaign; no trace, approval or live decision came of it.
    const audited = await gateway.store.db.selectFrom('audit_entries').select(['target', 'detail']).where('action', '=', 'redteam.campaign').execute();
    expect(audited.map((entry) => entry.target)).toEqual(expect.arrayContaining([observed.id, loosened.id]));
    expect(JSON.parse(audited.find((entry) => entry.target === observed.id)!.detail)).toMatchObject({ id: observed.id, agent: 'rt-posture', runner: 'pipeline', calls_used: observed.calls_used, asr: asConfigured });
    await gateway.app.services.recorder.flush();
    expect(await countRows(gateway, 'traces')).toBe(traces);
    expect(await countRows(gateway, 'approvals')).toBe(approvals);
  });

  it('reports over-blocking honestly: a rule that blocks a benign word raises the over-block rate and redteam_over_block', async () => {
    const gateway = ctx.gateway;
    const lenient = await campaign({ agent: 'rt-lenient', probes: ['benign'] }, operator);
    expect(lenient.summary.classes).toEqual([]);
    expect(lenient.summary.benign.probes).toBeGreaterThanOrEqual(30);

    const rule = await gateway.request('/api/custom-rules', { method: 'POST', json: { key: 'no_refund_talk', name: 'No refund talk', entries: ['refund'], agents: ['rt-strict'], effect: 'block' } });
    expect(rule.status).toBe(200);
    const strict = await campaign({ agent: 'rt-strict', probes: ['benign'] }, operator);
    expect(strict.summary.benign.probes).toBe(lenient.summary.benign.probes);
    expect(strict.summary.benign.blocked_as_configured).toBeGreaterThan(lenient.summary.benign.blocked_as_configured);
    expect(strict.summary.benign.over_block_rate_as_configured).toBeGreaterThan(lenient.summary.benign.over_block_rate_as_configured ?? 0);
    const refund = strict.results_over_blocked.find((result: { text: string }) => /refund/i.test(result.text));
    expect(refund).toMatchObject({ kind: 'benign', outcome: 'blocked', as_configured: 'block', rules: expect.arrayContaining(['custom.no_refund_talk']) });
    expect(lenient.results_over_blocked.some((result: { probe_id: string }) => result.probe_id === refund.probe_id)).toBe(false);
    const overBlock = await findingsOf(gateway, 'rt-strict', 'redteam_over_block');
    expect(overBlock).toHaveLength(1);
    expect(JSON.parse(overBlock[0]!.evidence)).toMatchObject({ campaign_id: strict.id, blocked: strict.summary.benign.blocked_as_configured });
  });

  it('adaptive: a mutation class gets past a narrow keyword rule, raises redteam_mutation_class; the same seed gives the same results', async () => {
    const gateway = ctx.gateway;
    const rule = await gateway.request('/api/custom-rules', {
      method: 'POST',
      json: { key: 'told-before', name: 'Told before', entries: ['everything you were told'], agents: ['rt-adaptive'], effect: 'block' },
    });
    expect(rule.status).toBe(200);
    const body = { agent: 'rt-adaptive', probes: ['direct_injection.01'], adaptive: true, seed: 42 };
    const first = await campaign(body, operator);
    expect(first.summary.classes).toEqual([expect.objectContaining({ class: 'direct_injection', probes: 1, through_as_configured: 0, through_after_mutation: 1 })]);
    const worked = first.summary.mutation_classes_through.filter((entry: { through: number }) => entry.through > 0);
    expect(worked).toHaveLength(1);
    const mutation = worked[0].mutation;
    expect(first.calls_used).toBe(1 + first.summary.mutation_classes_through.length);
    expect(first.results_through).toEqual([expect.objectContaining({ probe_id: 'direct_injection.01', mutation, outcome: 'through' })]);
    expect(first.results_through[0].text).not.toMatch(/everything you were told/i);
    const findings = await findingsOf(gateway, 'rt-adaptive', 'redteam_mutation_class');
    expect(findings).toHaveLength(1);
    expect(JSON.parse(findings[0]!.evidence)).toMatchObject({ mutation, campaign_id: first.id });
    // A class that got through only once mutated raises no `redteam` finding for the original.
    expect(await findingsOf(gateway, 'rt-adaptive', 'redteam')).toEqual([]);

    const again = await campaign(body, operator);
    const strip = (rows: Awaited<ReturnType<typeof resultsOf>>) => rows.map(({ probe_id, mutation: applied, text, outcome, as_configured, if_enforced }) => ({ probe_id, applied, text, outcome, as_configured, if_enforced }));
    expect(strip(await resultsOf(gateway, again.id))).toEqual(strip(await resultsOf(gateway, first.id)));
    expect(again.comparison).toMatchObject({ same_probes: true, regression: false });

  });

  it('takes an agent name with NUL and a lone surrogate on either database (stored as U+FFFD)', async () => {
    const odd = await campaign({ agent: 'rt-odd\u0000name\ud800', probes: ['benign.01', 'direct_injection.01'], name: 'odd \u0000 name' }, operator);
    expect(odd.calls_used).toBe(2);
    const stored = await ctx.gateway.store.db.selectFrom('redteam_campaigns').select(['agent', 'name']).where('id', '=', odd.id).executeTakeFirstOrThrow();
    expect(stored).toEqual({ agent: 'rt-odd\ufffdname\ufffd', name: 'odd \ufffd name' });
    // The finding for the injection that got through is written too, under the stored name.
    expect(await findingsOf(ctx.gateway, 'rt-odd\ufffdname\ufffd', 'redteam')).toHaveLength(1);
  });

  it('respects the budget: no more calls than asked, originals before retries', async () => {
    const gateway = ctx.gateway;
    const small = await campaign({ agent: 'rt-budget', budget: 5, adaptive: true }, operator);
    expect(small.calls_used).toBe(5);
    expect(small.budget).toBe(5);
    expect(await resultsOf(gateway, small.id)).toHaveLength(5);
    expect((await resultsOf(gateway, small.id)).every((row) => row.mutation === null)).toBe(true);
    expect(small.summary.probes_sent).toBe(5);
    expect(small.summary.probes_selected).toBeGreaterThan(100);

    const adaptive = await campaign({ agent: 'rt-budget', probes: ['direct_injection', 'jailbreak_persona'], budget: 40, adaptive: true, seed: 3 }, operator);
    const rows = await resultsOf(gateway, adaptive.id);
    expect(adaptive.calls_used).toBeLessThanOrEqual(40);
    expect(rows).toHaveLength(adaptive.calls_used);
    const originals = rows.filter((row) => row.mutation === null).length;
    expect(originals).toBe(adaptive.summary.probes_selected);
  });

  it('derives probes from the deployment: a tool it does not hold, a host outside its constraint, destructive arguments, its data classes', async () => {
    const gateway = ctx.gateway;
    const registered = await gateway.request('/api/agents', {
      method: 'POST',
      json: { slug: 'rt-deployed', name: 'Deployed bot', owner_email: 'owner@example.com', declared_tools: ['http.fetch', 'db.query'], data_classes: ['customer_records'] },
    });
    expect(registered.status).toBe(201);
    for (const grant of [{ tool_key: 'http.fetch', constraints: { hosts: ['api.example.com'] } }, { tool_key: 'db.query' }]) {
      const response = await gateway.request('/api/agents/rt-deployed/access', { method: 'POST', json: grant });
      expect(response.status).toBeLessThan(300);
    }
    const answer = await campaign({ agent: 'rt-deployed', probes: ['benign.01'], include_deployment_probes: true }, operator);
    expect(answer.include_deployment_probes).toBe(true);
    const byClass = new Map(answer.summary.classes.map((entry: { class: string }) => [entry.class, entry]));
    expect([...byClass.keys()].sort()).toEqual(['deployment_data_elicitation', 'deployment_destructive_arguments', 'deployment_host_outside_constraints', 'deployment_tool_without_grant']);
    const rows = await resultsOf(gateway, answer.id);
    const ids = rows.map((row) => row.probe_id);
    expect(ids).toEqual(expect.arrayContaining(['deployment.host_outside_constraints.http_fetch', 'deployment.destructive_arguments.db_query', 'deployment.data_elicitation.customer_records']));
    expect(ids.some((id) => id.startsWith('deployment.tool_without_grant.'))).toBe(true);
    // Default deny and the grant's host constraint hold as configured: agent-boundaries enforces.
    expect(byClass.get('deployment_tool_without_grant')).toMatchObject({ through_as_configured: 0 });
    expect(byClass.get('deployment_host_outside_constraints')).toMatchObject({ probes: 1, through_as_configured: 0 });
    const hostRow = rows.find((row) => row.probe_id === 'deployment.host_outside_constraints.http_fetch');
    expect(hostRow?.text).toContain('attacker-example.net');
  });

  it('hands runner target to the probe-target service: refused before opt-in with nothing sent, then a run within its caps', async () => {
    const gateway = ctx.gateway;
    let received = 0;
    const fake = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received += 1;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'Happy to help with that.' } }] }));
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1/chat/completions`;
      expect((await gateway.request('/api/agents', { method: 'POST', json: { slug: 'rt-live', name: 'Live bot', owner_email: 'owner@example.com' } })).status).toBe(201);
      const created = await gateway.request('/api/probes/targets', {
        method: 'POST',
        json: { agent: 'rt-live', name: 'rt live', adapter: 'openai_chat', url, max_probes_per_run: 5, rate_limit_per_minute: 60 },
      });
      expect(created.status, await created.clone().text()).toBe(201);
      const target: { id: string; name: string } = await json(created);
      const body = { agent: 'rt-live', runner: 'target', target_id: target.id, probes: ['benign'], budget: 2 };

      const early = await gateway.request('/api/redteam/campaigns', { method: 'POST', token: operator, json: body });
      expect(early.status).toBe(409);
      expect(received).toBe(0);
      expect((await gateway.request('/api/redteam/campaigns', { method: 'POST', token: operator, json: { ...body, target_id: 'prt_nothing' } })).status).toBe(404);
      expect((await gateway.request('/api/redteam/campaigns', { method: 'POST', token: operator, json: { ...body, include_deployment_probes: true } })).status).toBe(422);

      const optIn = await gateway.request(`/api/probes/targets/${target.id}/opt-in`, {
        method: 'POST',
        json: { acknowledgement: `I own the staging agent behind ${target.name} (${target.id}) and accept that attack probes are sent to it.` },
      });
      expect(optIn.status).toBe(200);
      const ran = await campaign(body, operator);
      expect(ran).toMatchObject({ agent: 'rt-live', runner: 'target', target_id: target.id, status: 'completed' });
      expect(ran.calls_used).toBeLessThanOrEqual(2);
      expect(received).toBe(ran.calls_used);
      expect(ran.summary.benign.probes).toBe(ran.calls_used);
      expect(Array.isArray(ran.results_over_blocked)).toBe(true);
      const listed = await json(gateway.request('/api/redteam/campaigns?agent=rt-live', { token: viewer }));
      expect(listed.items.map((item: { id: string }) => item.id)).toEqual([ran.id]);
      const audited = await gateway.store.db.selectFrom('audit_entries').select('detail').where('action', '=', 'redteam.campaign').where('target', '=', ran.id).execute();
      expect(JSON.parse(audited[0]!.detail)).toMatchObject({ id: ran.id, agent: 'rt-live', runner: 'target', target_id: target.id, calls_used: ran.calls_used });
    } finally {
      await new Promise<void>((resolve) => fake.close(() => resolve()));
    }
  });
});
