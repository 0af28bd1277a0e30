// Monitors over HTTP on both dialects, runs driven by hand (jobs_in_process false): a monitor on a
// real MCP server (test/helpers/mcp-server.ts) takes a baseline, sees nothing new, then a changed
// tool (schema_drift, recurring on one finding until re-baselined) and a tool drifted from its pin;
// a knowledge source goes stale when the clock passes its SLA (stale_source); failing runs leave
// the baseline alone; the schedule queues each slot once, also with two gateway processes on one
// PostgreSQL database, and survives a restart; pause/resume; DELETE keeps the findings; roles;
// validation; hostile input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, startGateway, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { startMcpServer, type TestMcpServer } from '../../../test/helpers/mcp-server.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/postgres.js';

const OVERRIDES = { jobs_in_process: false, monitor_min_interval_seconds: 1 } as const;
const MONTH = 2_592_000;
const HOUR_MS = 3_600_000;

async function runJob(gateway: TestGateway, runId: string): Promise<void> {
  // Other jobs (a scheduled run queued by the background timer) may come first: tick until this run is done.
  for (let tick = 0; tick < 30; tick += 1) {
    const run = await gateway.store.db.selectFrom('monitor_runs').select('status').where('id', '=', runId).executeTakeFirst();
    if (run === undefined || run.status !== 'queued') return;
    await gateway.app.services.worker.tick();
  }
  throw new Error(`run ${runId} did not finish`);
}

async function findingsOf(gateway: TestGateway, type: string, subject: string) {
  await gateway.app.services.recorder.flush();
  const rows = await gateway.store.db.selectFrom('findings').selectAll().where('type', '=', type).where('subject', '=', subject).execute();
  return rows.map((row) => ({ ...row, evidence: JSON.parse(row.evidence) as Record<string, any> }));
}

