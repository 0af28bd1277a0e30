// GET /ready, what a load balancer asks (not in the spec): 200 only when the database answers, its
// schema is this gateway's, the detectors are warmed up, the change bus listens (PostgreSQL) and
// Redis answers (when configured), and not while the process drains; else a 503 problem naming the
// failing checks. No credential, never rate-limited; /health (liveness) is unchanged.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { LATEST_MIGRATION } from '../../infra/store/migrations/index.js';
import { DIALECTS, json, startGateway, withGateway } from '../../../test/helpers/gateway.js';

const ready = (url: string, headers: Record<string, string> = {}) => fetch(`${url}/ready`, { headers });

describe.each(DIALECTS)('readiness (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('is not ready until the schema is at the latest migration and the detectors are warmed up', async () => {
    const { gateway } = ctx;
    // As if the database were a migration behind this gateway (another version migrated it back).
    await sql`delete from kysely_migration where name = ${LATEST_MIGRATION}`.execute(gateway.store.db);
    const notYet = await ready(gateway.url);
    expect(notYet.status).toBe(503);
    expect(notYet.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = await json(notYet);
    expect(problem).toMatchObject({ type: 'urn:parapet:problem:unavailable', status: 503 });
    expect(problem.detail).toBe('not ready: migrations, detectors');
    expect(problem.errors).toEqual([
      { field: '/checks/migrations', message: expect.stringContaining(`needs ${LATEST_MIGRATION}`) },
      { field: '/checks/detectors', message: 'not warmed up yet' },
    ]);
    await sql`insert into kysely_migration (name, timestamp) values (${LATEST_MIGRATION}, ${new Date().toISOString()})`.execute(gateway.store.db);

    // main.ts warms the detectors up before it listens; the test gateway does not.
    gateway.app.services.detectors.warmUp();
    const answer = await ready(gateway.url);
    expect(answer.status).toBe(200);
    const body = await json(answer);
    expect(body.status).toBe('ready');
    const names = body.checks.map((check: { name: string }) => check.name);
    expect(names).toEqual(dialect === 'postgres' ? ['database', 'migrations', 'detectors', 'change_bus', 'draining'] : ['database', 'migrations', 'detectors', 'draining']);
    expect(body.checks.every((check: { status: string }) => check.status === 'ok')).toBe(true);
    expect(body.checks.find((check: { name: string }) => check.name === 'migrations').detail).toBe(LATEST_MIGRATION);
  });

  it('needs no credential and ignores one', async () => {
    expect((await ready(ctx.gateway.url)).status).toBe(200);
    expect((await ready(ctx.gateway.url, { authorization: 'Bearer ppt_op_nope' })).status).toBe(200);
  });

  it('survives malformed and hostile requests: a readiness answer or a 4xx problem, never a 5xx', async () => {
    // GET /ready takes no input, so the OpenAPI-driven fuzz has nothing to vary: these are by hand.
    ctx.gateway.app.services.detectors.warmUp();
    const cases: Array<{ path: string; init?: RequestInit }> = [
      { path: `/ready?probe=${'x'.repeat(4000)}` },
      { path: '/ready?%00=%ff&a[b][c]=1' },
      { path: '/ready', init: { headers: { authorization: 'Bearer' } } },
      { path: '/ready', init: { headers: { authorization: `Bearer ${'\u00e9'.repeat(300)}` } } },
      { path: '/ready', init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' } },
      { path: '/ready', init: { method: 'DELETE' } },
      { path: '/ready/../ready' },
    ];
    for (const { path, init } of cases) {
      const response = await fetch(ctx.gateway.url + path, init);
      const text = await response.text();
      expect(response.status, `${init?.method ?? 'GET'} ${path.slice(0, 40)}: ${text.slice(0, 120)}`).toBeLessThan(500);
      if (response.status >= 400) expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it('answers 503 once the process drains, while /health stays live', async () => {
    ctx.gateway.app.services.health.startDraining();
    const draining = await ready(ctx.gateway.url);
    expect(draining.status).toBe(503);
    expect(await json(draining)).toMatchObject({ detail: 'not ready: draining', errors: [{ field: '/checks/draining', message: 'shutting down: finishing the requests in flight' }] });
    expect(await json(fetch(`${ctx.gateway.url}/health`))).toEqual({ status: 'ok' });
    expect((await ctx.gateway.request('/api/health')).status).toBe(200);
  });
});

describe('readiness under rate limits', () => {
  const ctx = withGateway({ overrides: { rate_limit_public_per_minute: 3 } });

  it('is never rate-limited', async () => {
    ctx.gateway.app.services.detectors.warmUp();
    for (let index = 0; index < 8; index += 1) expect((await ready(ctx.gateway.url)).status).toBe(200);
    // The public budget is 3 a minute here: a public route that is limited runs out, /ready does not.
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1) statuses.push((await fetch(`${ctx.gateway.url}/`)).status);
    expect(statuses).toContain(429);
    expect((await ready(ctx.gateway.url)).status).toBe(200);
  });
});

describe('readiness with Redis configured', () => {
  it('checks that Redis answers, and is not ready while it does not', async () => {
    const reachable = await startGateway({ overrides: { redis_url: process.env.PARAPET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' } });
    const unreachable = await startGateway({ overrides: { redis_url: 'redis://127.0.0.1:1' } });
    try {
      reachable.app.services.detectors.warmUp();
      unreachable.app.services.detectors.warmUp();
      const fine = await json(ready(reachable.url));
      expect(fine.checks.find((check: { name: string }) => check.name === 'redis')).toEqual({ name: 'redis', status: 'ok', detail: 'PONG from redis://127.0.0.1:6379' });
      const refused = await ready(unreachable.url);
      expect(refused.status).toBe(503);
      expect(await json(refused)).toMatchObject({ detail: 'not ready: redis', errors: [{ field: '/checks/redis' }] });
    } finally {
      await reachable.close();
      await unreachable.close();
    }
  });
});
