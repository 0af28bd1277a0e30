// The `parapet` command as an operator runs it: admin token create|list|revoke against the same
// storage as the server, migrate, --help, and a bad setting stopping the start.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from './helpers/gateway.js';
import { createTestDatabase, type TestDatabase } from './helpers/postgres.js';
import { runParapet, startServerProcess, type ServerProcess } from './helpers/process.js';

describe.each(DIALECTS)('parapet CLI (%s)', (dialect) => {
  let cwd: string;
  let env: Record<string, string>;
  let database: TestDatabase | undefined;
  let server: ServerProcess;

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(tmpdir(), 'parapet-cli-'));
    env = { PARAPET_DATA_DIR: path.join(cwd, 'data'), PARAPET_ADMIN_TOKEN: 'ppt_op_cli-test-admin-token-0123456789' };
    if (dialect === 'postgres') {
      database = await createTestDatabase();
      env.DATABASE_URL = database.url;
    }
    const migrated = await runParapet(['migrate'], env, cwd);
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain(`migrated ${dialect} database`);
    server = await startServerProcess(env, cwd);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('mints a viewer token that reads /api/me and is refused a change (403)', async () => {
    const created = await runParapet(['admin', 'token', 'create', '--role', 'viewer', '--name', 'x'], env, cwd);
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split('\n');
    const token = lines.at(-1) ?? '';
    expect(token).toMatch(/^ppt_op_[\w-]{43}$/);
    const headers = { authorization: `Bearer ${token}` };
    const me = await fetch(`${server.url}/api/me`, { headers });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ kind: 'operator', role: 'viewer', name: 'x', owner: 'x' });
    const change = await fetch(`${server.url}/api/tokens`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(change.status).toBe(403);
  });

  it('lists tokens without their values and revokes one so the server refuses it', async () => {
    const created = await runParapet(['admin', 'token', 'create', '--role', 'traffic', '--name', 'app', '--ttl-days', '3'], env, cwd);
    const token = created.stdout.trim().split('\n').at(-1) ?? '';
    expect(token).toMatch(/^ppt_tr_/);
    const listed = await runParapet(['admin', 'token', 'list', '--json'], env, cwd);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(token);
    const items = JSON.parse(listed.stdout) as Array<{ id: string; name: string; kind: string; expires_at: string | null }>;
    const app = items.find((item) => item.name === 'app');
    expect(app).toMatchObject({ kind: 'traffic' });
    expect(app?.expires_at).not.toBeNull();

    expect((await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const revoked = await runParapet(['admin', 'token', 'revoke', app?.id ?? ''], env, cwd);
    expect(revoked.code).toBe(0);
    // The server trusts a verified credential for at most auth_cache_ms (1 s by default).
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect((await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('saves a profile with login (mode 0600) and refuses a token the gateway does not accept', async () => {
    const profileEnv = { ...env, PARAPET_PROFILE_FILE: path.join(cwd, 'profiles.json') };
    const login = await runParapet(['login', '--url', server.url, '--token', env.PARAPET_ADMIN_TOKEN as string, '--profile', 'ops'], profileEnv, cwd);
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('profile ops saved');
    expect(statSync(profileEnv.PARAPET_PROFILE_FILE).mode & 0o777).toBe(0o600);
    const refused = await runParapet(['login', '--url', server.url, '--token', 'ppt_op_wrong'], profileEnv, cwd);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('HTTP 401');
  });

  it('fails with a clear message and a non-zero exit on bad arguments', async () => {
    const badRole = await runParapet(['admin', 'token', 'create', '--role', 'root', '--name', 'x'], env, cwd);
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toContain('viewer, operator, admin, traffic');
    const unknown = await runParapet(['admin', 'token', 'revoke', 'tok_nope'], env, cwd);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no token with id tok_nope');
  });
});

describe('parapet command', () => {
  it.each([[['--help']], [['serve', '--help']], [['migrate', '--help']], [['admin', 'token', 'create', '--help']], [['admin', 'token', 'list', '--help']], [['admin', 'token', 'revoke', '--help']]])(
    'prints help for %j',
    async (args) => {
      const result = await runParapet(args, {}, tmpdir());
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Usage: parapet');
    },
  );

  it('refuses to start on a bad setting with one line naming it', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'parapet-cli-'));
    const result = await runParapet(['serve'], { PARAPET_FAIL_MODE: 'sideways', PARAPET_DATA_DIR: path.join(cwd, 'data') }, cwd);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('fail_mode');
    expect(result.stderr).toContain('open or closed');
  });
});
