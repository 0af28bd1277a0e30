// Chat alerts over HTTP on both dialects, against a fake incoming webhook on 127.0.0.1: one alert per
// new finding at or above the minimum severity (and every monitor change) with the documented
// payload, never one twice (a recurring finding, two sweeps, two gateways on one PostgreSQL
// database), retries after a 500, a 404 dead-lettered, the test message, URLs the outbound policy
// refuses, the URL never answered, audited or stored in the clear, roles and hostile input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../../engine/findings/fingerprint.js';
import type { Severity } from '../../engine/findings/catalog.js';
import { auditCount } from '../../../test/helpers/audit.js';
import { FakeChatWebhook } from '../../../test/helpers/fake-chat-webhook.js';
import { hostileRequestFailures, malformedRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, startGateway, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';

/** The secret part of the webhook URL: it must never leave the sealed column. */
const SECRET_PATH = '/services/T0001/B0002/wh-secret-5f4e3d2c1b0a9988';
const ALERT_JOB = 'alerts.chat';
const EVIDENCE_SECRET = 'sk-evidence-value-never-posted-1234';

async function raise(gateway: TestGateway, finding: { type: string; severity: Severity; subject: string; title?: string; at?: string }): Promise<string> {
  const print = fingerprint(finding.type, finding.subject, []);
  gateway.app.services.recorder.raise([
    {
      fingerprint: print,
      type: finding.type,
      severity: finding.severity,
      title: finding.title ?? `${finding.type} on ${finding.subject}`,
      subject: finding.subject,
      agent: 'support-bot',
      at: finding.at ?? gateway.clock.now().toISOString(),
      evidence: { api_key: EVIDENCE_SECRET },
      decisionId: null,
    },
  ]);
  await gateway.app.services.recorder.flush();
  return print;
}

/** Runs due jobs until none is left (bounded). */
async function drain(gateway: TestGateway): Promise<number> {
  let ran = 0;
  while (ran < 100 && (await gateway.app.services.worker.tick())) ran += 1;
  return ran;
}

async function alertJobs(gateway: TestGateway, print?: string) {
  const rows = await gateway.store.db.selectFrom('jobs').selectAll().where('kind', '=', ALERT_JOB).execute();
  return rows.filter((row) => print === undefined || (JSON.parse(row.payload) as { fingerprint: string }).fingerprint === print);
}

describe.each(DIALECTS)('chat alerts (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { outbound_allow_private: true, jobs_in_process: false } });
  const fake = new FakeChatWebhook();
  let viewer: string;
  let operator: string;
  let webhook: string;
  /** Every answer text the gateway gave: the webhook URL must be in none. */
  const seen: string[] = [];

  const call = async (path: string, init: { method?: string; json?: unknown; token?: string | null } = {}) => {
    const response = await ctx.gateway.request(path, { method: init.method ?? 'GET', ...(init.json === undefined ? {} : { json: init.json }), ...(init.token === undefined ? {} : { token: init.token }) });
    const text = await response.text();
    seen.push(text);
    return { status: response.status, type: response.headers.get('content-type') ?? '', body: text === '' ? null : JSON.parse(text) };
  };
  const delivered = (print: string) => fake.to(SECRET_PATH).filter((delivery) => String(delivery.body?.blocks?.[2]?.elements?.[0]?.text ?? '').endsWith(print.slice(0, 12)));

  beforeAll(async () => {
    await fake.start();
    webhook = fake.url(SECRET_PATH);
    viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer' } }))).token;
    operator = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'ops', role: 'operator' } }))).token;
  });
  afterAll(async () => {
    await fake.close();
  });

  it('answers configured false before a channel is set; 404 on DELETE, 409 on test; roles', async () => {
    expect(await call('/api/alerts/chat', { token: viewer })).toMatchObject({ status: 200, body: { configured: false } });
    expect((await call('/api/alerts/chat', { token: null })).status).toBe(401);
    expect((await call('/api/alerts/chat', { method: 'PUT', json: { url: webhook }, token: viewer })).status).toBe(403);
    expect((await call('/api/alerts/chat', { method: 'PUT', json: { url: webhook }, token: operator })).status).toBe(403);
    expect((await call('/api/alerts/chat', { method: 'DELETE', token: operator })).status).toBe(403);
    expect((await call('/api/alerts/chat/test', { method: 'POST', token: viewer })).status).toBe(403);
    expect((await call('/api/alerts/chat/test', { method: 'POST', token: null })).status).toBe(401);
    expect(await call('/api/alerts/chat', { method: 'DELETE' })).toMatchObject({ status: 404, type: expect.stringContaining('application/problem+json') });
    expect(await call('/api/alerts/chat/test', { method: 'POST', token: operator })).toMatchObject({ status: 409, type: expect.stringContaining('application/problem+json') });
    expect(await ctx.gateway.app.services.alerts.sweep()).toBe(0);
    expect(fake.received).toHaveLength(0);
  });

  it('refuses a URL that is not http(s), carries credentials or is not a URL, and bad bodies; changes nothing', async () => {
    const before = await auditCount(ctx.gateway);
    const refusals: Array<[Record<string, unknown>, number]> = [
      [{ url: 'ftp://127.0.0.1/hook' }, 422],
      [{ url: `http://user:pw@127.0.0.1:9${SECRET_PATH}` }, 422],
      [{ url: 'not a url' }, 422],
      [{ url: 'javascript:alert(1)' }, 422],
      [{ url: webhook, min_severity: 'urgent' }, 400],
      [{ url: webhook, channel: '#general' }, 400],
      [{ url: `${webhook}/${'x'.repeat(2048)}` }, 400],
      [{}, 400],
    ];
    for (const [body, status] of refusals) {
      const answer = await call('/api/alerts/chat', { method: 'PUT', json: body });
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(answer.type).toContain('application/problem+json');
      if (status === 422) expect(answer.body.errors).toEqual([expect.objectContaining({ field: '/body/url' })]);
    }
    expect(await auditCount(ctx.gateway)).toBe(before);
    expect(await ctx.gateway.store.db.selectFrom('chat_alert_channels').selectAll().execute()).toEqual([]);
  });

  it('seals the URL at once, shows it masked, audits only the mask; viewers read it', async () => {
    const put = await call('/api/alerts/chat', { method: 'PUT', json: { url: webhook } });
    expect(put.status).toBe(200);
    const masked = `http://127.0.0.1:${new URL(webhook).port}/…9988`;
    expect(put.body).toEqual({ configured: true, url_masked: masked, min_severity: 'high', updated_at: expect.any(String), updated_by: expect.stringContaining('(') });
    expect(await call('/api/alerts/chat', { token: viewer })).toEqual({ status: 200, type: expect.stringContaining('json'), body: put.body });

    const row = await ctx.gateway.store.db.selectFrom('chat_alert_channels').selectAll().executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(SECRET_PATH.slice(1));
    expect(JSON.stringify(row)).not.toContain('wh-secret');
    expect(row.url_sealed.startsWith('v1.')).toBe(true);
    expect(ctx.gateway.app.services.sealer.unseal(row.url_sealed)).toBe(webhook);

    const entries = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'alerts.chat_configured').execute();
    expect(entries).toHaveLength(1);
    expect(JSON.parse(entries[0]!.detail)).toEqual({ url_masked: masked, min_severity: 'high', replaced: false });
  });

  it('posts the test message now, and answers 502 with the status when the webhook refuses it', async () => {
    const sent = await call('/api/alerts/chat/test', { method: 'POST', token: operator });
    expect(sent).toMatchObject({ status: 200, body: { sent: true, status: 200 } });
    const [delivery] = fake.to(SECRET_PATH);
    expect(delivery?.method).toBe('POST');
    expect(delivery?.headers['content-type']).toBe('application/json');
    expect(delivery?.body.text).toBe('Parapet test alert');
    expect(delivery?.body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Parapet test alert' } });
    expect(delivery?.body.blocks[1].fields[0]).toEqual({ type: 'mrkdwn', text: expect.stringMatching(/^\*Sent by\*\n.+ \(tok_/) });

    fake.answer(500);
    const failed = await call('/api/alerts/chat/test', { method: 'POST', token: operator });
    expect(failed.status).toBe(502);
    expect(failed.type).toContain('application/problem+json');
    expect(failed.body).toMatchObject({ status: 502, detail: expect.stringContaining('HTTP 500') });
    expect(fake.to(SECRET_PATH)).toHaveLength(2);
    const tests = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'alerts.chat_tested').orderBy('seq').execute();
    expect(tests.map((entry) => JSON.parse(entry.detail))).toMatchObject([
      { sent: true, status: 200 },
      { sent: false, status: 500, reason: 'the chat webhook answered HTTP 500' },
    ]);
    fake.reset();
  });

  it('posts one alert per new high finding with the documented payload, a low monitor change too, nothing below min_severity', async () => {
    const { gateway } = ctx;
    const high = await raise(gateway, { type: 'hardcoded_secret', severity: 'high', subject: 'repo:acme/app', title: 'Secret in <!channel> & <https://evil.example|click>' });
    const medium = await raise(gateway, { type: 'risky_prompt', severity: 'medium', subject: 'repo:acme/medium' });
    const monitor = await raise(gateway, { type: 'monitor_change', severity: 'low', subject: 'monitor:mon_1' });
    await gateway.app.services.alerts.sweep();
    await drain(gateway);

    expect(delivered(medium)).toHaveLength(0);
    expect(delivered(monitor)).toHaveLength(1);
    const posts = delivered(high);
    expect(posts).toHaveLength(1);
    const finding = await gateway.store.db.selectFrom('findings').selectAll().where('fingerprint', '=', high).executeTakeFirstOrThrow();
    expect(posts[0]!.body).toEqual({
      text: 'high finding: Secret in &lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Secret in &lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;' } },
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: '*Severity*\nhigh' },
            { type: 'mrkdwn', text: '*Type*\nhardcoded_secret' },
            { type: 'mrkdwn', text: '*Subject*\nrepo:acme/app' },
            { type: 'mrkdwn', text: '*Agent*\nsupport-bot' },
            { type: 'mrkdwn', text: `*First seen*\n${finding.at}` },
            { type: 'mrkdwn', text: '*Occurrences*\n1' },
          ],
        },
        { type: 'context', elements: [{ type: 'mrkdwn', text: `Parapet finding ${finding.id} · fingerprint ${high.slice(0, 12)}` }] },
      ],
    });
    expect(JSON.stringify(fake.received.map((delivery) => delivery.body))).not.toContain(EVIDENCE_SECRET);
    expect((await alertJobs(gateway, high)).map((job) => job.status)).toEqual(['done']);
    const sent = await gateway.store.db.selectFrom('chat_alerts_sent').selectAll().where('fingerprint', '=', high).executeTakeFirstOrThrow();
    expect(sent).toMatchObject({ finding_id: finding.id, kind: 'finding', job_id: (await alertJobs(gateway, high))[0]!.id });
  });

  it('never posts a finding twice: recurrences, a second sweep, concurrent sweeps', async () => {
    const { gateway } = ctx;
    const { alerts } = gateway.app.services;
    const print = await raise(gateway, { type: 'tool_poisoning', severity: 'critical', subject: 'mcp:files' });
    const [first, second] = await Promise.all([alerts.sweep(), alerts.sweep()]);
    expect((first ?? 0) + (second ?? 0)).toBeLessThanOrEqual(1);
    expect(await alerts.sweep()).toBe(0);
    expect(await alertJobs(gateway, print)).toHaveLength(1);
    await drain(gateway);
    await raise(gateway, { type: 'tool_poisoning', severity: 'critical', subject: 'mcp:files' });
    await raise(gateway, { type: 'tool_poisoning', severity: 'critical', subject: 'mcp:files' });
    expect(Number((await gateway.store.db.selectFrom('findings').select('occurrences').where('fingerprint', '=', print).executeTakeFirstOrThrow()).occurrences)).toBe(3);
    expect(await alerts.sweep()).toBe(0);
    await drain(gateway);
    expect(delivered(print)).toHaveLength(1);
    expect(await alertJobs(gateway, print)).toHaveLength(1);
  });

  it('does not announce a finding first seen before the channel was configured', async () => {
    const { gateway } = ctx;
    const configured = (await gateway.store.db.selectFrom('chat_alert_channels').select('updated_at').executeTakeFirstOrThrow()).updated_at;
    const earlier = new Date(Date.parse(configured) - 60_000).toISOString();
    const print = await raise(gateway, { type: 'hardcoded_secret', severity: 'critical', subject: 'repo:acme/old', at: earlier });
    await gateway.app.services.alerts.sweep();
    await drain(gateway);
    expect(await alertJobs(gateway, print)).toHaveLength(0);
    expect(delivered(print)).toHaveLength(0);
  });

  it('retries after a 500 with back-off and delivers once; a 404 is dead-lettered', async () => {
    const { gateway } = ctx;
    fake.answer(500);
    const retried = await raise(gateway, { type: 'hardcoded_secret', severity: 'high', subject: 'repo:acme/retry' });
    await gateway.app.services.alerts.sweep();
    await drain(gateway);
    let [job] = await alertJobs(gateway, retried);
    expect(job).toMatchObject({ status: 'queued', attempts: 1, max_attempts: 6, last_error: 'the chat webhook answered HTTP 500' });
    expect(delivered(retried)).toHaveLength(1);
    // Not due before its back-off has passed.
    await drain(gateway);
    expect(delivered(retried)).toHaveLength(1);
    gateway.clock.advance(60_000);
    await drain(gateway);
    [job] = await alertJobs(gateway, retried);
    expect(job).toMatchObject({ status: 'done', attempts: 2 });
    expect(delivered(retried)).toHaveLength(2);
    await drain(gateway);
    expect(delivered(retried)).toHaveLength(2);

    fake.answer(404);
    const gone = await raise(gateway, { type: 'hardcoded_secret', severity: 'high', subject: 'repo:acme/gone' });
    await gateway.app.services.alerts.sweep();
    await drain(gateway);
    gateway.clock.advance(600_000);
    await drain(gateway);
    [job] = await alertJobs(gateway, gone);
    expect(job).toMatchObject({ status: 'dead', attempts: 1, last_error: 'the chat webhook answered HTTP 404' });
    expect(delivered(gone)).toHaveLength(1);
  });

  it('treats an unreachable webhook as retryable, without the URL in the error', async () => {
    const { gateway } = ctx;
    const down = new FakeChatWebhook();
    await down.start();
    const downUrl = down.url(SECRET_PATH);
    await down.close();
    expect((await call('/api/alerts/chat', { method: 'PUT', json: { url: downUrl, min_severity: 'medium' } })).status).toBe(200);
    const failed = await call('/api/alerts/chat/test', { method: 'POST', token: operator });
    expect(failed.status).toBe(502);
    expect(failed.body.detail).toContain('could not be reached');
    const print = await raise(gateway, { type: 'risky_prompt', severity: 'medium', subject: 'repo:acme/unreachable' });
    await gateway.app.services.alerts.sweep();
    await drain(gateway);
    const [job] = await alertJobs(gateway, print);
    expect(job).toMatchObject({ status: 'queued', attempts: 1 });
    expect(job!.last_error).toContain('could not be reached');
    // Back to the working webhook: the queued alert goes there on its retry.
    expect((await call('/api/alerts/chat', { method: 'PUT', json: { url: webhook, min_severity: 'medium' } })).status).toBe(200);
    gateway.clock.advance(60_000);
    await drain(gateway);
    expect((await alertJobs(gateway, print))[0]).toMatchObject({ status: 'done', attempts: 2 });
    expect(delivered(print)).toHaveLength(1);
  });

  it('answers 409 and dead-letters when the stored URL was sealed under another key', async () => {
    const { gateway } = ctx;
    const row = await gateway.store.db.selectFrom('chat_alert_channels').selectAll().executeTakeFirstOrThrow();
    const print = await raise(gateway, { type: 'hardcoded_secret', severity: 'high', subject: 'repo:acme/other-key' });
    await gateway.app.services.alerts.sweep();
    const [, iv, tag, data] = row.url_sealed.split('.');
    // One character of the ciphertext changed: it no longer authenticates, as under another secret_key.
    const altered = ['v1', iv, tag, `${data!.startsWith('A') ? 'B' : 'A'}${data!.slice(1)}`].join('.');
    await gateway.store.db.updateTable('chat_alert_channels').set({ url_sealed: altered }).execute();
    try {
      const answer = await call('/api/alerts/chat/test', { method: 'POST', token: operator });
      expect(answer).toMatchObject({ status: 409, body: { detail: expect.stringContaining('PUT /api/alerts/chat again') } });
      await drain(gateway);
      expect((await alertJobs(gateway, print))[0]).toMatchObject({ status: 'dead', attempts: 1, last_error: expect.stringContaining('cannot be read') });
      expect(delivered(print)).toHaveLength(0);
    } finally {
      await gateway.store.db.updateTable('chat_alert_channels').set({ url_sealed: row.url_sealed }).execute();
    }
  });

  it('skips queued alerts once the channel is removed; admin removes it, audited', async () => {
    const { gateway } = ctx;
    const print = await raise(gateway, { type: 'hardcoded_secret', severity: 'high', subject: 'repo:acme/removed' });
    await gateway.app.services.alerts.sweep();
    expect(await alertJobs(gateway, print)).toHaveLength(1);
    const removed = await call('/api/alerts/chat', { method: 'DELETE' });
    expect(removed).toMatchObject({ status: 200, body: { deleted: true, url_masked: expect.stringMatching(/\/…9988$/) } });
    await drain(gateway);
    const [job] = await alertJobs(gateway, print);
    expect(job?.status).toBe('done');
    expect(JSON.parse(job!.result!)).toMatchObject({ skipped: 'no chat alert channel is configured' });
    expect(delivered(print)).toHaveLength(0);
    expect(await call('/api/alerts/chat', { token: viewer })).toMatchObject({ status: 200, body: { configured: false } });
    expect((await call('/api/alerts/chat', { method: 'DELETE' })).status).toBe(404);
    expect(await gateway.app.services.alerts.sweep()).toBe(0);
    const actions = (await gateway.store.db.selectFrom('audit_entries').select('action').where('target', '=', 'chat').orderBy('seq').execute()).map((entry) => entry.action);
    expect(actions).toEqual(['alerts.chat_configured', 'alerts.chat_tested', 'alerts.chat_tested', 'alerts.chat_configured', 'alerts.chat_tested', 'alerts.chat_configured', 'alerts.chat_removed']);
  });

  it('never shows the URL: not in any answer, audit entry, job or log of what was sent', async () => {
    const { gateway } = ctx;
    const secret = SECRET_PATH.slice(SECRET_PATH.lastIndexOf('/') + 1);
    expect(seen.length).toBeGreaterThan(15);
    for (const text of seen) expect(text).not.toContain(secret);
    const audit = await gateway.store.db.selectFrom('audit_entries').select(['detail', 'target']).execute();
    expect(JSON.stringify(audit)).not.toContain(secret);
    const jobs = await gateway.store.db.selectFrom('jobs').select(['payload', 'result', 'last_error']).execute();
    expect(JSON.stringify(jobs)).not.toContain(secret);
    const sent = await gateway.store.db.selectFrom('chat_alerts_sent').selectAll().execute();
    expect(JSON.stringify(sent)).not.toContain(secret);
    const listed = await call('/api/jobs?limit=200');
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });
});

