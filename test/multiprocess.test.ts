// Several gateway processes on one PostgreSQL database act as one gateway: they start together
// safely, honour each other's tokens, and a revocation, a kill or a quarantine through one reaches
// the others within 2 s.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/postgres.js';
import { startServerProcess, type ServerProcess } from './helpers/process.js';

const freshDir = () => mkdtempSync(path.join(tmpdir(), 'parapet-mp-'));

describe('two gateway processes on one PostgreSQL database', () => {
  let database: TestDatabase;
  let first: ServerProcess;
  let second: ServerProcess;
  const adminToken = 'ppt_op_multi-process-admin-0123456789abcdef';

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = (dir: string) => ({ DATABASE_URL: database.url, PARAPET_ADMIN_TOKEN: adminToken, PARAPET_DATA_DIR: dir });
    // Started together: migrations and the bootstrap token must not race.
    [first, second] = await Promise.all([
      startServerProcess(env(freshDir()), freshDir()),
      startServerProcess(env(freshDir()), freshDir()),
    ]);
  });
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await database?.drop();
  });

  const call = (server: ServerProcess, pathname: string, token: string, init: RequestInit = {}) =>
    fetch(server.url + pathname, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });

  it('accepts on one process a token minted through the other', async () => {
    const minted = (await (await call(first, '/api/tokens', adminToken, { method: 'POST', body: '{"role":"viewer"}' })).json()) as {
      token: string;
    };
    const me = await call(second, '/api/me', minted.token);
    expect(me.status).toBe(200);
  });

  it('refuses on the other process within 2 s a token revoked through one', async () => {
    const minted = (await (await call(first, '/api/tokens', adminToken, { method: 'POST', body: '{"role":"viewer"}' })).json()) as {
      token: string;
      id: string;
    };
    // Warm the second process's credential cache, so the test measures propagation, not a miss.
    expect((await call(second, '/api/me', minted.token)).status).toBe(200);
    const revokedAt = Date.now();
    expect((await call(first, `/api/tokens/${minted.id}/revoke`, adminToken, { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await call(first, '/api/me', minted.token)).status).toBe(401);
    let refusedAfter = Number.POSITIVE_INFINITY;
    while (Date.now() - revokedAt < 5000) {
      if ((await call(second, '/api/me', minted.token)).status === 401) {
        refusedAfter = Date.now() - revokedAt;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(refusedAfter).toBeLessThan(2000);
  });

  /** Milliseconds until `second` blocks the agent's tool call, after `stop` ran on `first`. */
  async function stopPropagation(slug: string, how: 'kill' | 'quarantine'): Promise<{ ms: number; rule: string | undefined }> {
    const trafficToken = ((await (await call(first, '/api/tokens', adminToken, { method: 'POST', body: '{"role":"traffic"}' })).json()) as { token: string }).token;
    expect((await call(first, '/api/agents', adminToken, { method: 'POST', body: JSON.stringify({ slug, owner_email: 'o@example.com', declared_tools: ['lookup'] }) })).status).toBe(201);
    expect((await call(first, `/api/agents/${slug}/access`, adminToken, { method: 'POST', body: '{"tool_key":"lookup"}' })).status).toBe(201);
    // A new argument each time: the same call over and over would be stopped as a loop.
    let sequence = 0;
    const toolCall = async (server: ServerProcess) =>
      (await (await call(server, '/v1/guard/tool_call', trafficToken, { method: 'POST', body: JSON.stringify({ agent: slug, tool: 'lookup', arguments: { id: sequence++ } }) })).json()) as {
        verdict: string;
        rules_fired: Array<{ rule_id: string }>;
      };
    // The grant reached the second process (its registry view reloads on the revision).
    const grantedAt = Date.now();
    while ((await toolCall(second)).verdict !== 'allow' && Date.now() - grantedAt < 5000) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await toolCall(second)).verdict).toBe('allow');
    const stoppedAt = Date.now();
    expect((await call(first, `/api/agents/${slug}/${how}`, adminToken, { method: 'POST', body: '{"reason":"test"}' })).status).toBe(200);
    while (Date.now() - stoppedAt < 5000) {
      const decision = await toolCall(second);
      if (decision.verdict === 'block') return { ms: Date.now() - stoppedAt, rule: decision.rules_fired[0]?.rule_id };
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return { ms: Number.POSITIVE_INFINITY, rule: undefined };
  }

  it('blocks a killed agent on the other process within 2 s', async () => {
    const { ms, rule } = await stopPropagation('mp-killed', 'kill');
    expect(rule).toBe('agent.killed');
    expect(ms).toBeLessThan(2000);
  });

  it('blocks a quarantined agent on the other process within 2 s', async () => {
    const { ms, rule } = await stopPropagation('mp-quarantined', 'quarantine');
    expect(rule).toBe('agent.quarantined');
    expect(ms).toBeLessThan(2000);
  });

  it('stores the environment admin token once although both processes started with it', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query("select count(*)::int as n from api_tokens where created_by = 'environment'");
      expect(rows[0].n).toBe(1);
    } finally {
      await client.end();
    }
  });
});

describe('bootstrap on a fresh PostgreSQL database', () => {
  it('mints exactly one admin token when two processes start together', async () => {
    const database = await createTestDatabase();
    const dirs = [freshDir(), freshDir()];
    const servers = await Promise.all(dirs.map((dir) => startServerProcess({ DATABASE_URL: database.url, PARAPET_DATA_DIR: dir }, dir)));
    try {
      const announcements = servers.filter((server) => server.output().includes('minted the first admin token'));
      expect(announcements).toHaveLength(1);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query("select count(*)::int as n from api_tokens where role = 'admin'");
      await client.end();
      expect(rows[0].n).toBe(1);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      await database.drop();
    }
  });
});
