// The source registry over HTTP on both dialects: sources, connections validated against real
// content (a PostgreSQL schema, a MariaDB table and user, a SQLite file, a local HTTP API), the
// credential sealed and answered by no route, health problems, roles, malformed bodies and
// NUL/lone surrogates.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { PG_ADMIN_URL } from '../../../test/helpers/postgres.js';

const HOUR = 3_600_000;
const suffix = randomBytes(5).toString('hex');
const PG_SCHEMA = `parapet_src_${suffix}`;
const MARIA_TABLE = `parapet_src_${suffix}`;
const MARIA_USER = `parapet_src_${suffix}`;
const PG_FRESHEST = '2026-03-04T05:06:07.000Z';
const MARIA_FRESHEST = '2026-02-03T04:05:06.000Z';
const SQLITE_FRESHEST = '2026-01-02T03:04:05.000Z';

let workDir: string;
let sqliteFile: string;
let api: Server;
let apiUrl: string;
const apiSeen: IncomingHttpHeaders[] = [];

async function sql(query: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(query);
  } finally {
    await client.end();
  }
}

async function maria(work: (connection: mysql.Connection) => Promise<void>): Promise<void> {
  const connection = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', database: 'test' });
  try {
    await work(connection);
  } finally {
    await connection.end();
  }
}

