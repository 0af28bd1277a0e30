// `parapet audit verify|checkpoint` as an operator runs them: the built CLI against a gateway
// process, through PARAPET_URL and PARAPET_TOKEN; a chain altered in the database exits 1.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runParapet, startServerProcess, type ServerProcess } from './helpers/process.js';

describe('parapet audit (sqlite)', () => {
  let cwd: string;
  let env: Record<string, string>;
  let server: ServerProcess;
  const adminToken = 'ppt_op_cli-audit-admin-token-0123456789';

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(tmpdir(), 'parapet-cli-audit-'));
    env = { PARAPET_DATA_DIR: path.join(cwd, 'data'), PARAPET_ADMIN_TOKEN: adminToken };
    expect((await runParapet(['migrate'], env, cwd)).code).toBe(0);
    server = await startServerProcess(env, cwd);
    env = { ...env, PARAPET_URL: server.url, PARAPET_TOKEN: adminToken };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('verifies the chain, makes a checkpoint and counts it, whole and by range', async () => {
    const checkpoint = await runParapet(['audit', 'checkpoint'], env, cwd);
    expect(checkpoint.stderr).toBe('');
    expect(checkpoint.code).toBe(0);
    const made = /^checkpoint (chk_\w+) at seq (\d+) \(hash [0-9a-f]{64}, key [0-9a-f]{16}\)$/.exec(checkpoint.stdout.trim());
    expect(made).not.toBeNull();
    const head = Number(made?.[2]);

    const whole = await runParapet(['audit', 'verify'], env, cwd);
    expect(whole.code).toBe(0);
    expect(whole.stdout.trim()).toBe(`audit chain verified: ${head} entries (seq 1..${head}), 1 checkpoints valid`);

    const range = await runParapet(['audit', 'verify', '--start-seq', '1', '--end-seq', '1'], env, cwd);
    expect(range.code).toBe(0);
    expect(range.stdout.trim()).toBe('audit chain verified: 1 entries (seq 1..1), 0 checkpoints valid');

    const json = await runParapet(['audit', 'verify', '--json'], env, cwd);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, checked: head, first_bad: null, checkpoints: [{ id: made?.[1], signature_valid: true, matches_chain: true }] });
  });

  it('refuses a bad seq and a missing gateway before calling anything', async () => {
    const bad = await runParapet(['audit', 'verify', '--start-seq', '0'], env, cwd);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('a whole number from 1');
    const unconfigured = await runParapet(['audit', 'verify'], { PARAPET_PROFILE_FILE: path.join(cwd, 'none.json') }, cwd);
    expect(unconfigured.code).toBe(1);
    expect(unconfigured.stderr).toContain('no gateway URL and token');
  });

  it('exits 1 naming the first bad entry when a row was altered in the database', async () => {
    const database = new SQLite(path.join(cwd, 'data', 'parapet.db'));
    try {
      database.pragma('busy_timeout = 5000');
      const first = database.prepare('select id, detail from audit_entries where seq = 1').get() as { id: string; detail: string };
      database.prepare('update audit_entries set detail = ? where seq = 1').run('{"altered":true}');
      const broken = await runParapet(['audit', 'verify'], env, cwd);
      expect(broken.code).toBe(1);
      expect(broken.stdout.trim()).toBe(`audit chain broken at seq 1 (${first.id}): hash mismatch`);
      // A range after the altered entry still verifies: its first entry links to the stored hash.
      expect((await runParapet(['audit', 'verify', '--start-seq', '2'], env, cwd)).code).toBe(0);
      database.prepare('update audit_entries set detail = ? where seq = 1').run(first.detail);
      expect((await runParapet(['audit', 'verify'], env, cwd)).code).toBe(0);

      // A checkpoint edited in the database fails the verification too, and says which.
      const checkpoint = database.prepare('select id, seq, signature from audit_checkpoints').get() as { id: string; seq: number; signature: string };
      database.prepare('update audit_checkpoints set signature = ?').run('0'.repeat(64));
      const forged = await runParapet(['audit', 'verify'], env, cwd);
      expect(forged.code).toBe(1);
      expect(forged.stdout.trim()).toBe(`audit checkpoint ${checkpoint.id} at seq ${checkpoint.seq} does not verify: signature does not verify`);
      database.prepare('update audit_checkpoints set signature = ?').run(checkpoint.signature);
    } finally {
      database.close();
    }
  });
});
