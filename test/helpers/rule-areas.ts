// A real HTTP server for one operator area on its own: a fresh database (SQLite or PostgreSQL,
// migrated), the gateway's own HTTP plugins (problems, auth with real tokens, edge, OpenAPI), the
// audit chain, and the area's routes. The custom-rules, business-rules and rule-examples tests use
// it until app.ts registers those areas; then `withGateway` serves them as well.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { AuditLog } from '../../src/areas/audit/log.js';
import { CredentialResolver } from '../../src/infra/auth/resolver.js';
import { authPlugin, createAuthenticator } from '../../src/infra/auth/access.js';
import { edgePlugin } from '../../src/infra/http/edge.js';
import { errorsPlugin, frameworkError } from '../../src/infra/http/errors.js';
import { HttpMetrics } from '../../src/infra/http/metrics.js';
import { openApiPlugin } from '../../src/infra/http/openapi.js';
import { createValidatorCompiler } from '../../src/infra/http/validation.js';
import { Store, type Dialect } from '../../src/infra/store/db.js';
import { TokenService } from '../../src/areas/tokens/service.js';
import { TestClock } from './clock.js';
import { casesFor, operations, type OpenApiDocument } from './openapi-fuzz.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

export { TestClock };

export interface AreaDeps {
  store: Store;
  audit: AuditLog;
  clock: TestClock;
}

export interface AreaServer<T> {
  url: string;
  dialect: Dialect;
  store: Store;
  audit: AuditLog;
  clock: TestClock;
  adminToken: string;
  viewerToken: string;
  /** What the setup returned: the area's services. */
  services: T;
  /** fetch against the area with the admin token, unless another credential (or null) is given. */
  request(pathname: string, init?: RequestInit & { json?: unknown; token?: string | null }): Promise<Response>;
  close(): Promise<void>;
}

export type AreaSetup<T> = (app: FastifyInstance, deps: AreaDeps) => Promise<T>;

export async function startAreaServer<T>(dialect: Dialect, setup: AreaSetup<T>): Promise<AreaServer<T>> {
  const workDir = mkdtempSync(path.join(tmpdir(), 'parapet-area-'));
  const database: TestDatabase | undefined = dialect === 'postgres' ? await createTestDatabase() : undefined;
  const store = Store.open({ databaseUrl: database?.url ?? null, dataDir: path.join(workDir, 'data'), poolSize: 4 });
  await store.migrate();
  const clock = new TestClock();
  const audit = new AuditLog(store, clock);
  const resolver = new CredentialResolver(store, clock, 0);
  const tokens = new TokenService(store, audit, resolver, clock);
  const adminToken = `ppt_op_test_${randomBytes(24).toString('base64url')}`;
  await tokens.ensureAdminToken(adminToken);
  const viewerToken = (await tokens.mint({ name: 'viewer', role: 'viewer', owner: 'tests', createdBy: 'test', ttlDays: null }, 'test')).token;

  const app = Fastify({ logger: false, frameworkErrors: frameworkError }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(createValidatorCompiler());
  app.removeContentTypeParser('text/plain');
  await app.register(errorsPlugin);
  await app.register(authPlugin);
  await app.register(edgePlugin, { authenticate: createAuthenticator(resolver), metrics: new HttpMetrics(), logRequests: false, slowRequestMs: 60_000 });
  await app.register(openApiPlugin, { version: 'test' });
  const services = await setup(app, { store, audit, clock });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    dialect,
    store,
    audit,
    clock,
    adminToken,
    viewerToken,
    services,
    request(pathname, init = {}) {
      const { json, token, ...rest } = init;
      const headers = new Headers(rest.headers);
      const credential = token === undefined ? adminToken : token;
      if (credential !== null) headers.set('authorization', `Bearer ${credential}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      return fetch(url + pathname, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    },
    async close() {
      await app.close();
      await resolver.close();
      await store.close();
      await database?.drop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts an area server before the tests of the enclosing describe block and closes it after them.
 * @example const ctx = withAreaServer(dialect, async (app, deps) => { ...; return { service } });
 */
export function withAreaServer<T>(dialect: Dialect, setup: AreaSetup<T>): { server: AreaServer<T> } {
  const context = {} as { server: AreaServer<T> };
  beforeAll(async () => {
    context.server = await startAreaServer(dialect, setup);
  });
  afterAll(async () => {
    await context.server?.close();
  });
  return context;
}

/** The number of audit entries, to prove that a request changed nothing. */
export async function auditCount(store: Store): Promise<number> {
  return Number((await store.db.selectFrom('audit_entries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** The audit entries about one target, oldest first. */
export async function auditOf(store: Store, target: string): Promise<Array<{ action: string; actor: string; detail: any }>> {
  const rows = await store.db.selectFrom('audit_entries').selectAll().where('target', '=', target).orderBy('seq').execute();
  return rows.map((row) => ({ action: row.action, actor: row.actor, detail: JSON.parse(row.detail) }));
}

/**
 * Every route of the area's OpenAPI document fuzzed with malformed requests: what did not answer
 * with a 4xx problem, and how many operations there were. Call with the audit count before and
 * after to prove nothing changed.
 */
export async function malformedRequestFailures<T>(server: AreaServer<T>): Promise<{ failures: string[]; operations: number; document: OpenApiDocument }> {
  const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
  const failures: string[] = [];
  const found = operations(document);
  for (const { method, path: route, operation } of found) {
    for (const fuzz of casesFor(document, method, route, operation, { credential: server.adminToken, bodyLimit: 1_048_576 })) {
      const response = await fetch(server.url + fuzz.path, { method: fuzz.method, headers: fuzz.headers, body: fuzz.body });
      if (!fuzz.expect.includes(response.status)) failures.push(`${fuzz.route} [${fuzz.name}] → ${response.status}: ${(await response.text()).slice(0, 200)}`);
      else if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json')) failures.push(`${fuzz.route} [${fuzz.name}]: not a problem`);
      else await response.arrayBuffer();
    }
  }
  return { failures, operations: found.length, document };
}