describe.each(DIALECTS)('monitors (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: OVERRIDES });
  let viewer: string;
  let operator: string;
  let operatorId: string;
  let weather: TestMcpServer;

  const call = async (path: string, init: { method?: string; json?: unknown; token?: string | null } = {}) => {
    const response = await ctx.gateway.request(path, { method: init.method ?? 'GET', ...(init.json === undefined ? {} : { json: init.json }), token: init.token === undefined ? operator : init.token });
    const text = await response.text();
    return { status: response.status, type: response.headers.get('content-type') ?? '', body: text === '' ? null : JSON.parse(text) };
  };
  const create = (body: Record<string, unknown>) => call('/api/monitors', { method: 'POST', json: body });
  /** Asks for a run, runs its job, answers the run as GET /api/monitors/{id} shows it. */
  const runNow = async (id: string, body: Record<string, unknown> = {}) => {
    const accepted = await call(`/api/monitors/${id}/run`, { method: 'POST', json: body });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ monitor_id: id, run_id: expect.any(String), job_id: expect.any(String), status: 'queued' });
    await runJob(ctx.gateway, accepted.body.run_id);
    const detail = (await call(`/api/monitors/${id}`, { token: viewer })).body;
    const run = detail.runs.find((entry: any) => entry.id === accepted.body.run_id);
    expect(run).toBeDefined();
    return { run, monitor: detail };
  };

  beforeAll(async () => {
    const { gateway } = ctx;
    viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer', ttl_days: 3650 } }))).token;
    const minted = await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'ops', role: 'operator', ttl_days: 3650 } }));
    operator = minted.token;
    operatorId = minted.id;
    weather = await startMcpServer([
      { name: 'get_weather', description: 'Current weather for a city.' },
      { name: 'get_forecast', description: 'Five-day forecast for a city.' },
    ]);
    expect((await gateway.request('/api/mcp-servers', { method: 'POST', json: { name: 'weather', url: weather.url, pinned_version: '1.0.0' } })).status).toBe(201);
  });
  afterAll(async () => {
    await weather?.close();
  });

  it('an MCP server monitor: baseline, unchanged, then changed with a schema_drift finding until re-baselined; drift from a pin', async () => {
    const created = await create({ kind: 'mcp_server', target: 'weather', interval_seconds: MONTH });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body).toMatchObject({ kind: 'mcp_server', target: 'weather', name: 'mcp_server weather', enabled: true, baseline: null, config: {}, last_status: null });
    expect(Date.parse(created.body.next_run_at) - ctx.gateway.clock.now().getTime()).toBeGreaterThan((MONTH - 60) * 1000);

    const first = await runNow(id);
    expect(first.run).toMatchObject({ trigger: 'manual', status: 'baseline', changes: [], error: null });
    expect(Object.keys(first.monitor.baseline.tools).sort()).toEqual(['get_forecast', 'get_weather']);
    expect(first.monitor).toMatchObject({ last_status: 'ok', baseline_at: expect.any(String) });

    const second = await runNow(id);
    expect(second.run.status).toBe('unchanged');
    expect(await findingsOf(ctx.gateway, 'schema_drift', 'mcp:weather')).toEqual([]);

    weather.describe('get_weather', 'Current weather and the next hour for a city.');
    const third = await runNow(id);
    expect(third.run.status).toBe('changed');
    expect(third.run.changes).toEqual([{ kind: 'changed', item: 'get_weather', detail: expect.stringContaining('definition changed since the baseline') }]);
    expect(third.monitor).toMatchObject({ last_status: 'changed', last_change_at: expect.any(String), baseline: first.monitor.baseline });
    let drift = await findingsOf(ctx.gateway, 'schema_drift', 'mcp:weather');
    expect(drift).toHaveLength(1);
    expect(drift[0]!.title).toContain('changed get_weather');
    expect(drift[0]!.evidence).toMatchObject({ monitor_id: id, kind: 'mcp_server', target: 'weather', run_id: third.run.id, changes: third.run.changes, changes_total: 1 });

    // The baseline did not move: the same change is seen again and recurs on the same finding.
    const fourth = await runNow(id);
    expect(fourth.run.status).toBe('changed');
    drift = await findingsOf(ctx.gateway, 'schema_drift', 'mcp:weather');
    expect(drift).toHaveLength(1);
    expect(Number(drift[0]!.occurrences)).toBe(2);

    const rebased = await runNow(id, { rebaseline: true });
    expect(rebased.run.status).toBe('baseline');
    expect(rebased.monitor.baseline.tools.get_weather).not.toBe(first.monitor.baseline.tools.get_weather);
    expect((await runNow(id)).run.status).toBe('unchanged');

    // Pin every tool at review, then change one: it differs from the baseline and from its pin.
    expect((await call('/api/mcp-servers/weather/tools', { method: 'POST', json: {} })).status).toBe(200);
    weather.describe('get_forecast', 'Seven-day forecast for a city.');
    const pinned = await runNow(id);
    expect(pinned.run.changes).toEqual([{ kind: 'changed', item: 'get_forecast', detail: expect.stringMatching(/definition changed since the baseline .*; differs from its review pin$/) }]);
    expect(await findingsOf(ctx.gateway, 'schema_drift', 'mcp:weather')).toHaveLength(2);

    const audited = await json(ctx.gateway.request('/api/audit/entries?action=monitor.run_requested'));
    expect(audited.items.some((entry: any) => entry.target === id && entry.detail.rebaseline === true)).toBe(true);
  });

  it('DELETE removes the monitor and its runs and keeps its findings', async () => {
    const id = (await create({ kind: 'mcp_server', target: 'weather', name: 'weather watch', interval_seconds: MONTH })).body.id;
    await runNow(id);
    weather.describe('get_weather', 'Weather for a city, hourly.');
    expect((await runNow(id)).run.status).toBe('changed');
    const raised = (await findingsOf(ctx.gateway, 'schema_drift', 'mcp:weather')).filter((finding) => finding.evidence.monitor_id === id);
    expect(raised).toHaveLength(1);

    expect((await call(`/api/monitors/${id}`, { method: 'DELETE', token: viewer })).status).toBe(403);
    const deleted = await call(`/api/monitors/${id}`, { method: 'DELETE' });
    expect(deleted).toMatchObject({ status: 200, body: { id, deleted: true, runs_deleted: 2 } });
    expect((await call(`/api/monitors/${id}`, { token: viewer })).status).toBe(404);
    expect((await call(`/api/monitors/${id}`, { method: 'DELETE' })).status).toBe(404);
    expect(await ctx.gateway.store.db.selectFrom('monitor_runs').select('id').where('monitor_id', '=', id).execute()).toEqual([]);
    const kept = (await findingsOf(ctx.gateway, 'schema_drift', 'mcp:weather')).filter((finding) => finding.evidence.monitor_id === id);
    expect(kept.map((finding) => finding.id)).toEqual(raised.map((finding) => finding.id));
    const audited = await json(ctx.gateway.request('/api/audit/entries?action=monitor.deleted'));
    expect(audited.items[0]).toMatchObject({ target: id, detail: { kind: 'mcp_server', runs_deleted: 2 } });
  });

  it('a knowledge source monitor goes stale when the clock passes the SLA (stale_source)', async () => {
    const halfHourAgo = new Date(ctx.gateway.clock.now().getTime() - HOUR_MS / 2).toISOString();
    expect((await call('/api/sources', { method: 'PUT', json: { key: 'kb-handbook', tier: 'approved', updated_at_source: halfHourAgo, freshness_sla_hours: 1 } })).status).toBe(201);
    const id = (await create({ kind: 'source_freshness', target: 'kb-handbook', interval_seconds: MONTH })).body.id;
    const first = await runNow(id);
    expect(first.run.status).toBe('baseline');
    expect(first.monitor.baseline).toEqual({ stale: false, deprecated: false });
    expect(await findingsOf(ctx.gateway, 'stale_source', 'source:kb-handbook')).toEqual([]);

    ctx.gateway.clock.advance(HOUR_MS);
    const stale = await runNow(id);
    expect(stale.run.status).toBe('changed');
    expect(stale.run.changes).toEqual([{ kind: 'changed', item: 'stale', detail: expect.stringContaining('more than the 1 h freshness SLA ago') }]);
    const raised = await findingsOf(ctx.gateway, 'stale_source', 'source:kb-handbook');
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ severity: 'medium', title: expect.stringContaining('kb-handbook is stale') });
    expect(raised[0]!.evidence).toMatchObject({ monitor_id: id, kind: 'source_freshness', target: 'kb-handbook', run_id: stale.run.id });

    // Gone from the registry: the run fails and the baseline stays.
    expect((await call('/api/sources/kb-handbook?hard=true', { method: 'DELETE' })).status).toBe(200);
    const failed = await runNow(id);
    expect(failed.run).toMatchObject({ status: 'failed', error: expect.stringContaining('no longer registered') });
    expect(failed.monitor).toMatchObject({ last_status: 'failed', last_error: expect.stringContaining('no longer registered'), baseline: { stale: false, deprecated: false } });
  });

  it('failed runs take no baseline (a hosted API that cannot be read, a repository without a code host)', async () => {
    for (const body of [
      { kind: 'hosted_api', target: 'https://api.invalid/openapi.json' },
      { kind: 'codehost_repo', target: 'acme/agents', config: { ref: 'main' } },
    ]) {
      const created = await create({ ...body, interval_seconds: MONTH });
      expect(created.status).toBe(201);
      const { run, monitor } = await runNow(created.body.id);
      expect(run.status).toBe('failed');
      expect(run.error).toEqual(expect.any(String));
      expect(monitor).toMatchObject({ last_status: 'failed', baseline: null, baseline_at: null });
    }
  });

  it('the schedule queues each due slot once, with its monitor_runs row and job', async () => {
    const { gateway } = ctx;
    const services = gateway.app.services;
    const id = (await create({ kind: 'mcp_server', target: 'weather', interval_seconds: 60 })).body.id;
    const slot = (await call(`/api/monitors/${id}`)).body.next_run_at as string;
    const schedule = () => gateway.store.db.selectFrom('monitor_runs').selectAll().where('monitor_id', '=', id).where('trigger', '=', 'schedule').execute();
    await services.monitors.scheduleDue();
    expect(await schedule()).toEqual([]);

    gateway.clock.advance(61_000);
    // The background timer may claim the slot first: either way it is claimed once.
    const queued = await Promise.all([services.monitors.scheduleDue(), services.monitors.scheduleDue()]);
    expect(queued.filter((count) => count > 0).length).toBeLessThanOrEqual(1);
    const runs = await schedule();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ slot, status: 'queued' });
    const jobs = await gateway.store.db.selectFrom('jobs').selectAll().where('kind', '=', 'monitors.run').where('id', '=', runs[0]!.job_id!).execute();
    expect(jobs).toHaveLength(1);
    expect(JSON.parse(jobs[0]!.payload)).toMatchObject({ monitor_id: id, run_id: runs[0]!.id });
    const moved = (await call(`/api/monitors/${id}`)).body.next_run_at;
    expect(Date.parse(moved)).toBeGreaterThan(Date.parse(slot));
    expect(await services.monitors.scheduleDue()).toBe(0);

    await runJob(gateway, runs[0]!.id);
    expect((await call(`/api/monitors/${id}`)).body.runs[0]).toMatchObject({ id: runs[0]!.id, trigger: 'schedule', status: 'baseline' });
    expect((await call(`/api/monitors/${id}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('pause stops the schedule; resume makes the monitor due now; a scheduled run of a paused monitor does nothing', async () => {
    const { gateway } = ctx;
    const services = gateway.app.services;
    const id = (await create({ kind: 'mcp_server', target: 'weather', interval_seconds: 30 })).body.id;
    expect((await call(`/api/monitors/${id}/pause`, { method: 'POST', token: viewer })).status).toBe(403);
    const paused = await call(`/api/monitors/${id}/pause`, { method: 'POST' });
    expect(paused.body).toMatchObject({ enabled: false, next_run_at: null });
    gateway.clock.advance(31_000);
    await services.monitors.scheduleDue();
    const schedule = () => gateway.store.db.selectFrom('monitor_runs').selectAll().where('monitor_id', '=', id).where('trigger', '=', 'schedule').execute();
    expect(await schedule()).toEqual([]);
    expect((await call(`/api/monitors?enabled=false`, { token: viewer })).body.items.map((item: any) => item.id)).toContain(id);

    const resumed = await call(`/api/monitors/${id}/resume`, { method: 'POST' });
    expect(resumed.body.enabled).toBe(true);
    expect(Date.parse(resumed.body.next_run_at)).toBeLessThanOrEqual(gateway.clock.now().getTime());
    await services.monitors.scheduleDue();
    const runs = await schedule();
    expect(runs).toHaveLength(1);

    // Paused after the slot was claimed: the run does not look at the target.
    await call(`/api/monitors/${id}/pause`, { method: 'POST' });
    await runJob(gateway, runs[0]!.id);
    const detail = (await call(`/api/monitors/${id}`)).body;
    expect(detail.runs[0]).toMatchObject({ id: runs[0]!.id, status: 'failed', error: 'the monitor was paused before the run started' });
    expect(detail).toMatchObject({ baseline: null, last_status: null });

    // A paused monitor still runs when asked to.
    expect((await runNow(id)).run.status).toBe('baseline');

    // PATCH enabled works like pause/resume; a new interval moves the next run.
    const patched = await call(`/api/monitors/${id}`, { method: 'PATCH', json: { enabled: true, interval_seconds: 120, name: 'renamed' } });
    expect(patched.body).toMatchObject({ enabled: true, interval_seconds: 120, name: 'renamed' });
    const audited = await json(gateway.request('/api/audit/entries?action=monitor.paused'));
    expect(audited.items.some((entry: any) => entry.target === id)).toBe(true);
    expect((await call(`/api/monitors/${id}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('PATCH config clears the baseline; lists filter by kind and enabled and page', async () => {
    const id = (await create({ kind: 'mcp_server', target: 'weather', interval_seconds: MONTH, config: { check_pins: true } })).body.id;
    await runNow(id);
    const same = await call(`/api/monitors/${id}`, { method: 'PATCH', json: { config: { check_pins: true } } });
    expect(same.body.baseline).not.toBeNull();
    const changed = await call(`/api/monitors/${id}`, { method: 'PATCH', json: { config: { check_pins: false } } });
    expect(changed.body).toMatchObject({ config: { check_pins: false }, baseline: null, baseline_at: null });
    const audited = await json(ctx.gateway.request('/api/audit/entries?action=monitor.updated'));
    expect(audited.items[0]).toMatchObject({ target: id, detail: { config: { check_pins: false }, baseline_cleared: true } });

    const mcpOnly = (await call('/api/monitors?kind=mcp_server', { token: viewer })).body;
    expect(mcpOnly.items.every((item: any) => item.kind === 'mcp_server')).toBe(true);
    const firstPage = (await call('/api/monitors?limit=1', { token: viewer })).body;
    expect(firstPage.items).toHaveLength(1);
    expect(firstPage.next_cursor).toEqual(expect.any(String));
    const secondPage = (await call(`/api/monitors?limit=1&cursor=${firstPage.next_cursor}`, { token: viewer })).body;
    expect(secondPage.items[0].id < firstPage.items[0].id).toBe(true);
  });

  it('roles: viewers read, operators change, no credential is a 401', async () => {
    expect((await call('/api/monitors', { token: null })).status).toBe(401);
    expect((await call('/api/monitors', { token: viewer })).status).toBe(200);
    expect((await call('/api/monitors', { method: 'POST', json: { kind: 'mcp_server', target: 'weather' }, token: viewer })).status).toBe(403);
    const id = (await create({ kind: 'mcp_server', target: 'weather', interval_seconds: MONTH })).body.id;
    for (const [method, path, body] of [
      ['PATCH', `/api/monitors/${id}`, { name: 'x' }],
      ['POST', `/api/monitors/${id}/run`, {}],
      ['POST', `/api/monitors/${id}/resume`, {}],
    ] as const) {
      expect((await call(path, { method, json: body, token: viewer })).status).toBe(403);
      expect((await call(path, { method, json: body, token: null })).status).toBe(401);
    }
    expect((await call(`/api/monitors/${id}`, { token: viewer })).status).toBe(200);
    const created = await json(ctx.gateway.request('/api/audit/entries?action=monitor.created'));
    expect(created.items.some((entry: any) => entry.target === id && String(entry.actor).includes(operatorId))).toBe(true);
  });

  it('refuses bad input and changes nothing', async () => {
    const count = async () => (await ctx.gateway.store.db.selectFrom('monitors').select('id').execute()).length;
    const before = await count();
    const cases: Array<[Record<string, unknown>, number, string?]> = [
      [{ kind: 'mcp_server', target: 'weather', interval_seconds: 0 }, 400],
      [{ kind: 'mcp_server', target: 'weather', interval_seconds: MONTH + 1 }, 422, '/body/interval_seconds'],
      [{ kind: 'smtp_server', target: 'weather' }, 400],
      [{ kind: 'mcp_server' }, 400],
      [{ kind: 'mcp_server', target: 'weather', colour: 'red' }, 400],
      [{ kind: 'mcp_server', target: 'not-registered' }, 422, '/body/target'],
      [{ kind: 'hosted_api', target: 'http://127.0.0.1:9/openapi.json' }, 422, '/body/target'],
      [{ kind: 'hosted_api', target: 'ftp://example.com/openapi.json' }, 422, '/body/target'],
      [{ kind: 'hosted_api', target: 'not a url' }, 422, '/body/target'],
      [{ kind: 'codehost_repo', target: 'just-a-name' }, 422, '/body/target'],
      [{ kind: 'codehost_repo', target: 'a/b/c' }, 422, '/body/target'],
      [{ kind: 'source_freshness', target: 'no-such-source' }, 422, '/body/target'],
      [{ kind: 'codehost_repo', target: 'acme/agents', config: { branch: 'main' } }, 422, '/body/config/branch'],
      [{ kind: 'codehost_repo', target: 'acme/agents', config: { ref: 12 } }, 422, '/body/config/ref'],
      [{ kind: 'mcp_server', target: 'weather', config: 'yes' }, 400],
    ];
    for (const [body, status, field] of cases) {
      const answer = await create(body);
      expect({ body, status: answer.status }).toEqual({ body, status });
      expect(answer.type).toContain('application/problem+json');
      if (field !== undefined) expect(answer.body.errors.map((error: any) => error.field)).toContain(field);
    }
    const id = (await create({ kind: 'mcp_server', target: 'weather', interval_seconds: MONTH })).body.id;
    expect((await call(`/api/monitors/${id}`, { method: 'PATCH', json: { interval_seconds: MONTH * 2 } })).status).toBe(422);
    expect((await call(`/api/monitors/${id}`, { method: 'PATCH', json: { config: { nope: 1 } } })).status).toBe(422);
    expect((await call(`/api/monitors/${id}`, { method: 'PATCH', json: { target: 'other' } })).status).toBe(400);
    expect((await call(`/api/monitors/${id}/run`, { method: 'POST', json: { rebaseline: 'yes' } })).status).toBe(400);
    expect((await call(`/api/monitors/${id}`)).body).toMatchObject({ interval_seconds: MONTH, config: {} });
    for (const [method, path] of [
      ['GET', '/api/monitors/mon_missing'],
      ['PATCH', '/api/monitors/mon_missing'],
      ['DELETE', '/api/monitors/mon_missing'],
      ['POST', '/api/monitors/mon_missing/pause'],
      ['POST', '/api/monitors/mon_missing/resume'],
      ['POST', '/api/monitors/mon_missing/run'],
    ] as const) {
      expect((await call(path, { method, ...(method === 'GET' || method === 'DELETE' ? {} : { json: {} }) })).status).toBe(404);
    }
    expect(await count()).toBe(before + 1);
  });

  it('answers malformed and hostile input with a 4xx problem or a success, never a 5xx', async () => {
    const { failures, sent, operations } = await hostileRequestFailures(ctx.gateway, [
      '/api/monitors',
      '/api/monitors/{monitor_id}',
      '/api/monitors/{monitor_id}/pause',
      '/api/monitors/{monitor_id}/resume',
      '/api/monitors/{monitor_id}/run',
    ]);
    expect(operations).toEqual([
      'DELETE /api/monitors/{monitor_id}',
      'GET /api/monitors',
      'GET /api/monitors/{monitor_id}',
      'PATCH /api/monitors/{monitor_id}',
      'POST /api/monitors',
      'POST /api/monitors/{monitor_id}/pause',
      'POST /api/monitors/{monitor_id}/resume',
      'POST /api/monitors/{monitor_id}/run',
    ]);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(20);
  }, 120_000);
});

describe('monitors across gateway processes (postgres)', () => {
  let database: TestDatabase;
  const gateways: TestGateway[] = [];
  let weather: TestMcpServer;
  /** How far every gateway's clock has been moved: a new process starts at the real time. */
  let advanced = 0;
  const advanceAll = (ms: number) => {
    advanced += ms;
    for (const gateway of gateways) gateway.clock.advance(ms);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    gateways.push(await startGateway({ dialect: 'postgres', databaseUrl: database.url, overrides: OVERRIDES }));
    gateways.push(await startGateway({ dialect: 'postgres', databaseUrl: database.url, overrides: OVERRIDES }));
    weather = await startMcpServer([{ name: 'get_weather', description: 'Current weather for a city.' }]);
  });
  afterAll(async () => {
    for (const gateway of gateways.splice(0)) await gateway.close();
    await weather?.close();
    await database?.drop();
  });

  it('two processes calling scheduleDue together give each due slot exactly one run and one job; a restart keeps the schedule', async () => {
    const [first, second] = gateways as [TestGateway, TestGateway];
    expect((await first.request('/api/mcp-servers', { method: 'POST', json: { name: 'weather', url: weather.url } })).status).toBe(201);
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const created = await first.request('/api/monitors', { method: 'POST', json: { kind: 'mcp_server', target: 'weather', name: `watch ${index}`, interval_seconds: 60 } });
      expect(created.status).toBe(201);
      ids.push((await json(created)).id as string);
    }
    const runsOf = (gateway: TestGateway = first) => gateway.store.db.selectFrom('monitor_runs').selectAll().where('trigger', '=', 'schedule').execute();

    for (let round = 1; round <= 3; round += 1) {
      advanceAll(61_000);
      const counts = await Promise.all([first, second, first, second].map((gateway) => gateway.app.services.monitors.scheduleDue()));
      expect(counts.reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(ids.length);
      const runs = await runsOf();
      expect(runs).toHaveLength(ids.length * round);
      for (const id of ids) {
        const mine = runs.filter((run) => run.monitor_id === id);
        expect(mine).toHaveLength(round);
        expect(new Set(mine.map((run) => run.slot)).size).toBe(round);
      }
      const jobs = await first.store.db.selectFrom('jobs').select(['id', 'payload']).where('kind', '=', 'monitors.run').execute();
      expect(jobs).toHaveLength(runs.length);
      expect(new Set(jobs.map((job) => JSON.parse(job.payload).run_id))).toEqual(new Set(runs.map((run) => run.id)));
    }

    // Restart: both processes go, a new one on the same database finds the schedule where it was.
    const before = await json(first.request(`/api/monitors/${ids[0]}`));
    for (const gateway of gateways.splice(0)) await gateway.close();
    const third = await startGateway({ dialect: 'postgres', databaseUrl: database.url, overrides: OVERRIDES });
    gateways.push(third);
    third.clock.advance(advanced);
    const after = await json(third.request(`/api/monitors/${ids[0]}`));
    expect(after.next_run_at).toBe(before.next_run_at);
    expect(after.runs).toHaveLength(3);
    expect(await third.app.services.monitors.scheduleDue()).toBe(0);
    advanceAll(61_000);
    await third.app.services.monitors.scheduleDue();
    expect(await runsOf(third)).toHaveLength(ids.length * 4);

    // The queued runs run in the new process; each slot's first run takes the baseline.
    const oldest = (await third.store.db.selectFrom('monitor_runs').selectAll().where('monitor_id', '=', ids[0]!).orderBy('created_at').execute())[0]!;
    await runJob(third, oldest.id);
    const done = await third.store.db.selectFrom('monitor_runs').select('status').where('id', '=', oldest.id).executeTakeFirstOrThrow();
    expect(['baseline', 'unchanged']).toContain(done.status);
  }, 60_000);
});
