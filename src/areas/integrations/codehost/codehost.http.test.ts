// The code-host integration over HTTP on both dialects against a fake code host on 127.0.0.1
// serving the fixture repository: the token sealed and answered by nothing, repositories, a scan
// run by the job worker (frameworks, MCP servers, the planted secret with file and line, findings,
// discovery sites), the signed webhook (signed push queues a rescan; unsigned, wrongly signed and
// replayed deliveries change nothing), roles, a misbehaving code host, and the fuzz walk.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { CODEHOST_FIXTURE_EXPECTED as EXPECTED, codehostFixtureFiles } from '../../../../test/fixtures/codehost-repo.js';
import { FakeCodehost } from '../../../../test/helpers/fake-codehost.js';
import { hostileRequestFailures, malformedRequestFailures } from '../../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../../test/helpers/gateway.js';
import { CodehostService } from './service.js';
import { signatureOf } from './webhook.js';

// Built at run time so that no scanner mistakes it for a real credential.
const TOKEN = ['ghp', 'fakeTokenForParapetTests0000000000000'].join('_');
const REPO = 'acme/support-agents';
const PATHS = [
  '/api/integrations/codehost/connect',
  '/api/integrations/codehost/repos',
  '/api/integrations/codehost/scan',
  '/api/integrations/codehost/scans/{scan_id}',
  '/api/integrations/codehost/webhook-secret',
  '/api/integrations/codehost/webhook',
];

const fake = new FakeCodehost(TOKEN);
await fake.start();
fake.addRepo(REPO, codehostFixtureFiles());
fake.addRepo('acme/docs', [{ path: 'README.md', content: '# Docs\n' }]);
afterAll(() => fake.close());

async function count(gateway: TestGateway, table: 'codehost_scans' | 'codehost_deliveries' | 'jobs' | 'audit_entries' | 'codehost_connections' | 'codehost_webhook_secrets'): Promise<number> {
  const row = await gateway.store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function tokenFor(gateway: TestGateway, role: 'viewer' | 'operator'): Promise<string> {
  return (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: `codehost ${role} ${randomUUID()}`, role } }))).token as string;
}

/** Runs queued jobs until none is due (bounded). */
async function drain(gateway: TestGateway): Promise<number> {
  let ran = 0;
  for (let round = 0; round < 20 && (await gateway.app.services.worker.tick()); round += 1) ran += 1;
  await gateway.app.services.recorder.flush();
  return ran;
}

async function connect(gateway: TestGateway): Promise<Response> {
  return gateway.request('/api/integrations/codehost/connect', { method: 'POST', json: { access_token: TOKEN } });
}

