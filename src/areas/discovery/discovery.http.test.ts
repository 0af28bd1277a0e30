// Discovery over HTTP on both dialects: agents from guard traffic, OTLP spans, code-host sites
// (rows as the code-host scan writes them) and external scanner submissions appear in
// /api/discovery/shadow until they are registered; the scan answers without a code-host
// connection and raises one shadow_agent finding per agent (none where the pipeline raised one);
// submissions stored and bounded; roles; hostile input.
import { afterAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../../engine/findings/fingerprint.js';
import { newId } from '../../infra/lib/ids.js';
import type { CodehostScanning } from '../integrations/contracts.js';
import { DiscoveryService } from './service.js';
import { auditOf } from '../../../test/helpers/audit.js';
import { hostileRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';

const DAY = 86_400_000;

async function guard(gateway: TestGateway, path: string, body: Record<string, unknown>) {
  const response = await gateway.request(path, { method: 'POST', json: body });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
}

async function codehostSite(gateway: TestGateway, site: { location: string; kind: string; name: string; agent_hint?: string | null; path?: string; line?: number; daysAgo?: number }) {
  const at = new Date(gateway.clock.now().getTime() - (site.daysAgo ?? 0) * DAY).toISOString();
  await gateway.store.db
    .insertInto('discovery_sites')
    .values({
      id: newId('dsite'),
      origin: 'codehost',
      location: site.location,
      path: site.path ?? null,
      line: site.line ?? null,
      kind: site.kind,
      name: site.name,
      agent_hint: site.agent_hint ?? null,
      detail: '{}',
      scan_id: null,
      submission_id: null,
      first_seen_at: at,
      last_seen_at: at,
    })
    .execute();
}

async function shadow(gateway: TestGateway, query = '', token?: string) {
  const response = await gateway.request(`/api/discovery/shadow${query}`, token === undefined ? {} : { token });
  expect(response.status).toBe(200);
  return json(response);
}

const entryOf = (list: { items: Array<{ agent: string }> }, agent: string): any => list.items.find((item) => item.agent === agent);

describe.each(DIALECTS)('discovery on %s', (dialect) => {
  const ctx = withGateway({ dialect });
  const tokens: { viewer?: string; operator?: string } = {};
  const role = async (name: 'viewer' | 'operator') =>
    (tokens[name] ??= (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name, role: name } }))).token as string);

  afterAll(async () => {
    await ctx.gateway.app.services.recorder.flush();
  });

  it('lists an unregistered agent from guard traffic with its calls, tools and surfaces, and not a registered one', async () => {
    const { gateway } = ctx;
    expect((await gateway.request('/api/agents', { method: 'POST', json: { slug: 'known-bot', name: 'Known' } })).status).toBe(201);
    await guard(gateway, '/v1/guard/input', { agent: 'ghost-bot', content: 'hello there' });
    await guard(gateway, '/v1/guard/tool_call', { agent: 'ghost-bot', tool: 'search_docs', arguments: { q: 'refunds' } });
    await guard(gateway, '/v1/guard/tool_call', { agent: 'ghost-bot', tool: 'search_docs', arguments: { q: 'returns' } });
    await guard(gateway, '/v1/guard/input', { agent: 'known-bot', content: 'hello there' });
    await gateway.app.services.recorder.flush();

    const list = await shadow(gateway, '', await role('viewer'));
    expect(list).toMatchObject({ window_days: 30, truncated: false });
    const ghost = entryOf(list, 'ghost-bot');
    expect(ghost).toMatchObject({
      agent: 'ghost-bot',
      seen_in: ['traffic'],
      calls: 3,
      spans: 0,
      sites: 0,
      tools: ['search_docs'],
      locations: [],
      register: { method: 'POST', path: '/api/agents', body: { slug: 'ghost-bot', name: 'ghost-bot' } },
    });
    expect(ghost.surfaces.length).toBeGreaterThan(0);
    expect(ghost.first_seen_at <= ghost.last_seen_at).toBe(true);
    expect(entryOf(list, 'known-bot')).toBeUndefined();
  });

  it('lists agents named by OTLP spans, leaving out SDK services without a name', async () => {
    const { gateway } = ctx;
    const resourceSpans = (service: string, traceId: string) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
      scopeSpans: [{ scope: { name: 'test' }, spans: [{ traceId, spanId: 'a1b2c3d4e5f60718', name: 'agent.step', kind: 1, startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000000250000000' }] }],
    });
    const response = await gateway.request('/v1/traces', {
      method: 'POST',
      json: { resourceSpans: [resourceSpans('span-bot', '0af7651916cd43dd8448eb211c80319c'), resourceSpans('unknown_service:node', '1af7651916cd43dd8448eb211c80319c')] },
    });
    expect(response.status).toBe(200);
    const list = await shadow(gateway);
    expect(entryOf(list, 'span-bot')).toMatchObject({ seen_in: ['spans'], spans: 1, calls: 0, register: { body: { slug: 'span-bot' } } });
    expect(entryOf(list, 'unknown_service:node')).toBeUndefined();
  });

  it('lists agents found in code (by hint, else by repository) within the window, with locations, until they are registered', async () => {
    const { gateway } = ctx;
    await codehostSite(gateway, { location: 'acme/payments', kind: 'framework', name: 'langchain', path: 'agent/main.py', line: 3 });
    await codehostSite(gateway, { location: 'acme/payments', kind: 'model_client', name: 'openai', path: 'agent/llm.py', line: 12 });
    // A secret names no agent and says none lives there.
    await codehostSite(gateway, { location: 'acme/infra', kind: 'secret', name: 'aws_access_key', path: 'deploy.sh', line: 1 });
    await codehostSite(gateway, { location: 'acme/tools', kind: 'mcp_server', name: 'github', agent_hint: 'triage-bot', path: '.mcp.json', line: 2 });
    await codehostSite(gateway, { location: 'acme/old', kind: 'framework', name: 'crewai', agent_hint: 'old-bot', daysAgo: 40 });

    const list = await shadow(gateway);
    const payments = entryOf(list, 'acme/payments');
    expect(payments).toMatchObject({ seen_in: ['code'], sites: 2, calls: 0, register: { body: { slug: 'acme-payments', name: 'acme/payments' } } });
    expect(payments.locations).toHaveLength(2);
    expect(payments.locations).toEqual(
      expect.arrayContaining([
        { origin: 'codehost', location: 'acme/payments', path: 'agent/main.py', line: 3, kind: 'framework', name: 'langchain' },
        { origin: 'codehost', location: 'acme/payments', path: 'agent/llm.py', line: 12, kind: 'model_client', name: 'openai' },
      ]),
    );
    expect(entryOf(list, 'triage-bot')).toMatchObject({ seen_in: ['code'], locations: [{ location: 'acme/tools', kind: 'mcp_server', name: 'github', path: '.mcp.json', line: 2 }] });
    expect(entryOf(list, 'acme/infra')).toBeUndefined();
    expect(entryOf(list, 'old-bot')).toBeUndefined();
    expect(entryOf(await shadow(gateway, '?window_days=60'), 'old-bot')).toMatchObject({ seen_in: ['code'] });

    // Registering under the slug the entry offers removes it.
    expect((await gateway.request('/api/agents', { method: 'POST', json: payments.register.body })).status).toBe(201);
    expect(entryOf(await shadow(gateway), 'acme/payments')).toBeUndefined();
  });

  it('stores a submission and its sites (origin submit, location = source); a site naming an agent appears as submitted', async () => {
    const { gateway } = ctx;
    const response = await gateway.request('/api/discovery/submit', {
      method: 'POST',
      token: await role('operator'),
      json: {
        source: 'scanner:acme/mobile',
        label: 'nightly',
        files_scanned: 120,
        frameworks: ['langgraph'],
        coverage: 0.8,
        counts: { python: 80, typescript: 40 },
        sites: [
          { path: 'bot/graph.py', line: 7, kind: 'framework', name: 'langgraph', agent: 'mobile-helper', detail: { import: 'langgraph.graph' } },
          { path: 'bot/prompt.txt', kind: 'prompt', name: 'system prompt', agent: 'mobile-helper' },
          { kind: 'secret', name: 'openai_key', path: '.env', line: 1 },
        ],
      },
    });
    expect(response.status).toBe(201);
    const submitted = await json(response);
    expect(submitted).toEqual({ id: expect.stringMatching(/^dsub_/), sites: 3 });

    const row = await gateway.store.db.selectFrom('discovery_submissions').selectAll().where('id', '=', submitted.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ source: 'scanner:acme/mobile', label: 'nightly', files_scanned: 120, sites: 3 });
    expect(Number(row.coverage)).toBe(0.8);
    expect(JSON.parse(row.frameworks)).toEqual(['langgraph']);
    expect(JSON.parse(row.counts)).toEqual({ python: 80, typescript: 40 });
    const sites = await gateway.store.db.selectFrom('discovery_sites').selectAll().where('submission_id', '=', submitted.id).orderBy('name').execute();
    expect(sites.map((site) => [site.origin, site.location, site.kind, site.agent_hint])).toEqual([
      ['submit', 'scanner:acme/mobile', 'framework', 'mobile-helper'],
      ['submit', 'scanner:acme/mobile', 'secret', null],
      ['submit', 'scanner:acme/mobile', 'prompt', 'mobile-helper'],
    ]);
    const [audit] = await auditOf(gateway, submitted.id);
    expect(audit).toMatchObject({ action: 'discovery.submitted', detail: { source: 'scanner:acme/mobile', sites: 3, frameworks: 1 } });

    const helper = entryOf(await shadow(gateway), 'mobile-helper');
    expect(helper).toMatchObject({ seen_in: ['submitted'], sites: 2, register: { body: { slug: 'mobile-helper' } } });
    expect(helper.locations).toEqual(expect.arrayContaining([{ origin: 'submit', location: 'scanner:acme/mobile', path: 'bot/graph.py', line: 7, kind: 'framework', name: 'langgraph' }]));
  });

  it('refuses a site detail over 4 KiB, too many sites and malformed bodies, storing nothing; NUL and lone surrogates are stored as U+FFFD', async () => {
    const { gateway } = ctx;
    const count = async () => Number((await gateway.store.db.selectFrom('discovery_submissions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const bad = [
      { source: 's', sites: [{ kind: 'tool', name: 't', detail: { blob: 'x'.repeat(5000) } }] },
      { source: 's', sites: Array.from({ length: 5001 }, () => ({ kind: 'tool', name: 't' })) },
      { source: '' },
      { source: 's', coverage: 1.5 },
      { source: 's', files_scanned: -1 },
      { source: 's', frameworks: Array.from({ length: 101 }, () => 'f') },
      { source: 's', sites: [{ kind: 'weapon', name: 't' }] },
      { source: 's', sites: [{ kind: 'tool', name: 't', colour: 'red' }] },
      { source: 's', counts: { a: 'many' } },
      { source: 's', counts: Object.fromEntries(Array.from({ length: 101 }, (_, index) => [`k${index}`, 1])) },
    ];
    for (const body of bad) {
      const response = await gateway.request('/api/discovery/submit', { method: 'POST', json: body });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect(await count()).toBe(before);
    const odd = await json(gateway.request('/api/discovery/submit', { method: 'POST', json: { source: 'nul\u0000src', sites: [{ kind: 'agent', name: 'a\ud800b', agent: 'odd\u0000bot' }] } }));
    const site = await gateway.store.db.selectFrom('discovery_sites').selectAll().where('submission_id', '=', odd.id).executeTakeFirstOrThrow();
    expect(site).toMatchObject({ location: 'nul\uFFFDsrc', name: 'a\uFFFDb', agent_hint: 'odd\uFFFDbot' });
    expect(entryOf(await shadow(gateway), 'odd\uFFFDbot')).toMatchObject({ register: { body: { slug: 'odd-bot' } } });
  });

  it('scans without a code-host connection (connected false) and raises one shadow_agent finding per agent that has none', async () => {
    const { gateway } = ctx;
    const response = await gateway.request('/api/discovery/scan', { method: 'POST', json: {}, token: await role('operator') });
    expect(response.status).toBe(200);
    const scanned = await json(response);
    expect(scanned.codehost).toEqual({ connected: false, queued: [], failed: [], error: null });
    const list = await shadow(gateway);
    expect(scanned.shadow_agents).toBe(list.items.length);
    expect(scanned.findings_raised).toBeGreaterThan(0);
    await gateway.app.services.recorder.flush();

    const findings = await gateway.store.db.selectFrom('findings').selectAll().where('type', '=', 'shadow_agent').execute();
    const byPrint = new Map(findings.map((finding) => [finding.fingerprint, finding]));
    for (const agent of ['span-bot', 'triage-bot', 'mobile-helper', 'ghost-bot']) {
      expect(byPrint.has(fingerprint('shadow_agent', 'agent:None', [agent])), agent).toBe(true);
    }
    // ghost-bot's finding came from the pipeline: the scan raised no second one.
    expect(findings.filter((finding) => finding.fingerprint === fingerprint('shadow_agent', 'agent:None', ['ghost-bot']))).toHaveLength(1);
    expect(findings.filter((finding) => finding.title.startsWith('Unregistered agent ghost-bot'))).toHaveLength(0);
    const raised = byPrint.get(fingerprint('shadow_agent', 'agent:None', ['triage-bot']));
    expect(raised).toMatchObject({ severity: 'medium', subject: 'agent:None', agent: null, title: 'Unregistered agent triage-bot seen in code' });

    const again = await json(gateway.request('/api/discovery/scan', { method: 'POST', json: {} }));
    expect(again.findings_raised).toBe(0);
    const audits = await gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'discovery.scanned').execute();
    expect(audits).toHaveLength(2);
    expect(JSON.parse(audits[0]!.detail)).toMatchObject({ connected: false, queued: [], findings_raised: scanned.findings_raised });
  });

  it('with a connected code host queues a discovery scan per repository and reports the ones that failed', async () => {
    const { gateway } = ctx;
    const asked: Array<{ repo_full_name: string; trigger: string; requested_by: string }> = [];
    // The code-host contract as another implementation serves it (the real one needs a connection).
    const codehost: CodehostScanning = {
      connected: async () => true,
      listRepoNames: async (limit) => ['acme/a', 'acme/broken', 'acme/b'].slice(0, limit),
      queueScan: async (input) => {
        asked.push({ repo_full_name: input.repo_full_name, trigger: input.trigger, requested_by: input.requested_by });
        if (input.repo_full_name === 'acme/broken') throw new Error('repository not readable');
        return { scan_id: `chs_${input.repo_full_name.replace('/', '_')}`, job_id: 'job_1' };
      },
      scanNow: async () => {
        throw new Error('not used by discovery');
      },
    };
    const service = new DiscoveryService({ ...gateway.app.services.discovery.deps, codehost });
    const operator = { kind: 'operator' as const, role: 'operator' as const, tokenId: 'tok_test', tokenHash: 'h', name: 'ops', owner: 'ops', expiresAt: null };
    const scanned = await service.scan(operator);
    expect(scanned.codehost).toEqual({
      connected: true,
      queued: [
        { repo_full_name: 'acme/a', scan_id: 'chs_acme_a' },
        { repo_full_name: 'acme/b', scan_id: 'chs_acme_b' },
      ],
      failed: [{ repo_full_name: 'acme/broken', reason: 'repository not readable' }],
      error: null,
    });
    expect(asked.map((item) => item.trigger)).toEqual(['discovery', 'discovery', 'discovery']);
    expect(asked[0]!.requested_by).toBe('ops (tok_test)');
  });

  it('lets viewers read and operators change; no credential is 401', async () => {
    const { gateway } = ctx;
    const viewer = await role('viewer');
    expect((await gateway.request('/api/discovery/shadow', { token: null })).status).toBe(401);
    expect((await gateway.request('/api/discovery/scan', { method: 'POST', json: {}, token: null })).status).toBe(401);
    expect((await gateway.request('/api/discovery/scan', { method: 'POST', json: {}, token: viewer })).status).toBe(403);
    expect((await gateway.request('/api/discovery/submit', { method: 'POST', json: { source: 's' }, token: viewer })).status).toBe(403);
    expect((await gateway.request('/api/discovery/submit', { method: 'POST', json: { source: 's' }, token: null })).status).toBe(401);
    for (const query of ['?window_days=0', '?window_days=366', '?window_days=x']) {
      expect((await gateway.request(`/api/discovery/shadow${query}`)).status, query).toBe(400);
    }
  });

  it('answers hostile input with a 4xx problem or a success, never a 5xx', async () => {
    const paths = ['/api/discovery/scan', '/api/discovery/shadow', '/api/discovery/submit'];
    const { failures, operations, sent } = await hostileRequestFailures(ctx.gateway, paths);
    expect(operations).toEqual(['GET /api/discovery/shadow', 'POST /api/discovery/scan', 'POST /api/discovery/submit']);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(10);
  }, 120_000);
});