describe.each(DIALECTS)('chat alerts under the default outbound policy (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { jobs_in_process: false } });

  it('answers malformed and hostile input with a 4xx problem or a success, never a 5xx; changes nothing', async () => {
    const before = await auditCount(ctx.gateway);
    const hostile = await hostileRequestFailures(ctx.gateway, ['/api/alerts/chat', '/api/alerts/chat/test']);
    expect(hostile.operations).toEqual(['DELETE /api/alerts/chat', 'GET /api/alerts/chat', 'POST /api/alerts/chat/test', 'PUT /api/alerts/chat']);
    expect(hostile.failures).toEqual([]);
    expect(hostile.sent).toBeGreaterThan(10);
    const malformed = await malformedRequestFailures(ctx.gateway, '/api/alerts');
    expect(malformed.operations).toBe(4);
    expect(malformed.failures).toEqual([]);
    expect(await auditCount(ctx.gateway)).toBe(before);
    expect(await ctx.gateway.store.db.selectFrom('chat_alert_channels').selectAll().execute()).toEqual([]);
  }, 120_000);

  it('refuses http, loopback, private and local URLs with 422 naming why; takes a public https URL', async () => {
    const refused: Array<[string, string]> = [
      ['http://hooks.chat.example/services/T0/B0/abcdefabcdef', 'only https'],
      ['https://127.0.0.1/services/T0/B0/abcdefabcdef', 'loopback'],
      ['https://10.0.0.5/hook', 'private'],
      ['https://169.254.169.254/latest/meta-data', 'linkLocal'],
      ['https://[::1]/hook', 'loopback'],
      ['https://localhost/hook', 'local name'],
      ['https://hooks.internal/hook', 'local name'],
    ];
    for (const [url, why] of refused) {
      const response = await ctx.gateway.request('/api/alerts/chat', { method: 'PUT', json: { url } });
      const body = (await response.json()) as { detail: string; errors: unknown };
      expect(response.status, url).toBe(422);
      expect(body.detail, url).toContain(why);
      expect(body.errors).toEqual([{ field: '/body/url', message: expect.stringContaining(why) }]);
    }
    expect(await ctx.gateway.store.db.selectFrom('chat_alert_channels').selectAll().execute()).toEqual([]);
    const accepted = await ctx.gateway.request('/api/alerts/chat', { method: 'PUT', json: { url: 'https://hooks.chat.example/services/T0/B0/abcdefabcdef', min_severity: 'critical' } });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ configured: true, url_masked: 'https://hooks.chat.example/…cdef', min_severity: 'critical' });
  });
});

