// `parapet evidence create|download|list` and `parapet jobs list|retry` against a gateway process,
// as an operator runs them (PARAPET_URL and PARAPET_TOKEN in the environment).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runParapet, startServerProcess, type ServerProcess } from './helpers/process.js';

describe('parapet evidence and jobs commands (sqlite)', () => {
  let cwd: string;
  let server: ServerProcess;
  let env: Record<string, string>;
  const adminToken = 'ppt_op_evidence-cli-admin-token-0123456789';

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(tmpdir(), 'parapet-evidence-cli-'));
    server = await startServerProcess({ PARAPET_DATA_DIR: path.join(cwd, 'data'), PARAPET_ADMIN_TOKEN: adminToken }, cwd);
    env = { PARAPET_URL: server.url, PARAPET_TOKEN: adminToken, PARAPET_PROFILE_FILE: path.join(cwd, 'profiles.json') };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('creates a package (id and status on stdout) and downloads it as a zip that verifies', async () => {
    const created = await runParapet(['evidence', 'create', '--agent', 'ledger-bot', '--control', 'AC-2', '--control', 'AU-6'], env, cwd);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const [id, status] = created.stdout.trim().split(/\s+/);
    expect(id).toMatch(/^evp_/);
    expect(status).toBe('ready');

    const downloaded = await runParapet(['evidence', 'download', id ?? '', '-o', 'package.zip'], env, cwd);
    expect(downloaded.code).toBe(0);
    expect(downloaded.stdout).toContain('wrote package.zip');
    const files = unzipSync(readFileSync(path.join(cwd, 'package.zip')));
    const manifest = JSON.parse(strFromU8(files['manifest.json'] as Uint8Array));
    expect(manifest).toMatchObject({ package_id: id, scope: { agents: ['ledger-bot'], controls: ['AC-2', 'AU-6'] } });
    expect(strFromU8(files.SHA256SUMS as Uint8Array)).toContain('  manifest.json\n');

    const byDefault = await runParapet(['evidence', 'download', id ?? ''], env, cwd);
    expect(byDefault.code).toBe(0);
    expect(readFileSync(path.join(cwd, `${id}.zip`)).length).toBeGreaterThan(0);
    const listed = await runParapet(['evidence', 'list'], env, cwd);
    expect(listed.stdout).toContain(`${id} ready`);
  });

  it('reports a refused period with the problem and exit code 1', async () => {
    const refused = await runParapet(['evidence', 'create', '--from', '2026-03-01', '--to', '2026-02-01'], env, cwd);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('HTTP 400');
    expect(refused.stderr).toContain('period_from');
  });

  it('lists jobs and refuses to retry one that is not dead', async () => {
    const listed = await runParapet(['jobs', 'list', '--json'], env, cwd);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
    const retried = await runParapet(['jobs', 'retry', 'job_00000000000000000000000000'], env, cwd);
    expect(retried.code).toBe(1);
    expect(retried.stderr).toContain('HTTP 404');
  });
});
