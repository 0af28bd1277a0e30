// A database that refuses connections (restarting, failing over) is a 503 with Retry-After that the
// caller retries, never a 500, and the gateway serves again once it is back; errors that are not
// about reaching the database stay defects.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { PG_ADMIN_URL, createTestDatabase, type TestDatabase } from '../../../test/helpers/postgres.js';
import { isStoreUnavailable } from '../lib/store-unavailable.js';

describe('a PostgreSQL database that refuses connections', () => {
  let database: TestDatabase;
  let gateway: TestGateway;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  const name = () => new URL(database.url).pathname.slice(1);

  beforeAll(async () => {
    database = await createTestDatabase();
    gateway = await startGateway({ dialect: 'postgres', databaseUrl: database.url });
  });
  afterAll(async () => {
    await gateway?.close();
    await admin(`alter database ${name()} with allow_connections true`).catch(() => undefined);
    await database?.drop();
  });

  it('answers 503 with Retry-After while it is away and serves again once it is back', async () => {
    expect((await gateway.request('/api/agents')).status).toBe(200);
    await admin(`alter database ${name()} with allow_connections false`);
    await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name()}' and pid <> pg_backend_pid()`);
    const statuses = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await gateway.request('/api/agents');
      statuses.push(response.status);
      if (response.status === 503) {
        expect(response.headers.get('retry-after')).toBe('1');
        expect(response.headers.get('content-type')).toContain('application/problem+json');
        expect(((await response.json()) as { detail: string }).detail).toContain('is not reachable right now');
      }
    }
    expect(statuses).toEqual([503, 503, 503]);
    await admin(`alter database ${name()} with allow_connections true`);
    await expect.poll(async () => (await gateway.request('/api/agents')).status, { timeout: 5000 }).toBe(200);
  });
});

describe('isStoreUnavailable', () => {
  it('knows the errors of a database that is away, and nothing else', () => {
    for (const error of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('Connection terminated unexpectedly'),
      new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' }), Object.assign(new Error('b'), { code: 'ECONNREFUSED' })]),
    ]) {
      expect(isStoreUnavailable(error), String(error)).toBe(true);
    }
    for (const error of [new Error('relation "x" does not exist'), Object.assign(new Error('duplicate key'), { code: '23505' }), null, 'ECONNREFUSED', new AggregateError([])]) {
      expect(isStoreUnavailable(error), String(error)).toBe(false);
    }
  });
});