describe('chat alerts from two gateways on one PostgreSQL database', () => {
  const secretKey = 'alerts-shared-secret-key-for-two-gateways-0123456789';
  const fake = new FakeChatWebhook();
  let first: TestGateway;
  let second: TestGateway;

  beforeAll(async () => {
    await fake.start();
    const overrides = { outbound_allow_private: true, jobs_in_process: false, secret_key: secretKey };
    first = await startGateway({ dialect: 'postgres', overrides });
    second = await startGateway({ dialect: 'postgres', overrides, databaseUrl: first.config.database_url ?? '' });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await fake.close();
  });

  it('queues and posts each new finding once whichever process sweeps', async () => {
    expect((await first.request('/api/alerts/chat', { method: 'PUT', json: { url: fake.url(SECRET_PATH), min_severity: 'high' } })).status).toBe(200);
    const prints: string[] = [];
    for (let index = 0; index < 25; index += 1) prints.push(await raise(first, { type: 'hardcoded_secret', severity: 'high', subject: `repo:acme/two-${index}` }));
    const queued = await Promise.all([first.app.services.alerts.sweep(), second.app.services.alerts.sweep(), first.app.services.alerts.sweep(), second.app.services.alerts.sweep()]);
    expect(queued.reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(25);
    const jobs = await alertJobs(first);
    expect(jobs).toHaveLength(25);
    expect(new Set(jobs.map((job) => (JSON.parse(job.payload) as { fingerprint: string }).fingerprint))).toEqual(new Set(prints));
    // Both workers take jobs, turn about.
    for (let round = 0; round < 30; round += 1) {
      const ran = await Promise.all([first.app.services.worker.tick(), second.app.services.worker.tick()]);
      if (!ran.some(Boolean)) break;
    }
    expect(fake.received).toHaveLength(25);
    const posted = fake.received.map((delivery) => String(delivery.body.blocks[2].elements[0].text).slice(-12));
    expect(new Set(posted)).toEqual(new Set(prints.map((print) => print.slice(0, 12))));
    expect((await alertJobs(first)).every((job) => job.status === 'done')).toBe(true);
  });
});
