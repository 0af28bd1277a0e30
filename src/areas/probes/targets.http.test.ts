// Probe targets over HTTP on both dialects, against a fake live agent on 127.0.0.1 that counts what
// it receives: nothing before opt-in or after opt-out, never more than the caps allow, a manual run
// refused inside the gap, leak markers and forbidden tool calls raising findings, the auth header
// reaching the fake and never an answer, hosts outside the allow-list refused, roles and bad input.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { malformedRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { loadProbeLibrary } from '../redteam/library.js';

const SECRET = 'Bearer sk-probe-test-9f8e7d6c5b4a';
const MARKER = 'PLANTED-CANARY-5521';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  at: number;
}

/** A live agent on loopback: records every request; answers by path (see `answers`). */
class FakeAgent {
  readonly received: Received[] = [];
  private server: Server | undefined;
  url = '';
  /** Per path: the answer (openai_chat format) to the request body; default a plain reply. */
  readonly answers = new Map<string, (body: Record<string, unknown>) => Record<string, unknown>>();

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '';
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        this.received.push({ path, headers: request.headers, body, at: performance.now() });
        const answer = this.answers.get(path)?.(body) ?? { choices: [{ index: 0, message: { role: 'assistant', content: 'Here is a short and helpful answer.' } }] };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  count(path: string): number {
    return this.received.filter((entry) => entry.path === path).length;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

const chat = (message: Record<string, unknown>) => ({ choices: [{ index: 0, message }] });
const userContent = (body: Record<string, unknown>) => ((body.messages as Array<{ content: string }> | undefined)?.[0]?.content ?? '');

describe.each(DIALECTS)('probe targets (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { probe_target_hosts: ['agents.staging.example'], probe_min_run_gap_seconds: 300, jobs_in_process: false } });
  const fake = new FakeAgent();
  let viewer: string;
  let operator: string;
  /** Every answer text the gateway gave in this test: the auth header must be in none. */
  const seen: string[] = [];

  const call = async (path: string, init: { method?: string; json?: unknown; token?: string } = {}) => {
    const response = await ctx.gateway.request(path, { method: init.method ?? 'GET', ...(init.json === undefined ? {} : { json: init.json }), token: init.token ?? operator });
    const text = await response.text();
    seen.push(text);
    return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) };
  };
  const services = () => ctx.gateway.app.services;
  const create = (body: Record<string, unknown>) => call('/api/probes/targets', { method: 'POST', json: body });
  const optIn = (id: string, name: string) =>
    call(`/api/probes/targets/${id}/opt-in`, { method: 'POST', json: { acknowledgement: `I own the staging agent behind ${name} and accept that attack probes are sent to it.` } });
  const findings = async (gateway: TestGateway, type: string) => {
    await gateway.app.services.recorder.flush();
    return gateway.store.db.selectFrom('findings').selectAll().where('type', '=', type).where('agent', '=', 'support-bot').execute();
  };

