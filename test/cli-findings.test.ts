// `parapet findings list|show|suppress|resolve|reopen` as an operator runs them: the built command
// against a gateway process, connected through PARAPET_URL and PARAPET_TOKEN.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from './helpers/gateway.js';
import { createTestDatabase, type TestDatabase } from './helpers/postgres.js';
import { runParapet, startServerProcess, type ServerProcess } from './helpers/process.js';

const ADMIN_TOKEN = 'ppt_op_cli-findings-admin-token-0123456789';

describe.each(DIALECTS)('parapet findings (%s)', (dialect) => {
  let cwd: string;
  let database: TestDatabase | undefined;
  let server: ServerProcess;
  let cli: Record<string, string>;
  let findingId: string;

  const api = async (pathname: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<any> => {
    const response = await fetch(server.url + pathname, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${init.token ?? ADMIN_TOKEN}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    expect(response.status).toBeLessThan(300);
    return response.json();
  };

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(tmpdir(), 'parapet-cli-findings-'));
    const env: Record<string, string> = { PARAPET_DATA_DIR: path.join(cwd, 'data'), PARAPET_ADMIN_TOKEN: ADMIN_TOKEN };
    if (dialect === 'postgres') {
      database = await createTestDatabase();
      env.DATABASE_URL = database.url;
    }
    server = await startServerProcess(env, cwd);
    cli = { PARAPET_URL: server.url, PARAPET_TOKEN: ADMIN_TOKEN, PARAPET_PROFILE_FILE: path.join(cwd, 'profiles.json') };
    // A tool call by an agent the registry does not know raises shadow_agent (and containment).
    const traffic = (await api('/api/tokens', { method: 'POST', body: { name: 'app', role: 'traffic' } })).token as string;
    await api('/v1/guard/tool_call', { method: 'POST', token: traffic, body: { agent: 'cli-ghost', tool: 'send_email', arguments: {} } });
    // Recording is asynchronous in the server process: wait for the finding to be written.
    for (let attempt = 0; attempt < 100 && findingId === undefined; attempt += 1) {
      const page = await api('/api/findings?type=shadow_agent');
      findingId = page.items.find((item: any) => item.evidence.agent_name === 'cli-ghost')?.id;
      if (findingId === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(findingId).toMatch(/^fnd_/);
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('lists findings as a plain table, filtered, and as JSON', async () => {
    const listed = await runParapet(['findings', 'list'], cli, cwd);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+SEVERITY\s+STATUS\s+OCCURRENCES\s+LAST SEEN\s+TITLE$/);
    const row = lines.find((line) => line.startsWith(findingId));
    expect(row).toMatch(/^fnd_\w+\s+medium\s+open\s+1\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+Traffic from unregistered agent cli-ghost$/);

    const filtered = await runParapet(['findings', 'list', '--type', 'containment', '--status', 'open', '--severity', 'high', '--json'], cli, cwd);
    expect(filtered.code).toBe(0);
    const page = JSON.parse(filtered.stdout);
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((item: any) => item.type === 'containment' && item.severity === 'high')).toBe(true);

    const one = await runParapet(['findings', 'list', '--limit', '1', '--json'], cli, cwd);
    const firstPage = JSON.parse(one.stdout);
    expect(firstPage.items).toHaveLength(1);
    expect(firstPage.next_cursor).not.toBeNull();
    const paged = await runParapet(['findings', 'list', '--limit', '1', '--cursor', firstPage.next_cursor], cli, cwd);
    expect(paged.code).toBe(0);
    expect(paged.stdout).not.toContain(firstPage.items[0].id);

    expect((await runParapet(['findings', 'list', '--status', 'resolved'], cli, cwd)).stdout).toBe('no findings\n');
  });

  it('shows one finding as JSON and says HTTP 404 for an unknown one', async () => {
    const shown = await runParapet(['findings', 'show', findingId], cli, cwd);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: findingId, type: 'shadow_agent', status: 'open', subject: 'agent:None' });
    const unknown = await runParapet(['findings', 'show', 'fnd_00000000000000000000000000'], cli, cwd);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('HTTP 404: no finding with id fnd_00000000000000000000000000');
  });

  it('suppresses with a reason and resolves with a note; a repeat is HTTP 409', async () => {
    const noReason = await runParapet(['findings', 'suppress', findingId], cli, cwd);
    expect(noReason.code).not.toBe(0);
    expect(noReason.stderr).toContain('--reason');

    const suppressed = await runParapet(['findings', 'suppress', findingId, '--reason', 'known batch job'], cli, cwd);
    expect(suppressed.code).toBe(0);
    expect(suppressed.stdout).toBe(`${findingId} is now suppressed: Traffic from unregistered agent cli-ghost\n`);
    const again = await runParapet(['findings', 'suppress', findingId, '--reason', 'still known'], cli, cwd);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`HTTP 409: finding ${findingId} is already suppressed`);

    const resolved = await runParapet(['findings', 'resolve', findingId, '--note', 'agent registered', '--json'], cli, cwd);
    expect(resolved.code).toBe(0);
    expect(JSON.parse(resolved.stdout)).toMatchObject({ id: findingId, status: 'resolved', resolution_note: 'agent registered', suppression_reason: 'known batch job' });

    const reopened = await runParapet(['findings', 'reopen', findingId, '--note', 'it is back'], cli, cwd);
    expect(reopened.code).toBe(0);
    expect(reopened.stdout).toContain('is now open');
    const audit = await api(`/api/findings/${findingId}`);
    expect(audit).toMatchObject({ status: 'open', reopened_count: 1 });
  });

  it('refuses a viewer (HTTP 403), a bad option value and a missing connection, with exit codes', async () => {
    const viewer = (await api('/api/tokens', { method: 'POST', body: { name: 'reader', role: 'viewer' } })).token as string;
    const forbidden = await runParapet(['findings', 'resolve', findingId, '--note', 'x'], { ...cli, PARAPET_TOKEN: viewer }, cwd);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain('HTTP 403');
    expect((await runParapet(['findings', 'list'], { ...cli, PARAPET_TOKEN: viewer }, cwd)).code).toBe(0);

    const badSeverity = await runParapet(['findings', 'list', '--severity', 'urgent'], cli, cwd);
    expect(badSeverity.code).not.toBe(0);
    expect(badSeverity.stderr).toContain('critical, high, medium, low');
    const badLimit = await runParapet(['findings', 'list', '--limit', '0'], cli, cwd);
    expect(badLimit.code).not.toBe(0);
    const badType = await runParapet(['findings', 'list', '--type', 'no_such_type'], cli, cwd);
    expect(badType.code).toBe(1);
    expect(badType.stderr).toContain('HTTP 400');

    const nowhere = await runParapet(['findings', 'list'], { PARAPET_PROFILE_FILE: path.join(cwd, 'none.json') }, cwd);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('PARAPET_URL');
  });

  it.each([['list'], ['show'], ['suppress'], ['resolve'], ['reopen']])('prints help for findings %s', async (command) => {
    const help = await runParapet(['findings', command, '--help'], {}, cwd);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`Usage: parapet findings ${command}`);
  });
});