function postWebhook(gateway: TestGateway, body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${gateway.url}/api/integrations/codehost/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

describe.each(DIALECTS)('code host (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { outbound_allow_private: true, codehost_api_url: fake.url, jobs_in_process: false } });
  /** Every answer body seen, to show the token and the webhook secret appear in none but the one that shows it. */
  const answers: string[] = [];
  const remember = async (response: Response): Promise<string> => {
    const text = await response.text();
    answers.push(text);
    return text;
  };

  beforeEach(() => {
    fake.misbehave(null);
  });

  it('refuses callers without the role, and repository calls before a connection', async () => {
    const { gateway } = ctx;
    const viewer = await tokenFor(gateway, 'viewer');
    const operator = await tokenFor(gateway, 'operator');
    const post = (path: string, token: string | null, body: unknown = {}) => gateway.request(path, { method: 'POST', json: body, token });
    expect((await post('/api/integrations/codehost/connect', null, { access_token: TOKEN })).status).toBe(401);
    expect((await post('/api/integrations/codehost/connect', viewer, { access_token: TOKEN })).status).toBe(403);
    expect((await post('/api/integrations/codehost/connect', operator, { access_token: TOKEN })).status).toBe(403);
    expect((await post('/api/integrations/codehost/webhook-secret', operator)).status).toBe(403);
    expect((await post('/api/integrations/codehost/scan', viewer, { repo_full_name: REPO })).status).toBe(403);
    expect((await gateway.request('/api/integrations/codehost/repos', { token: null })).status).toBe(401);
    expect(await count(gateway, 'codehost_connections')).toBe(0);

    const repos = await gateway.request('/api/integrations/codehost/repos', { token: viewer });
    expect(repos.status).toBe(409);
    expect(repos.headers.get('content-type')).toContain('application/problem+json');
    expect((await post('/api/integrations/codehost/scan', operator, { repo_full_name: REPO })).status).toBe(409);
    expect((await post('/api/integrations/codehost/scan', operator, { repo_full_name: 'not a repo' })).status).toBe(400);
    expect((await post('/api/integrations/codehost/scan', operator, { repo_full_name: 'acme/..' })).status).toBe(422);
    expect((await post('/api/integrations/codehost/scan', operator, { repo_full_name: REPO, ref: 'main..evil' })).status).toBe(422);
    expect((await post('/api/integrations/codehost/scan', operator, { repo_full_name: REPO, ref: 'main\ud800' })).status).toBe(422);
    expect(await count(gateway, 'codehost_scans')).toBe(0);
  });

  it('refuses a token the code host refuses (422) and stores nothing', async () => {
    const { gateway } = ctx;
    const audits = await count(gateway, 'audit_entries');
    const response = await gateway.request('/api/integrations/codehost/connect', { method: 'POST', json: { access_token: 'ghp_wrong' } });
    expect(response.status).toBe(422);
    expect((await json(response)).detail).toContain('refused the token');
    expect(await count(gateway, 'codehost_connections')).toBe(0);
    expect(await count(gateway, 'audit_entries')).toBe(audits);
  });

  it('connects: the token checked against the code host, sealed, and answered by nothing', async () => {
    const { gateway } = ctx;
    fake.requests.length = 0;
    const response = await connect(gateway);
    const text = await remember(response);
    expect(response.status).toBe(200);
    const body = JSON.parse(text);
    expect(body).toMatchObject({ connected: true, base_url: fake.url, account_login: 'octo-tester', token_hint: `${TOKEN.slice(0, 4)}…` });
    expect(text).not.toContain(TOKEN);
    const call = fake.requests.find((request) => request.path === '/user');
    expect(call).toMatchObject({ authorization: `Bearer ${TOKEN}`, accept: 'application/vnd.github+json' });
    expect(call?.userAgent).toBeTruthy();

    const row = await gateway.store.db.selectFrom('codehost_connections').selectAll().executeTakeFirstOrThrow();
    expect(row.id).toBe('default');
    expect(row.token_sealed).not.toContain(TOKEN);
    expect(JSON.stringify(row)).not.toContain(TOKEN.slice(4));
    expect(gateway.app.services.sealer.unseal(row.token_sealed)).toBe(TOKEN);

    // Connecting again replaces the connection (one row).
    expect((await connect(gateway)).status).toBe(200);
    expect(await count(gateway, 'codehost_connections')).toBe(1);
    const audits = await gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'codehost.connected').execute();
    expect(audits).toHaveLength(2);
    expect(JSON.stringify(audits)).not.toContain(TOKEN.slice(4));
  });

  it('lists the repositories the connection can read', async () => {
    const { gateway } = ctx;
    const viewer = await tokenFor(gateway, 'viewer');
    const response = await gateway.request('/api/integrations/codehost/repos', { token: viewer });
    const body = JSON.parse(await remember(response));
    expect(response.status).toBe(200);
    expect(body.items).toEqual([
      { full_name: 'acme/docs', default_branch: 'main', private: false, updated_at: '2026-11-01T00:00:00Z' },
      { full_name: REPO, default_branch: 'main', private: false, updated_at: '2026-11-01T00:00:00Z' },
    ]);
  });

  it('scans a repository as a job: frameworks, MCP servers, the planted secret with file and line, findings and sites', async () => {
    const { gateway } = ctx;
    const operator = await tokenFor(gateway, 'operator');
    const queued = await gateway.request('/api/integrations/codehost/scan', { method: 'POST', json: { repo_full_name: REPO }, token: operator });
    expect(queued.status).toBe(202);
    const accepted = JSON.parse(await remember(queued));
    expect(accepted).toMatchObject({ status: 'queued', scan_id: expect.stringMatching(/^chs_/), job_id: expect.any(String) });
    const job = await gateway.store.db.selectFrom('jobs').selectAll().where('id', '=', accepted.job_id).executeTakeFirstOrThrow();
    expect(job.kind).toBe('codehost.scan');
    expect((await json(gateway.request(`/api/integrations/codehost/scans/${accepted.scan_id}`))).status).toBe('queued');

    fake.requests.length = 0;
    expect(await drain(gateway)).toBeGreaterThanOrEqual(1);
    const scanResponse = await gateway.request(`/api/integrations/codehost/scans/${accepted.scan_id}`, { token: await tokenFor(gateway, 'viewer') });
    const scan = JSON.parse(await remember(scanResponse));
    expect(scan.error).toBeNull();
    expect(scan.status).toBe('completed');
    expect(scan.trigger).toBe('manual');
    expect(scan.commit_sha).toBe(fake.commitOf(REPO));
    // Nothing under node_modules was fetched; files were read at the scanned commit.
    const contentCalls = fake.requests.filter((request) => request.path.includes('/contents/'));
    expect(contentCalls.length).toBe(scan.files_scanned);
    expect(contentCalls.some((request) => request.path.includes('node_modules'))).toBe(false);
    expect(contentCalls.every((request) => request.path.endsWith(`?ref=${fake.commitOf(REPO)}`))).toBe(true);

    const report = scan.report;
    expect(report.frameworks).toEqual(expect.arrayContaining([...EXPECTED.frameworks]));
    expect(report.model_clients).toEqual(expect.arrayContaining([...EXPECTED.modelClients]));
    expect(report.mcp_servers.map((server: { name: string }) => server.name)).toEqual(expect.arrayContaining([...EXPECTED.mcpServers]));
    expect(report.secrets).toEqual(expect.arrayContaining([expect.objectContaining(EXPECTED.secret)]));
    expect(report.prompts).toEqual(expect.arrayContaining([expect.objectContaining({ risky: true, path: EXPECTED.riskyPromptPath, line: EXPECTED.riskyPromptLine })]));
    // The pipeline trial tells the prompts apart: the plain ones are not risky.
    const benign = report.prompts.filter((prompt: { risky: boolean }) => !prompt.risky);
    expect(benign.length).toBeGreaterThan(0);
    expect(report.prompts.find((prompt: { path: string; line: number }) => prompt.path === EXPECTED.riskyPromptPath && prompt.line === EXPECTED.riskyPromptLine).entities.some((entity: string) => entity.startsWith('INJECTION.'))).toBe(true);
    expect(report.signature).toEqual([...report.signature].sort());
    expect(report.signature).toEqual(expect.arrayContaining([`secret:${EXPECTED.secret.path}:${EXPECTED.secret.entity}`, `prompt_risky:${EXPECTED.riskyPromptPath}`]));
    expect(report.counts.files_scanned).toBe(scan.files_scanned);

    const findings = await gateway.store.db.selectFrom('findings').selectAll().execute();
    const secretFinding = findings.find((finding) => finding.type === 'hardcoded_secret');
    expect(secretFinding).toMatchObject({ subject: `repo:${REPO}`, severity: 'high' });
    expect(JSON.parse(secretFinding?.evidence ?? '{}')).toMatchObject({ origin: 'codehost', repo: REPO, path: EXPECTED.secret.path, line: EXPECTED.secret.line });
    expect(findings.some((finding) => finding.type === 'risky_prompt' && finding.subject === `repo:${REPO}`)).toBe(true);
    const shadow = findings.filter((finding) => finding.type === 'shadow_agent');
    expect(shadow.length).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(shadow[0]?.evidence ?? '{}')).toMatchObject({ origin: 'codehost', repo: REPO });

    const sites = await gateway.store.db.selectFrom('discovery_sites').selectAll().where('origin', '=', 'codehost').where('location', '=', REPO).execute();
    expect(sites.length).toBe(report.counts.sites);
    expect(sites.some((site) => site.kind === 'mcp_server')).toBe(true);
    expect(sites.some((site) => site.kind === 'secret' && site.path === EXPECTED.secret.path && Number(site.line) === EXPECTED.secret.line)).toBe(true);
    expect(JSON.stringify(sites)).not.toContain(EXPECTED.secretValueFragment);
    expect(JSON.stringify(report)).not.toContain(EXPECTED.secretValueFragment);

    // A rescan replaces the sites and keeps when each was first seen.
    gateway.clock.advance(60_000);
    const again = await json(gateway.request('/api/integrations/codehost/scan', { method: 'POST', json: { repo_full_name: REPO, ref: 'main' }, token: operator }));
    await drain(gateway);
    expect((await json(gateway.request(`/api/integrations/codehost/scans/${again.scan_id}`))).status).toBe('completed');
    const later = await gateway.store.db.selectFrom('discovery_sites').selectAll().where('location', '=', REPO).execute();
    expect(later.length).toBe(sites.length);
    const firstSeen = new Map(sites.map((site) => [`${site.kind}|${site.name}|${site.path}`, site.first_seen_at]));
    for (const site of later) {
      expect(site.first_seen_at).toBe(firstSeen.get(`${site.kind}|${site.name}|${site.path}`));
      expect(site.last_seen_at > site.first_seen_at).toBe(true);
    }
    // The same secret seen twice is one finding.
    const secretFindings = await gateway.store.db.selectFrom('findings').select('id').where('type', '=', 'hardcoded_secret').where('subject', '=', `repo:${REPO}`).execute();
    expect(secretFindings.length).toBe(report.secrets.length);
  });

  it('answers 404 for an unknown scan and a failed scan for a repository the code host does not have', async () => {
    const { gateway } = ctx;
    expect((await gateway.request('/api/integrations/codehost/scans/chs_nope')).status).toBe(404);
    const queued = await json(gateway.request('/api/integrations/codehost/scan', { method: 'POST', json: { repo_full_name: 'acme/missing' } }));
    await drain(gateway);
    const scan = await json(gateway.request(`/api/integrations/codehost/scans/${queued.scan_id}`));
    expect(scan.status).toBe('failed');
    expect(scan.error).toContain('404');
    expect(scan.error).not.toContain(TOKEN);
  });

  it('creates the webhook secret (shown once, sealed) and acts only on signed, new deliveries', async () => {
    const { gateway } = ctx;
    const unsignedBefore = { deliveries: await count(gateway, 'codehost_deliveries'), scans: await count(gateway, 'codehost_scans') };
    // Before any secret exists, nothing verifies.
    const early = await postWebhook(gateway, '{"zen":"x"}', { 'x-hub-signature-256': signatureOf('anything', '{"zen":"x"}'), 'x-github-delivery': randomUUID(), 'x-github-event': 'ping' });
    expect(early.status).toBe(401);

    const created = await gateway.request('/api/integrations/codehost/webhook-secret', { method: 'POST', json: {} });
    expect(created.status).toBe(201);
    const { secret, header, algorithm, replaced } = await json(created);
    expect({ header, algorithm, replaced }).toEqual({ header: 'X-Hub-Signature-256', algorithm: 'sha256', replaced: false });
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    const stored = await gateway.store.db.selectFrom('codehost_webhook_secrets').selectAll().executeTakeFirstOrThrow();
    expect(stored.secret_sealed).not.toContain(secret);
    const secretAudit = await gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'codehost.webhook_secret_set').execute();
    expect(secretAudit).toHaveLength(1);
    expect(JSON.stringify(secretAudit)).not.toContain(secret);

    const ping = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    const pingId = randomUUID();
    const pong = await postWebhook(gateway, ping, { 'x-hub-signature-256': signatureOf(secret, ping), 'x-github-delivery': pingId, 'x-github-event': 'ping' });
    expect(pong.status).toBe(200);
    expect(await json(pong)).toEqual({ delivery_id: pingId, event: 'ping', ok: true });

    const after = fake.commitOf(REPO);
    // Spacing as the code host sends it: the signature covers these bytes, not a re-serialisation.
    const push = `{ "ref": "refs/heads/main", "after": "${after}", "repository": { "full_name": "${REPO}", "id": 7 }, "pusher": { "name": "octo" } }`;
    const signature = signatureOf(secret, push);
    const before = { deliveries: await count(gateway, 'codehost_deliveries'), scans: await count(gateway, 'codehost_scans'), jobs: await count(gateway, 'jobs') };

    const unsigned = await postWebhook(gateway, push, { 'x-github-delivery': randomUUID(), 'x-github-event': 'push' });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('content-type')).toContain('application/problem+json');
    const wrongKey = await postWebhook(gateway, push, { 'x-hub-signature-256': signatureOf('not-the-secret', push), 'x-github-delivery': randomUUID(), 'x-github-event': 'push' });
    expect(wrongKey.status).toBe(401);
    const tampered = await postWebhook(gateway, push.replace('octo', 'otto'), { 'x-hub-signature-256': signature, 'x-github-delivery': randomUUID(), 'x-github-event': 'push' });
    expect(tampered.status).toBe(401);
    const shortSignature = await postWebhook(gateway, push, { 'x-hub-signature-256': signature.slice(0, 20), 'x-github-delivery': randomUUID(), 'x-github-event': 'push' });
    expect(shortSignature.status).toBe(401);
    const sha1Style = await postWebhook(gateway, push, { 'x-hub-signature-256': signature.replace('sha256=', 'sha1='), 'x-github-delivery': randomUUID(), 'x-github-event': 'push' });
    expect(sha1Style.status).toBe(401);
    expect({ deliveries: await count(gateway, 'codehost_deliveries'), scans: await count(gateway, 'codehost_scans'), jobs: await count(gateway, 'jobs') }).toEqual(before);

    const deliveryId = randomUUID();
    const accepted = await postWebhook(gateway, push, { 'x-hub-signature-256': signature, 'x-github-delivery': deliveryId, 'x-github-event': 'push' });
    expect(accepted.status).toBe(202);
    const queued = await json(accepted);
    expect(queued).toMatchObject({ delivery_id: deliveryId, event: 'push', scan_id: expect.stringMatching(/^chs_/) });
    const scanRow = await gateway.store.db.selectFrom('codehost_scans').selectAll().where('id', '=', queued.scan_id).executeTakeFirstOrThrow();
    expect(scanRow).toMatchObject({ trigger: 'webhook', status: 'queued', repo_full_name: REPO, ref: after, requested_by: 'codehost-webhook' });
    const job = await gateway.store.db.selectFrom('jobs').selectAll().where('id', '=', scanRow.job_id as string).executeTakeFirstOrThrow();
    expect(job.kind).toBe('codehost.scan');
    const delivery = await gateway.store.db.selectFrom('codehost_deliveries').selectAll().where('delivery_id', '=', deliveryId).executeTakeFirstOrThrow();
    expect(delivery).toMatchObject({ event: 'push', repo_full_name: REPO, scan_id: queued.scan_id });

    // The same delivery again is a replay: 409, no second scan, no second job.
    const counted = { scans: await count(gateway, 'codehost_scans'), jobs: await count(gateway, 'jobs') };
    const replay = await postWebhook(gateway, push, { 'x-hub-signature-256': signature, 'x-github-delivery': deliveryId, 'x-github-event': 'push' });
    expect(replay.status).toBe(409);
    // Two copies of a new delivery at once: exactly one passes.
    const twinId = randomUUID();
    const twins = await Promise.all([0, 1].map(() => postWebhook(gateway, push, { 'x-hub-signature-256': signature, 'x-github-delivery': twinId, 'x-github-event': 'push' })));
    expect(twins.map((response) => response.status).sort()).toEqual([202, 409]);
    expect({ scans: await count(gateway, 'codehost_scans'), jobs: await count(gateway, 'jobs') }).toEqual({ scans: counted.scans + 1, jobs: counted.jobs + 1 });

    // Signed, but not a delivery the gateway can act on.
    const other = JSON.stringify({ action: 'opened' });
    const issue = await postWebhook(gateway, other, { 'x-hub-signature-256': signatureOf(secret, other), 'x-github-delivery': randomUUID(), 'x-github-event': 'issues' });
    expect(issue.status).toBe(202);
    expect((await json(issue)).ignored).toContain('issues');
    const noDelivery = await postWebhook(gateway, other, { 'x-hub-signature-256': signatureOf(secret, other), 'x-github-event': 'issues' });
    expect(noDelivery.status).toBe(400);
    const malformed = '{"ref": ';
    const broken = await postWebhook(gateway, malformed, { 'x-hub-signature-256': signatureOf(secret, malformed), 'x-github-delivery': randomUUID(), 'x-github-event': 'push' });
    expect(broken.status).toBe(400);

    // The queued rescan runs.
    await drain(gateway);
    expect((await json(gateway.request(`/api/integrations/codehost/scans/${queued.scan_id}`))).status).toBe('completed');

    // Replacing the secret: the old one no longer verifies.
    const rotated = await json(gateway.request('/api/integrations/codehost/webhook-secret', { method: 'POST', json: {} }));
    expect(rotated.replaced).toBe(true);
    const stale = await postWebhook(gateway, ping, { 'x-hub-signature-256': signatureOf(secret, ping), 'x-github-delivery': randomUUID(), 'x-github-event': 'ping' });
    expect(stale.status).toBe(401);
    expect(unsignedBefore.deliveries).toBeLessThan(await count(gateway, 'codehost_deliveries'));
    for (const text of answers) expect(text).not.toContain(secret);
  });

  it('never answers or audits the token', async () => {
    const { gateway } = ctx;
    for (const text of answers) expect(text).not.toContain(TOKEN.slice(4));
    const audit = await gateway.store.db.selectFrom('audit_entries').select(['detail', 'target', 'action']).execute();
    expect(JSON.stringify(audit)).not.toContain(TOKEN.slice(4));
    const scans = await gateway.store.db.selectFrom('codehost_scans').selectAll().execute();
    expect(JSON.stringify(scans)).not.toContain(TOKEN.slice(4));
  });

  it('survives a code host that answers garbage, huge bodies, errors or slowly', async () => {
    const { gateway } = ctx;
    fake.misbehave({ kind: 'garbage', path: '/user' });
    const garbage = await connect(gateway);
    expect(garbage.status).toBe(503);
    expect(garbage.headers.get('content-type')).toContain('application/problem+json');

    fake.misbehave({ kind: 'huge', path: '/user', bytes: 8 * 1_048_576 });
    const started = Date.now();
    expect((await connect(gateway)).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5000);

    fake.misbehave({ kind: 'status', path: '/user/repos', status: 500 });
    expect((await gateway.request('/api/integrations/codehost/repos')).status).toBe(503);

    fake.misbehave({ kind: 'garbage', path: `/repos/${REPO}/git/trees` });
    const queued = await json(gateway.request('/api/integrations/codehost/scan', { method: 'POST', json: { repo_full_name: REPO } }));
    await drain(gateway);
    const failed = await json(gateway.request(`/api/integrations/codehost/scans/${queued.scan_id}`));
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('not JSON');

    fake.misbehave({ kind: 'huge', path: `/repos/${REPO}/contents/`, bytes: 4 * 1_048_576 });
    const huge = await json(gateway.request('/api/integrations/codehost/scan', { method: 'POST', json: { repo_full_name: REPO } }));
    await drain(gateway);
    const hugeScan = await json(gateway.request(`/api/integrations/codehost/scans/${huge.scan_id}`));
    expect(hugeScan.status).toBe('completed');
    expect(hugeScan.report.counts.files_failed).toBeGreaterThan(0);
    expect(hugeScan.files_scanned).toBe(0);

    // Slow: a service with a short call timeout (the same store, policy and fake) gives up in time.
    fake.misbehave({ kind: 'slow', ms: 30_000 });
    const services = gateway.app.services;
    const impatient = new CodehostService({ ...services.codehost.deps, settings: { ...services.codehost.deps.settings, limits: { callTimeoutMs: 300 } } });
    const slowStart = Date.now();
    const summary = await impatient.scanNow({ repo_full_name: REPO, trigger: 'monitor', requested_by: 'test' });
    expect(summary).toMatchObject({ status: 'failed', signature: [] });
    expect(summary.error).toContain('no answer within 300 ms');
    expect(Date.now() - slowStart).toBeLessThan(5000);
    const row = await gateway.store.db.selectFrom('codehost_scans').selectAll().where('id', '=', summary.scan_id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', trigger: 'monitor' });
    fake.misbehave(null);

    // scanNow on a code host that behaves answers the signature monitors compare.
    const good = await services.codehost.scanNow({ repo_full_name: REPO, trigger: 'monitor', requested_by: 'test' });
    expect(good.status).toBe('completed');
    expect(good.signature).toEqual(expect.arrayContaining([`secret:${EXPECTED.secret.path}:${EXPECTED.secret.entity}`]));
    expect(await services.codehost.connected()).toBe(true);
    expect(await services.codehost.listRepoNames(1)).toEqual(['acme/docs']);
  }, 30_000);

  it('answers malformed and hostile requests with 4xx problems, never a 5xx, and changes nothing', async () => {
    const { gateway } = ctx;
    const audits = await count(gateway, 'audit_entries');
    const malformed = await malformedRequestFailures(gateway, '/api/integrations/codehost');
    expect(malformed.failures).toEqual([]);
    expect(malformed.operations).toBe(PATHS.length);
    expect(await count(gateway, 'audit_entries')).toBe(audits);
    const { failures, sent, operations } = await hostileRequestFailures(gateway, PATHS);
    expect(failures).toEqual([]);
    expect(operations).toHaveLength(PATHS.length);
    expect(sent).toBeGreaterThan(30);
  }, 120_000);
});