beforeAll(async () => {
  await sql(`create schema ${PG_SCHEMA}; create table ${PG_SCHEMA}.articles (id int primary key, body text, updated_at timestamptz);
    insert into ${PG_SCHEMA}.articles values (1, 'a', '2025-12-01T00:00:00Z'), (2, 'b', '${PG_FRESHEST}'), (3, 'c', '2026-01-01T00:00:00Z')`);
  await maria(async (connection) => {
    await connection.query(`create table ${MARIA_TABLE} (id int primary key, updated_at datetime)`);
    await connection.query(`insert into ${MARIA_TABLE} values (1, '2026-01-01 00:00:00'), (2, '2026-02-03 04:05:06'), (3, '2025-06-01 00:00:00'), (4, null)`);
  });
  workDir = mkdtempSync(path.join(tmpdir(), 'parapet-sources-'));
  sqliteFile = path.join(workDir, 'kb.sqlite');
  const file = new BetterSqlite3(sqliteFile);
  file.exec(`create table docs (id integer primary key, updated_at text); insert into docs (updated_at) values ('2025-12-31 10:00:00'), ('${SQLITE_FRESHEST.replace('T', ' ').replace('.000Z', '')}')`);
  file.close();
  api = createServer((request, response) => {
    apiSeen.push(request.headers);
    if (request.url === '/elsewhere') {
      response.writeHead(302, { location: 'http://example.invalid/kb' }).end();
      return;
    }
    if (request.url === '/moved') {
      response.writeHead(301, { location: '/kb' }).end();
      return;
    }
    if (request.headers['x-api-key'] !== `Token api-secret-${suffix}`) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorised"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"articles":[1,2,3]}');
  });
  api.listen(0, '127.0.0.1');
  await once(api, 'listening');
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await sql(`drop schema if exists ${PG_SCHEMA} cascade`);
  await maria(async (connection) => {
    await connection.query(`drop table if exists ${MARIA_TABLE}`);
    await connection.query(`drop user if exists '${MARIA_USER}'@'%'`);
  });
  api?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe.each(DIALECTS)('knowledge sources (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  let viewer: string;
  let operator: string;
  // Distinct per dialect: the MariaDB user is created once per gateway.
  const pgSecret = `pg-secret-${dialect}-${suffix}`;
  const mariaSecret = `maria-secret-${dialect}-${suffix}`;
  const apiSecret = `api-secret-${suffix}`;
  /** Every answer body the tests received, searched for the secrets at the end. */
  const answered: string[] = [];

  const call = async (pathname: string, init: RequestInit & { token?: string | null; json?: unknown } = {}) => {
    const response = await ctx.gateway.request(pathname, init);
    const text = await response.text();
    answered.push(text);
    return { status: response.status, type: response.headers.get('content-type') ?? '', body: text === '' ? null : (JSON.parse(text) as any) };
  };
  const put = (body: unknown, token = operator) => call('/api/sources', { method: 'PUT', json: body, token });
  const connect = (body: unknown, token = operator) => call('/api/sources/connections', { method: 'POST', json: body, token });
  const validate = (key: string, token = operator) => call(`/api/sources/${key}/validate`, { method: 'POST', token });
  const sourceAudit = (gateway: TestGateway) =>
    gateway.store.db.selectFrom('audit_entries').select(['action', 'target', 'detail']).where('action', 'like', 'source.%').orderBy('seq').execute();

  beforeAll(async () => {
    const gateway = ctx.gateway;
    viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer', ttl_days: 3650 } }))).token;
    operator = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'ops', role: 'operator', ttl_days: 3650 } }))).token;
    await maria(async (connection) => {
      await connection.query(`create user if not exists '${MARIA_USER}'@'%' identified by '${mariaSecret}'`);
      await connection.query(`alter user '${MARIA_USER}'@'%' identified by '${mariaSecret}'`);
      await connection.query(`grant select on test.${MARIA_TABLE} to '${MARIA_USER}'@'%'`);
    });
  });

  it('refuses malformed bodies, unknown sources and viewers; stores nothing', async () => {
    for (const bad of [
      {},
      { key: 'Bad Key' },
      { key: 'policies', tier: 'gold' },
      { key: 'policies', freshness_sla_hours: 0 },
      { key: 'policies', freshness_sla_hours: 87_601 },
      { key: 'policies', freshness_sla_hours: 1.5 },
      { key: 'policies', updated_at_source: 'yesterday' },
      { key: 'policies', deprecated: 'yes' },
      { key: 'policies', metadata: 'x' },
      { key: 'policies', metadata: { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } } },
      { key: 'policies', metadata: { text: 'x'.repeat(17_000) } },
      { key: 'policies', title: 'x'.repeat(301) },
      { key: 'policies', colour: 'blue' },
    ]) {
      const answer = await put(bad);
      expect(answer.status, JSON.stringify(bad).slice(0, 120)).toBe(400);
      expect(answer.type).toMatch(/^application\/problem\+json/);
    }
    expect((await put({ key: 'policies' }, viewer)).status).toBe(403);
    expect((await call('/api/sources', { token: ctx.gateway.trafficToken })).status).toBe(403);
    expect((await call('/api/sources', { token: null })).status).toBe(401);
    expect((await connect({ key: 'nothing-here', kind: 'api', config: { base_url: apiUrl } })).status).toBe(404);
    expect((await validate('nothing-here')).status).toBe(404);
    expect((await call('/api/sources/nothing-here', { method: 'DELETE', token: operator })).status).toBe(404);
    expect(await ctx.gateway.store.db.selectFrom('knowledge_sources').selectAll().execute()).toEqual([]);
    expect(await sourceAudit(ctx.gateway)).toEqual([]);
  });

  it('registers (201) and updates (200) a source, audited; fields left out keep their value; NUL and lone surrogates are stored replaced', async () => {
    const created = await put({
      key: 'hr.policies',
      title: 'HR policies \u0000 \uD800',
      tier: 'system_of_record',
      owner: 'people-team',
      domain: 'hr',
      updated_at_source: '2026-01-01T12:00:00+01:00',
      freshness_sla_hours: 720,
      metadata: { wiki: 'https://wiki.example.com/hr', 'k\u0000': ['\uDC00'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      key: 'hr.policies',
      title: 'HR policies \uFFFD \uFFFD',
      tier: 'system_of_record',
      owner: 'people-team',
      domain: 'hr',
      updated_at_source: '2026-01-01T11:00:00.000Z',
      freshness_sla_hours: 720,
      deprecated: false,
      metadata: { wiki: 'https://wiki.example.com/hr', 'k\uFFFD': ['\uFFFD'] },
      validated_at: null,
      validation: null,
      validation_ok: null,
      connection: null,
      created_by: expect.stringMatching(/ \(tok_\w+\)$/),
    });
    const updated = await put({ key: 'hr.policies', owner: 'hr-ops' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ title: 'HR policies \uFFFD \uFFFD', tier: 'system_of_record', owner: 'hr-ops', freshness_sla_hours: 720 });
    const defaults = await put({ key: 'blog' });
    expect(defaults.body).toMatchObject({ key: 'blog', title: 'blog', tier: 'unverified', owner: null, metadata: {}, stale: false });

    const list = await call('/api/sources', { token: viewer });
    expect(list.status).toBe(200);
    expect(list.body.items.map((item: { key: string }) => item.key)).toEqual(['blog', 'hr.policies']);
    expect(list.body.items[1]).toEqual(updated.body);
    expect((await call('/api/sources?tier=system_of_record', { token: viewer })).body.items.map((item: { key: string }) => item.key)).toEqual(['hr.policies']);
    expect((await call('/api/sources?domain=hr', { token: viewer })).body.items).toHaveLength(1);
    expect((await call('/api/sources?tier=gold', { token: viewer })).status).toBe(400);

    const audit = await sourceAudit(ctx.gateway);
    expect(audit.map(({ action, target }) => [action, target])).toEqual([
      ['source.saved', 'hr.policies'],
      ['source.saved', 'hr.policies'],
      ['source.saved', 'blog'],
    ]);
    expect(JSON.parse(audit[1]!.detail)).toMatchObject({ created: false, changed: ['owner'] });
  });

  it('refuses connections whose config does not fit the kind; nothing stored', async () => {
    await put({ key: 'conn.target' });
    for (const bad of [
      { key: 'conn.target', kind: 'ftp', config: {} },
      { key: 'conn.target', kind: 'api', config: {} },
      { key: 'conn.target', kind: 'api', config: { base_url: 'ftp://files.example.com' } },
      { key: 'conn.target', kind: 'api', config: { base_url: 'https://user:pw@kb.example.com' } },
      { key: 'conn.target', kind: 'api', config: { base_url: apiUrl, dialect: 'postgres' } },
      { key: 'conn.target', kind: 'api', config: { base_url: apiUrl, path: 'no-slash' } },
      { key: 'conn.target', kind: 'api', config: { base_url: apiUrl, auth_header: 'X Bad: header' } },
      { key: 'conn.target', kind: 'api', config: { base_url: apiUrl, auth_prefix: 'a\r\nInjected: 1' } },
      { key: 'conn.target', kind: 'database', config: { host: '127.0.0.1' } },
      { key: 'conn.target', kind: 'database', config: { dialect: 'oracle', host: 'h', database: 'd', username: 'u' } },
      { key: 'conn.target', kind: 'database', config: { dialect: 'postgres', host: '127.0.0.1', database: 'test' } },
      { key: 'conn.target', kind: 'database', config: { dialect: 'postgres', host: '127.0.0.1', database: 'test', username: 'u', check_table: 'x; drop table y' } },
      { key: 'conn.target', kind: 'database', config: { dialect: 'postgres', host: '127.0.0.1', database: 'test', username: 'u', check_table: 't', freshness_column: 'a.b' } },
      { key: 'conn.target', kind: 'database', config: { dialect: 'postgres', host: '127.0.0.1', database: 'test', username: 'u', freshness_column: 'updated_at' } },
      { key: 'conn.target', kind: 'database', config: { dialect: 'postgres', host: 'evil host', database: 'test', username: 'u' } },
      { key: 'conn.target', kind: 'database', config: { dialect: 'sqlite', path: 'relative.db' } },
      { key: 'conn.target', kind: 'database', config: { dialect: 'sqlite', path: '/tmp/x.db', host: '127.0.0.1' } },
      { key: 'conn.target', kind: 'database', config: { dialect: 'postgres', host: '127.0.0.1', database: 'test', username: 'u' }, credential: 'x'.repeat(4097) },
      { key: 'conn.target', kind: 'api', config: { base_url: apiUrl }, extra: 1 },
    ]) {
      const answer = await connect(bad);
      expect(answer.status, JSON.stringify(bad).slice(0, 160)).toBe(400);
      expect(answer.type).toMatch(/^application\/problem\+json/);
    }
    expect((await connect({ key: 'conn.target', kind: 'api', config: { base_url: apiUrl } }, viewer)).status).toBe(403);
    expect(await ctx.gateway.store.db.selectFrom('source_connections').selectAll().execute()).toEqual([]);
    expect((await validate('conn.target')).status).toBe(409);
    expect((await validate('conn.target', viewer)).status).toBe(403);
    // NUL is refused in config text; a lone surrogate is stored (and answered) replaced.
    const pgConfig = { dialect: 'postgres', host: '127.0.0.1', database: 'test' };
    expect((await connect({ key: 'conn.target', kind: 'database', config: { ...pgConfig, username: 'u\u0000' } })).status).toBe(400);
    const surrogate = await connect({ key: 'conn.target', kind: 'database', config: { ...pgConfig, username: 'u\uD800' }, credential: 'p\u0000\uDC00' });
    expect(surrogate).toMatchObject({ status: 201, body: { config: { ...pgConfig, username: 'u\uFFFD', port: 5432 }, credential_set: true } });
    expect((await call('/api/sources', { token: viewer })).body.items.find((item: { key: string }) => item.key === 'conn.target').connection).toEqual(surrogate.body);
  });

  it('validates a PostgreSQL source against a real table: row count and freshest timestamp, read-only', async () => {
    await put({ key: 'pg.articles', title: 'Articles', tier: 'approved', freshness_sla_hours: 24 });
    const config = { dialect: 'postgres', host: '127.0.0.1', port: 5432, database: 'test', username: 'postgres', check_table: `${PG_SCHEMA}.articles`, freshness_column: 'updated_at' };
    const saved = await connect({ key: 'pg.articles', kind: 'database', config, credential: pgSecret });
    expect(saved.status).toBe(201);
    expect(saved.body).toEqual({ key: 'pg.articles', kind: 'database', config, credential_set: true, last_error: null, created_at: expect.any(String), updated_at: expect.any(String) });
    const result = await validate('pg.articles');
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ key: 'pg.articles', ok: true, saw: { kind: 'database', dialect: 'postgres', connected: true, row_count: 3, freshest: PG_FRESHEST, reason: null } });
    const source = (await call('/api/sources?domain=none', { token: viewer })).body.items;
    expect(source).toEqual([]);
    const listed = (await call('/api/sources', { token: viewer })).body.items.find((item: { key: string }) => item.key === 'pg.articles');
    expect(listed).toMatchObject({ validation_ok: true, validated_at: result.body.validated_at, updated_at_source: PG_FRESHEST, validation: { row_count: 3 }, connection: { credential_set: true, last_error: null } });
    // The freshest row is months old against a 24 h SLA.
    expect(listed.stale).toBe(true);
  });

  it('validates a MariaDB source with its own user and password against a real table', async () => {
    await put({ key: 'maria.tickets', tier: 'system_of_record' });
    const config = { dialect: 'mariadb', host: '127.0.0.1', database: 'test', username: MARIA_USER, check_table: MARIA_TABLE, freshness_column: 'updated_at' };
    const saved = await connect({ key: 'maria.tickets', kind: 'database', config, credential: mariaSecret });
    expect(saved.status).toBe(201);
    expect(saved.body.config).toEqual({ ...config, port: 3306 });
    const result = await validate('maria.tickets');
    expect(result.body).toMatchObject({ ok: true, saw: { dialect: 'mariadb', connected: true, row_count: 4, freshest: MARIA_FRESHEST, reason: null } });

    // A wrong password: the source cannot be read, and the answer says so without the secret.
    const replaced = await connect({ key: 'maria.tickets', kind: 'database', config, credential: `wrong-${mariaSecret}` });
    expect(replaced.status).toBe(200);
    const failed = await validate('maria.tickets');
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ ok: false, saw: { connected: false, reason: expect.stringMatching(/access denied/i) } });
    const health = (await call('/api/sources/health', { token: viewer })).body;
    expect(health.items.find((item: { key: string }) => item.key === 'maria.tickets').problems).toEqual([{ code: 'connection_failing', detail: failed.body.saw.reason }]);
    // Left out, the credential is kept: the right one again, then a config-only change.
    await connect({ key: 'maria.tickets', kind: 'database', config, credential: mariaSecret });
    const kept = await connect({ key: 'maria.tickets', kind: 'database', config: { ...config, freshness_column: undefined } });
    expect(kept.body).toMatchObject({ credential_set: true, last_error: null });
    expect((await validate('maria.tickets')).body).toMatchObject({ ok: true, saw: { row_count: 4 } });
  });

  it('validates a SQLite file source and an API source (the auth header reaches it; no redirect to another host)', async () => {
    await put({ key: 'sqlite.docs' });
    await connect({ key: 'sqlite.docs', kind: 'database', config: { dialect: 'sqlite', path: sqliteFile, check_table: 'docs', freshness_column: 'updated_at' } });
    expect((await validate('sqlite.docs')).body).toMatchObject({ ok: true, saw: { dialect: 'sqlite', row_count: 2, freshest: SQLITE_FRESHEST } });

    await put({ key: 'api.kb', tier: 'approved' });
    const saved = await connect({ key: 'api.kb', kind: 'api', config: { base_url: `${apiUrl}/`, path: '/moved', auth_header: 'X-Api-Key', auth_prefix: 'Token ' }, credential: apiSecret });
    expect(saved.body.config).toEqual({ base_url: `${apiUrl}/`, path: '/moved', auth_header: 'X-Api-Key', auth_prefix: 'Token ' });
    apiSeen.length = 0;
    const result = await validate('api.kb');
    expect(result.body).toMatchObject({ ok: true, saw: { kind: 'api', connected: true, status: 200, content_type: 'application/json', bytes: 20, truncated: false, reason: null } });
    // Followed once on the same origin, the key sent both times.
    expect(apiSeen.map((headers) => headers['x-api-key'])).toEqual([`Token ${apiSecret}`, `Token ${apiSecret}`]);

    await connect({ key: 'api.kb', kind: 'api', config: { base_url: apiUrl, path: '/elsewhere', auth_header: 'X-Api-Key', auth_prefix: 'Token ' } });
    expect((await validate('api.kb')).body).toMatchObject({ ok: false, saw: { status: 302, reason: expect.stringContaining('another host (example.invalid)') } });
    await connect({ key: 'api.kb', kind: 'api', config: { base_url: apiUrl, path: '/kb' }, credential: 'wrong' });
    expect((await validate('api.kb')).body).toMatchObject({ ok: false, saw: { status: 401, reason: 'the API answered HTTP 401' } });
  });

  it('reports a failing connection, a stale source, an unvalidated system of record and a deprecated source still cited', async () => {
    await put({ key: 'down.db', tier: 'approved' });
    await connect({ key: 'down.db', kind: 'database', config: { dialect: 'postgres', host: '127.0.0.1', port: 1, database: 'x', username: 'x' }, credential: pgSecret });
    const failed = await validate('down.db');
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ ok: false, saw: { connected: false, reason: expect.stringContaining('postgres:') } });
    const now = ctx.gateway.clock.now().getTime();
    await put({ key: 'old.news', updated_at_source: new Date(now - 3 * HOUR).toISOString(), freshness_sla_hours: 2 });
    await put({ key: 'fresh.news', updated_at_source: new Date(now - HOUR).toISOString(), freshness_sla_hours: 2 });
    await put({ key: 'retired.faq' });
    const deprecated = await call('/api/sources/retired.faq', { method: 'DELETE', token: operator });
    expect(deprecated.status).toBe(200);
    expect(deprecated.body).toMatchObject({ key: 'retired.faq', deprecated: true });
    // A citation after the deprecation, as POST /api/sources/assess records it.
    ctx.gateway.clock.advance(60_000);
    await ctx.gateway.store.db.updateTable('knowledge_sources').set({ last_cited_at: ctx.gateway.clock.now().toISOString() }).where('key', '=', 'retired.faq').execute();

    const health = (await call('/api/sources/health', { token: viewer })).body;
    const problems = Object.fromEntries(health.items.map((item: { key: string; problems: Array<{ code: string }> }) => [item.key, item.problems.map((found) => found.code)]));
    expect(problems['down.db']).toEqual(['connection_failing']);
    expect(problems['old.news']).toEqual(['stale']);
    expect(problems['fresh.news']).toBeUndefined();
    expect(problems['retired.faq']).toEqual(['deprecated_cited']);
    expect(problems['hr.policies']).toEqual(expect.arrayContaining(['unvalidated']));
    expect(problems['pg.articles']).toEqual(['stale']);
    expect(problems['api.kb']).toEqual(['connection_failing']);
    const tally = (code: string) => Object.values(problems).filter((codes) => (codes as string[]).includes(code)).length;
    expect(health.counts).toMatchObject({ connection_failing: 2, deprecated_cited: 1, stale: tally('stale'), unvalidated: tally('unvalidated') });
    expect(health.counts.healthy + health.items.length).toBe(health.counts.sources);
    const downRow = await ctx.gateway.store.db.selectFrom('source_connections').select('last_error').where('key', '=', 'down.db').executeTakeFirstOrThrow();
    expect(downRow.last_error).toBe(failed.body.saw.reason);
    // An empty table is connected yet fails validation.
    await put({ key: 'empty.table' });
    await sql(`create table ${PG_SCHEMA}.empty (id int)`);
    await connect({ key: 'empty.table', kind: 'database', config: { dialect: 'postgres', host: '127.0.0.1', database: 'test', username: 'postgres', check_table: `${PG_SCHEMA}.empty` } });
    expect((await validate('empty.table')).body).toMatchObject({ ok: false, saw: { connected: true, row_count: 0 } });
    const after = (await call('/api/sources/health', { token: viewer })).body;
    expect(after.items.find((item: { key: string }) => item.key === 'empty.table').problems).toEqual([{ code: 'validation_failed', detail: `${PG_SCHEMA}.empty has no rows` }]);
    await sql(`drop table ${PG_SCHEMA}.empty`);
  });

  it('deletes a source and its connection with hard=true, audited', async () => {
    expect((await call('/api/sources/down.db?hard=true', { method: 'DELETE', token: viewer })).status).toBe(403);
    expect((await call('/api/sources/down.db?hard=maybe', { method: 'DELETE', token: operator })).status).toBe(400);
    const deleted = await call('/api/sources/down.db?hard=true', { method: 'DELETE', token: operator });
    expect(deleted).toMatchObject({ status: 200, body: { key: 'down.db', deleted: true } });
    expect(await ctx.gateway.store.db.selectFrom('source_connections').selectAll().where('key', '=', 'down.db').execute()).toEqual([]);
    expect((await call('/api/sources/down.db', { method: 'DELETE', token: operator })).status).toBe(404);
    const actions = (await sourceAudit(ctx.gateway)).map((entry) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(['source.connection_saved', 'source.validated', 'source.deprecated', 'source.deleted']));
  });

  it('answers the credentials by no route, audits none and stores them only sealed', async () => {
    for (const pathname of ['/api/sources', '/api/sources/health', '/api/audit?limit=500']) await call(pathname, { token: operator });
    const audit = await sourceAudit(ctx.gateway);
    const rows = await ctx.gateway.store.db.selectFrom('source_connections').selectAll().execute();
    const stored = JSON.stringify(rows);
    const everything = [...answered, JSON.stringify(audit), stored].join('\n');
    for (const secret of [pgSecret, mariaSecret, apiSecret]) expect(everything).not.toContain(secret);
    // Sealed, not dropped: the gateway can read them back.
    const sealer = ctx.gateway.app.services.sources.deps.sealer;
    const credentials = rows.map((row) => (row.credential === null ? null : sealer.unseal(row.credential)));
    expect(credentials).toEqual(expect.arrayContaining([pgSecret, mariaSecret]));
    expect(audit.filter((entry) => entry.action === 'source.connection_saved').length).toBeGreaterThan(5);
  });
});
