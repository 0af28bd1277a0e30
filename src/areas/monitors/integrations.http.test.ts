// Monitors and discovery end to end with the real integration services on both dialects: a
// monitor on a code-host repository (the fake code host on 127.0.0.1 serving the fixture
// repository) and one on a hosted API's OpenAPI document take a baseline through the real
// CodehostService and HostedApiService, see nothing new, then report the change as monitor_change;
// the agents found in the scanned code appear in GET /api/discovery/shadow.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codehostFixtureFiles } from '../../../test/fixtures/codehost-repo.js';
import { FakeCodehost } from '../../../test/helpers/fake-codehost.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';

const TOKEN = 'ghp_monitorIntegrationToken0000000001';
const REPO = 'acme/agents';

const chatOnly = () => ({ '/v1/chat/completions': { post: { operationId: 'chat', responses: { '200': { description: 'ok' } } } } }) as Record<string, unknown>;
/** An OpenAPI document whose operations the test changes. */
const document = { openapi: '3.0.3', info: { title: 'Chat', version: '1' }, paths: chatOnly() };

// Started before the gateways are configured: their settings name these servers.
const codehost = new FakeCodehost(TOKEN);
await codehost.start();
codehost.addRepo(REPO, codehostFixtureFiles());
const api: Server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document)));
await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/openapi.json`;
afterAll(async () => {
  await codehost.close();
  await new Promise<void>((resolve) => api.close(() => resolve()));
});

async function runJob(gateway: TestGateway, runId: string): Promise<void> {
  for (let tick = 0; tick < 30; tick += 1) {
    const run = await gateway.store.db.selectFrom('monitor_runs').select('status').where('id', '=', runId).executeTakeFirst();
    if (run === undefined || run.status !== 'queued') return;
    await gateway.app.services.worker.tick();
  }
  throw new Error(`run ${runId} did not finish`);
}

describe.each(DIALECTS)('monitors on the integrations (%s)', (dialect) => {
  beforeAll(() => {
    document.paths = chatOnly();
    codehost.addRepo(REPO, codehostFixtureFiles());
  });
  const ctx = withGateway({ dialect, overrides: { jobs_in_process: false, monitor_min_interval_seconds: 1, outbound_allow_private: true, codehost_api_url: codehost.url } });

  const run = async (id: string) => {
    const accepted = await json(ctx.gateway.request(`/api/monitors/${id}/run`, { method: 'POST', json: {} }));
    await runJob(ctx.gateway, accepted.run_id);
    const detail = await json(ctx.gateway.request(`/api/monitors/${id}`));
    return detail.runs.find((entry: { id: string }) => entry.id === accepted.run_id);
  };
  const changes = async (subject: string) => {
    await ctx.gateway.app.services.recorder.flush();
    return ctx.gateway.store.db.selectFrom('findings').select(['type', 'occurrences']).where('type', '=', 'monitor_change').where('subject', '=', subject).execute();
  };

  it('watches a code-host repository through real scans and finds its agents for discovery', async () => {
    expect((await ctx.gateway.request('/api/integrations/codehost/connect', { method: 'POST', json: { access_token: TOKEN } })).status).toBe(200);
    const monitor = await json(ctx.gateway.request('/api/monitors', { method: 'POST', json: { kind: 'codehost_repo', target: REPO, interval_seconds: 3600 } }));
    expect((await run(monitor.id)).status).toBe('baseline');
    expect((await run(monitor.id)).status).toBe('unchanged');
    codehost.setFile(REPO, 'crew/app.py', 'from crewai import Agent\n\nresearcher = Agent(role="researcher", goal="find things")\n');
    const changed = await run(monitor.id);
    expect(changed.status).toBe('changed');
    expect(JSON.stringify(changed.changes)).toContain('framework:crewai');
    expect(await changes(`repo:${REPO}`)).toHaveLength(1);

    const shadow = await json(ctx.gateway.request('/api/discovery/shadow'));
    const fromCode = shadow.items.filter((item: { seen_in: string[] }) => item.seen_in.includes('code'));
    expect(fromCode.length).toBeGreaterThan(0);
    expect(fromCode.flatMap((item: { locations: Array<{ location: string }> }) => item.locations.map((location) => location.location))).toContain(REPO);
  });

  it('watches a hosted API document through the real reader', async () => {
    const monitor = await json(ctx.gateway.request('/api/monitors', { method: 'POST', json: { kind: 'hosted_api', target: apiUrl, interval_seconds: 3600 } }));
    expect((await run(monitor.id)).status).toBe('baseline');
    expect((await run(monitor.id)).status).toBe('unchanged');
    document.paths['/v1/embeddings'] = { post: { operationId: 'embed', responses: { '200': { description: 'ok' } } } };
    const changed = await run(monitor.id);
    expect(changed.status).toBe('changed');
    expect(JSON.stringify(changed.changes)).toContain('POST /v1/embeddings');
    expect(await changes(`api:${apiUrl}`)).toHaveLength(1);
  });
});
