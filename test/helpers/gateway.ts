// startGateway(): the real gateway on a real port (port 0), on SQLite or PostgreSQL, with a known
// admin token and a clock the test can move.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/infra/config/load.js';
import type { Config } from '../../src/infra/config/schema.js';
import type { Detector } from '../../src/engine/detectors/types.js';
import type { EvidenceStorage } from '../../src/areas/evidence/storage.js';
import { Store, type Dialect } from '../../src/infra/store/db.js';
import { TestClock } from './clock.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

export const DIALECTS: Dialect[] = ['sqlite', 'postgres'];

export { TestClock };

export interface TestGateway {
  url: string;
  dialect: Dialect;
  adminToken: string;
  /** A traffic token: the default credential for agent traffic (/v1/*). */
  trafficToken: string;
  config: Config;
  app: App;
  store: Store;
  clock: TestClock;
  /** fetch against the gateway: the traffic token on /v1, the admin token elsewhere, unless another credential is given. */
  request(pathname: string, init?: RequestInit & { token?: string | null; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

export interface StartOptions {
  dialect?: Dialect;
  overrides?: Partial<Config>;
  /** Reuse a database (several gateways on one PostgreSQL database). */
  databaseUrl?: string;
  /** Replace the registered detectors (slow or failing ones for degraded-path tests). */
  detectors?: readonly Detector[];
  /** Replace where evidence packages are stored (one that fails, for the retry paths). */
  evidenceStorage?: EvidenceStorage;
}

export async function startGateway(options: StartOptions = {}): Promise<TestGateway> {
  const dialect = options.dialect ?? 'sqlite';
  const workDir = mkdtempSync(path.join(tmpdir(), 'parapet-test-'));
  let database: TestDatabase | undefined;
  let databaseUrl: string | null = null;
  if (dialect === 'postgres') {
    if (options.databaseUrl !== undefined) databaseUrl = options.databaseUrl;
    else {
      database = await createTestDatabase();
      databaseUrl = database.url;
    }
  }
  const adminToken = `ppt_op_test_${randomBytes(24).toString('base64url')}`;
  const config = loadConfig({
    env: {},
    cwd: workDir,
    overrides: {
      port: 0,
      data_dir: path.join(workDir, 'data'),
      database_url: databaseUrl,
      log_level: 'silent',
      admin_token: adminToken,
      // Tests send hundreds of requests from one address to the public routes (the fuzz walkers);
      // the rate-limit tests set the public budget themselves.
      rate_limit_public_per_minute: 0,
      ...options.overrides,
    },
  });
  const store = Store.open({ databaseUrl: config.database_url, dataDir: config.data_dir, poolSize: 4 });
  await store.migrate();
  const clock = new TestClock();
  const app = await buildApp({
    config,
    store,
    clock,
    ...(options.detectors ? { detectors: options.detectors } : {}),
    ...(options.evidenceStorage ? { evidenceStorage: options.evidenceStorage } : {}),
  });
  await app.services.tokens.ensureAdminToken(config.admin_token);
  const trafficToken = (
    await app.services.tokens.mint({ name: 'test traffic', role: 'traffic', owner: 'tests', createdBy: 'test', ttlDays: null }, 'test')
  ).token;
  const address = await app.listen({ port: 0, host: '127.0.0.1' });

  return {
    url: address,
    dialect,
    adminToken,
    trafficToken,
    config,
    app,
    store,
    clock,
    request(pathname, init = {}) {
      const { token, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      const credential = token === undefined ? (pathname.startsWith('/v1/') ? trafficToken : adminToken) : token;
      if (credential !== null) headers.set('authorization', `Bearer ${credential}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      return fetch(address + pathname, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    },
    async close() {
      await app.close();
      await store.close();
      await database?.drop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/** The JSON body of a response, typed loosely for assertions. */
export async function json(response: Response | Promise<Response>): Promise<any> {
  return (await response).json();
}

/**
 * Starts a gateway before the tests of the enclosing describe block and closes it after them.
 * @example const ctx = withGateway({ dialect }); it('...', () => ctx.gateway.request('/api/me'));
 */
export function withGateway(options: StartOptions = {}): { gateway: TestGateway } {
  const context = {} as { gateway: TestGateway };
  beforeAll(async () => {
    context.gateway = await startGateway(options);
  });
  afterAll(async () => {
    await context.gateway?.close();
  });
  return context;
}