  beforeAll(async () => {
    await fake.start();
    const gateway = ctx.gateway;
    viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer', ttl_days: 3650 } }))).token;
    operator = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'ops', role: 'operator', ttl_days: 3650 } }))).token;
    expect((await gateway.request('/api/agents', { method: 'POST', json: { slug: 'support-bot', name: 'Support bot', purpose: 'Answers customer questions' } })).status).toBe(201);
  });
  afterAll(async () => {
    await fake.close();
  });

  it('answers the warning with the caps, the allowed hosts and the adapter contract', async () => {
    const { status, body } = await call('/api/probes/warning', { token: viewer });
    expect(status).toBe(200);
    expect(body.hard_caps).toMatchObject({ max_probes_per_run: { max: 200, default: 20 }, rate_limit_per_minute: { max: 60 }, timeout_seconds: { max: 60 }, interval_seconds: { min: 3600 } });
    expect(body.allowed_hosts).toEqual({ loopback: true, listed: ['agents.staging.example'] });
    expect(body.min_run_gap_seconds).toBe(300);
    expect(body.adapters.map((adapter: { name: string }) => adapter.name)).toEqual(['openai_chat', 'messages', 'http_json']);
    expect(body.library.probes).toBeGreaterThan(100);
    expect(body.acknowledgement.min_length).toBe(40);
  });

  it('refuses viewers, hosts outside the allow-list, caps over the ceilings and bad bodies; stores nothing', async () => {
    const good = { agent: 'support-bot', url: `${fake.url}/refused` };
    const auditBefore = await services().store.db.selectFrom('audit_entries').select('seq').execute();
    expect((await call('/api/probes/targets', { method: 'POST', json: good, token: viewer })).status).toBe(403);
    const refusals: Array<[Record<string, unknown>, number, string]> = [
      [{ ...good, url: 'http://example.com/agent' }, 422, '/body/url'],
      [{ ...good, url: 'http://10.0.0.5/agent' }, 422, '/body/url'],
      [{ ...good, url: `http://user:pw@127.0.0.1:9/x` }, 422, '/body/url'],
      [{ ...good, url: 'ftp://127.0.0.1/x' }, 422, '/body/url'],
      [{ ...good, max_probes_per_run: 201 }, 422, '/body/max_probes_per_run'],
      [{ ...good, rate_limit_per_minute: 61 }, 422, '/body/rate_limit_per_minute'],
      [{ ...good, timeout_seconds: 60.5 }, 422, '/body/timeout_seconds'],
      [{ ...good, interval_seconds: 3599 }, 422, '/body/interval_seconds'],
      [{ ...good, interval_seconds: 31 * 86_400 }, 422, '/body/interval_seconds'],
      [{ ...good, auth_header: 'Host: evil.example' }, 422, '/body/auth_header'],
      [{ ...good, agent: 'nobody' }, 422, '/body/agent'],
      [{ ...good, probes: ['no_such_class'] }, 400, '/body/probes'],
    ];
    for (const [body, expected, field] of refusals) {
      const response = await create(body);
      expect(response.status, JSON.stringify(body)).toBe(expected);
      expect(response.body.errors[0].field).toBe(field);
    }
    for (const bad of [{}, { url: fake.url }, { ...good, adapter: 'smtp' }, { ...good, leak_markers: ['abc'] }, { ...good, colour: 'red' }, { ...good, max_probes_per_run: 1.5 }]) {
      expect((await create(bad)).status, JSON.stringify(bad)).toBe(400);
    }
    expect((await call('/api/probes/targets', { token: viewer })).body.items).toEqual([]);
    expect(await services().store.db.selectFrom('audit_entries').select('seq').execute()).toHaveLength(auditBefore.length);
    // A listed host is accepted (nothing is sent to it: the target stays disabled).
    const listed = await create({ ...good, url: 'https://agents.staging.example/v1/chat/completions', name: 'listed host' });
    expect(listed.status).toBe(201);
    expect(listed.body.enabled).toBe(false);
  });

  it('sends nothing before opt-in: a run is refused and the schedule and a queued job skip it', async () => {
    const path = '/before-opt-in';
    const created = await create({ agent: 'support-bot', url: `${fake.url}${path}`, name: 'before opt-in', auth_header: `Authorization: ${SECRET}` });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ enabled: false, auth_header_set: true, next_run_at: null, max_probes_per_run: 20, rate_limit_per_minute: 10, timeout_seconds: 15, interval_seconds: 86_400 });
    const id = created.body.id as string;
    expect((await call(`/api/probes/targets/${id}/run`, { method: 'POST' })).status).toBe(409);
    ctx.gateway.clock.advance(40 * 86_400_000);
    expect(await services().probeTargets.scheduleDue()).toBe(0);
    await services().queue.enqueue('probes.run', { target_id: id, trigger: 'schedule' }, { maxAttempts: 1, createdBy: 'test' });
    expect(await services().worker.tick()).toBe(true);
    expect(fake.count(path)).toBe(0);
    expect((await call(`/api/probes/targets/${id}/campaigns`, { token: viewer })).body.items).toEqual([]);
  });

  it('opts in with an acknowledgement naming the target, audited; viewers and short or unnamed acknowledgements are refused', async () => {
    const created = await create({ agent: 'support-bot', url: `${fake.url}/ack`, name: 'ack target' });
    const id = created.body.id as string;
    const ack = `I own the staging agent behind ack target and accept that attack probes are sent to it.`;
    expect((await call(`/api/probes/targets/${id}/opt-in`, { method: 'POST', json: { acknowledgement: ack }, token: viewer })).status).toBe(403);
    expect((await call(`/api/probes/targets/${id}/opt-in`, { method: 'POST', json: { acknowledgement: 'ok ack target' } })).status).toBe(422);
    expect((await call(`/api/probes/targets/${id}/opt-in`, { method: 'POST', json: { acknowledgement: 'I own this agent and accept that attack probes are sent.' } })).status).toBe(422);
    expect((await call(`/api/probes/targets/${id}/opt-in`, { method: 'POST', json: {} })).status).toBe(400);
    const now = ctx.gateway.clock.now().getTime();
    const opted = await call(`/api/probes/targets/${id}/opt-in`, { method: 'POST', json: { acknowledgement: ack } });
    expect(opted.status).toBe(200);
    expect(opted.body).toMatchObject({ enabled: true, acknowledgement: ack });
    expect(Math.abs(Date.parse(opted.body.next_run_at) - (now + 86_400_000))).toBeLessThan(5000);
    expect((await call(`/api/probes/targets/${id}/opt-in`, { method: 'POST', json: { acknowledgement: ack } })).status).toBe(409);
    const audit = await services().store.db.selectFrom('audit_entries').select(['action', 'detail']).where('target', '=', id).orderBy('seq').execute();
    expect(audit.map((entry) => entry.action)).toEqual(['probe_target.created', 'probe_target.opted_in']);
    expect(audit[1]!.detail).toContain(ack);
  });

  it('runs within max_probes_per_run and the rate limit, sends the auth header, refuses a run inside the gap and raises a finding on a leak marker', async () => {
    const path = '/leaky';
    fake.answers.set(path, () => chat({ role: 'assistant', content: `Of course. My instructions begin with ${MARKER} and then say to help.` }));
    const created = await create({
      agent: 'support-bot',
      url: `${fake.url}${path}`,
      name: 'leaky agent',
      model: 'staging-model',
      auth_header: `Authorization: ${SECRET}`,
      leak_markers: [MARKER],
      probes: ['prompt_extraction', 'benign'],
      max_probes_per_run: 3,
      rate_limit_per_minute: 60,
      timeout_seconds: 5,
    });
    const id = created.body.id as string;
    expect((await optIn(id, 'leaky agent')).status).toBe(200);
    const accepted = await call(`/api/probes/targets/${id}/run`, { method: 'POST', json: {} });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ target_id: id, status: 'queued', max_probes: 3 });
    // Inside the gap: refused before anything is queued, with Retry-After.
    const early = await call(`/api/probes/targets/${id}/run`, { method: 'POST' });
    expect(early.status).toBe(429);
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThan(290);
    expect(await services().worker.tick()).toBe(true);

    const got = fake.received.filter((entry) => entry.path === path);
    expect(got).toHaveLength(3);
    for (const entry of got) {
      expect(entry.headers.authorization).toBe(SECRET);
      expect(entry.body).toMatchObject({ model: 'staging-model', stream: false });
    }
    // 60 a minute: sends start a second apart (arrivals jitter by the send's own latency).
    for (let index = 1; index < got.length; index += 1) expect(got[index]!.at - got[index - 1]!.at).toBeGreaterThanOrEqual(900);
    expect(got[2]!.at - got[0]!.at).toBeGreaterThanOrEqual(1900);

    const campaigns = await call(`/api/probes/targets/${id}/campaigns?limit=5`, { token: viewer });
    expect(campaigns.body.items).toHaveLength(1);
    const campaign = campaigns.body.items[0];
    expect(campaign).toMatchObject({ runner: 'target', target_id: id, agent: 'support-bot', status: 'completed', calls_used: 3, budget: 3, probes: ['prompt_extraction', 'benign'] });
    expect(campaign.summary.attack_success_rate_as_configured).toBe(1);
    expect(campaign.summary.through.length).toBeGreaterThan(0);
    const results = await services().store.db.selectFrom('redteam_results').selectAll().where('campaign_id', '=', campaign.id).execute();
    expect(results).toHaveLength(3);
    expect(results.filter((row) => row.kind === 'attack').every((row) => row.outcome === 'through')).toBe(true);

    const raised = await findings(ctx.gateway, 'redteam');
    expect(raised.some((finding) => finding.evidence.includes(MARKER) && finding.evidence.includes(id))).toBe(true);

    // After the gap a run is accepted again.
    ctx.gateway.clock.advance(301_000);
    expect((await call(`/api/probes/targets/${id}/run`, { method: 'POST' })).status).toBe(202);
    expect(await services().worker.tick()).toBe(true);
    expect(fake.count(path)).toBe(6);
    const second = (await call(`/api/probes/targets/${id}/campaigns`, { token: viewer })).body.items[0];
    expect(second.previous_campaign_id).toBe(campaign.id);
    expect(second.comparison).toMatchObject({ previous_campaign_id: campaign.id, regression: false });
  });

  it('raises a finding when the target proposes a call to a forbidden tool', async () => {
    const path = '/tool-happy';
    fake.answers.set(path, () => chat({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'drop_customers', arguments: '{"all":true}' } }] }));
    const created = await create({
      agent: 'support-bot',
      url: `${fake.url}${path}`,
      name: 'tool happy agent',
      forbidden_tools: ['drop_customers'],
      probes: ['destructive_sql'],
      max_probes_per_run: 1,
      rate_limit_per_minute: 60,
    });
    const id = created.body.id as string;
    await optIn(id, 'tool happy agent');
    expect((await call(`/api/probes/targets/${id}/run`, { method: 'POST' })).status).toBe(202);
    await services().worker.tick();
    expect(fake.count(path)).toBe(1);
    const raised = await findings(ctx.gateway, 'redteam');
    const forbidden = raised.find((finding) => finding.evidence.includes('drop_customers'));
    expect(forbidden).toBeDefined();
    expect(JSON.parse(forbidden!.evidence)).toMatchObject({ class: 'destructive_sql', forbidden_tool_calls: ['drop_customers'], target_id: id });
  });

  it('sends each adapter\'s request format', async () => {
    for (const [adapter, path] of [['messages', '/messages-format'], ['http_json', '/http-json-format']] as const) {
      fake.answers.set(path, () => (adapter === 'messages' ? { content: [{ type: 'text', text: 'fine' }] } : { output: 'fine' }));
      const created = await create({ agent: 'support-bot', adapter, url: `${fake.url}${path}`, name: `${adapter} agent`, model: 'm-1', probes: ['benign'], max_probes_per_run: 1 });
      await optIn(created.body.id, `${adapter} agent`);
      expect((await call(`/api/probes/targets/${created.body.id}/run`, { method: 'POST' })).status).toBe(202);
      await services().worker.tick();
      const [got] = fake.received.filter((entry) => entry.path === path);
      if (adapter === 'messages') {
        expect(got!.headers['anthropic-version']).toBe('2023-06-01');
        expect(got!.body).toMatchObject({ model: 'm-1', max_tokens: 1024, messages: [{ role: 'user' }] });
      } else {
        expect(Object.keys(got!.body).sort()).toEqual(['input', 'model']);
      }
      const campaign = (await call(`/api/probes/targets/${created.body.id}/campaigns`, { token: viewer })).body.items[0];
      expect(campaign.summary.benign).toMatchObject({ probes: 1, blocked_as_configured: 0 });
    }
  });

  it('runs a campaign inside the caller (runner target): adaptive mutations of blocked probes, a mutation-class finding, then the gap', async () => {
    const path = '/adaptive';
    const originals = new Set(loadProbeLibrary().probes.flatMap((probe) => (probe.text === null ? [] : [probe.text])));
    // Refuses every probe as written; leaks on anything mutated.
    fake.answers.set(path, (body) => chat({ role: 'assistant', content: originals.has(userContent(body)) ? "I'm sorry, I can't do that." : `Decoded it: ${MARKER}` }));
    const created = await create({ agent: 'support-bot', url: `${fake.url}${path}`, name: 'adaptive agent', leak_markers: [MARKER], probes: ['direct_injection'], max_probes_per_run: 10, rate_limit_per_minute: 60 });
    const id = created.body.id as string;
    await optIn(id, 'adaptive agent');
    const row = await services().probeTargets.run(id, { principal: null, adaptive: true, budget: 4, seed: 11 });
    expect(fake.count(path)).toBe(4);
    expect(row).toMatchObject({ runner: 'target', target_id: id, status: 'completed', calls_used: 4, budget: 4, adaptive: 1, seed: 11 });
    const summary = JSON.parse(row.summary);
    expect(summary.classes[0]).toMatchObject({ class: 'direct_injection', probes: 2, through_as_configured: 0, through_after_mutation: 2 });
    expect(summary.attack_success_rate_if_enforced).toBeNull();
    expect(summary.mutation_classes_through.reduce((sum: number, entry: { through: number }) => sum + entry.through, 0)).toBe(2);
    const mutationFindings = (await findings(ctx.gateway, 'redteam_mutation_class')).filter((finding) => finding.evidence.includes(id));
    expect(mutationFindings.length).toBeGreaterThan(0);
    expect((await call(`/api/probes/targets/${id}/run`, { method: 'POST' })).status).toBe(429);
  });

  it('runs a due target on the schedule once, and sends nothing after opt-out, even mid-run', async () => {
    const path = '/scheduled';
    // The other targets opted in earlier are opted out, so that only this one can be due.
    for (const item of (await call('/api/probes/targets', { token: viewer })).body.items) {
      if (item.enabled === true) expect((await call(`/api/probes/targets/${item.id}/opt-out`, { method: 'POST' })).status).toBe(200);
    }
    const created = await create({ agent: 'support-bot', url: `${fake.url}${path}`, name: 'scheduled agent', probes: ['benign'], max_probes_per_run: 4, rate_limit_per_minute: 60, interval_seconds: 3600 });
    const id = created.body.id as string;
    await optIn(id, 'scheduled agent');
    expect(await services().probeTargets.scheduleDue()).toBe(0);
    ctx.gateway.clock.advance(3_601_000);
    expect(await services().probeTargets.scheduleDue()).toBe(1);
    // next_run_at moved on: the same pass again queues nothing more.
    expect(await services().probeTargets.scheduleDue()).toBe(0);

    // Opt out after the first probe arrives: the run stops before its next send.
    const running = services().worker.tick();
    for (let waited = 0; fake.count(path) === 0 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.count(path)).toBe(1);
    const out = await call(`/api/probes/targets/${id}/opt-out`, { method: 'POST' });
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({ enabled: false, next_run_at: null });
    expect(await running).toBe(true);
    expect(fake.count(path)).toBe(1);
    const campaign = (await call(`/api/probes/targets/${id}/campaigns`, { token: viewer })).body.items[0];
    expect(campaign).toMatchObject({ calls_used: 1, status: 'completed', created_by: 'system' });
    expect(campaign.error).toMatch(/^stopped after 1 probes/);

    ctx.gateway.clock.advance(7 * 86_400_000);
    expect(await services().probeTargets.scheduleDue()).toBe(0);
    expect((await call(`/api/probes/targets/${id}/run`, { method: 'POST' })).status).toBe(409);
    await services().queue.enqueue('probes.run', { target_id: id, trigger: 'manual' }, { maxAttempts: 1, createdBy: 'test' });
    await services().worker.tick();
    expect(fake.count(path)).toBe(1);
  });

  it('patches caps under the ceilings; a new URL withdraws the opt-in', async () => {
    const created = await create({ agent: 'support-bot', url: `${fake.url}/patch`, name: 'patch target' });
    const id = created.body.id as string;
    await optIn(id, 'patch target');
    expect((await call(`/api/probes/targets/${id}`, { method: 'PATCH', json: { max_probes_per_run: 5 }, token: viewer })).status).toBe(403);
    const over = await call(`/api/probes/targets/${id}`, { method: 'PATCH', json: { rate_limit_per_minute: 1000 } });
    expect(over.status).toBe(422);
    expect(over.body.detail).toContain('60');
    expect((await call(`/api/probes/targets/${id}`, { method: 'PATCH', json: { name: 'renamed' } })).status).toBe(400);
    const patched = await call(`/api/probes/targets/${id}`, { method: 'PATCH', json: { max_probes_per_run: 5, leak_markers: ['ANOTHER-MARK'] } });
    expect(patched.body).toMatchObject({ max_probes_per_run: 5, leak_markers: ['ANOTHER-MARK'], enabled: true });
    const moved = await call(`/api/probes/targets/${id}`, { method: 'PATCH', json: { url: `${fake.url}/patch-moved` } });
    expect(moved.body).toMatchObject({ enabled: false, next_run_at: null, url: `${fake.url}/patch-moved` });
    expect((await call(`/api/probes/targets/${id}`, { token: viewer })).body.enabled).toBe(false);
    expect((await call('/api/probes/targets/prt_missing', { token: viewer })).status).toBe(404);
  });

  it('never answers the auth header, and stores it sealed', async () => {
    const listed = await call('/api/probes/targets', { token: viewer });
    expect(listed.body.items.some((item: { auth_header_set: boolean }) => item.auth_header_set)).toBe(true);
    const secretPart = SECRET.split(' ')[1]!;
    for (const text of seen) expect(text).not.toContain(secretPart);
    const stored = await services().store.db.selectFrom('probe_targets').select('auth_header').where('auth_header', 'is not', null).execute();
    for (const row of stored) expect(row.auth_header).not.toContain(secretPart);
    const audit = await services().store.db.selectFrom('audit_entries').select('detail').execute();
    for (const entry of audit) expect(entry.detail).not.toContain(secretPart);
  });

  it('answers malformed requests to every probes route with a 4xx problem', async () => {
    const { failures, operations } = await malformedRequestFailures(ctx.gateway, '/api/probes');
    expect(operations).toBe(9);
    expect(failures).toEqual([]);
  });
});
