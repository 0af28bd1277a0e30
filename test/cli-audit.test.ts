// `parapet audit verify|checkpoint` as an operator runs them: the built CLI against a gateway
// process, through PARAPET_URL and PARAPET_TOKEN; a chain altered in the database exits 1.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { unzipSync } from 'fflate';
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

  it('saves the signed head and checks the chain still holds it', async () => {
    const saved = await runParapet(['audit', 'head', '-o', 'head.json'], env, cwd);
    expect(saved.code).toBe(0);
    expect(saved.stdout).toMatch(/^wrote head\.json: checkpoint chk_\w+ at seq \d+/);
    const head = JSON.parse(readFileSync(path.join(cwd, 'head.json'), 'utf8'));
    expect(head.public_key.public_key_pem).toContain('BEGIN PUBLIC KEY');
    const checked = await runParapet(['audit', 'verify', '--head', 'head.json'], env, cwd);
    expect(checked.stderr).toBe('');
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain(`exported head ${head.checkpoint.id} (seq ${head.checkpoint.seq}) still in the chain`);
    const missing = await runParapet(['audit', 'verify', '--head', 'nowhere.json'], env, cwd);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--head nowhere.json is not a readable JSON file');
  });

  it('verifies an evidence package offline, zip or folder, and exits 1 when an audit entry in it was altered', async () => {
    const created = await runParapet(['evidence', 'create'], env, cwd);
    expect(created.code).toBe(0);
    const id = created.stdout.trim().split(/\s+/)[0] ?? '';
    expect((await runParapet(['evidence', 'download', id, '-o', 'package.zip'], env, cwd)).code).toBe(0);
    writeFileSync(path.join(cwd, 'key.pem'), JSON.parse(readFileSync(path.join(cwd, 'head.json'), 'utf8')).public_key.public_key_pem);

    // Offline: no gateway URL or token in the environment.
    const offline = { PARAPET_PROFILE_FILE: path.join(cwd, 'none.json') };
    const good = await runParapet(['audit', 'verify', '--package', 'package.zip', '--public-key', 'key.pem', '--head', 'head.json'], offline, cwd);
    expect(good.stderr).toBe('');
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/evidence package verified offline: files match SHA256SUMS, \d+ audit entries \(seq \d+\.\.\d+\) chain, \d+ checkpoints signed/);

    const folder = path.join(cwd, 'extracted');
    mkdirSync(folder);
    for (const [name, bytes] of Object.entries(unzipSync(readFileSync(path.join(cwd, 'package.zip'))))) writeFileSync(path.join(folder, name), bytes);
    expect((await runParapet(['audit', 'verify', '--package', 'extracted'], offline, cwd)).code).toBe(0);
    const lines = readFileSync(path.join(folder, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean);
    const first = JSON.parse(lines[0] ?? '{}');
    lines[0] = JSON.stringify({ ...first, actor: 'someone else' });
    writeFileSync(path.join(folder, 'audit.jsonl'), `${lines.join('\n')}\n`);
    const tampered = await runParapet(['audit', 'verify', '--package', 'extracted'], offline, cwd);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain('audit.jsonl does not match its sha256 in SHA256SUMS');
    expect(tampered.stdout).toContain(`audit.jsonl: seq ${first.seq} (${first.id}) does not match its hash (altered)`);
  });
});
