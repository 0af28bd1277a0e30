import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redactedConfig } from '../config/load.js';
import { Sealer, SealedSecretError } from './sealed.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'parapet-sealed-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SECRET = 'a-secret-key-of-at-least-thirty-two-characters';

describe('sealed secrets', () => {
  it('round-trips a secret in the v1 format, with a fresh iv every time', () => {
    const sealer = new Sealer({ secretKey: SECRET, dataDir: tempDir() });
    const first = sealer.seal('ppt_sk_example é ✓');
    const second = sealer.seal('ppt_sk_example é ✓');
    expect(first).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('ppt_sk_example');
    expect(sealer.unseal(first)).toBe('ppt_sk_example é ✓');
    expect(new Sealer({ secretKey: SECRET, dataDir: tempDir() }).unseal(second)).toBe('ppt_sk_example é ✓');
  });

  it('refuses a value with any changed byte, another version, or another key', () => {
    const sealer = new Sealer({ secretKey: SECRET, dataDir: tempDir() });
    const sealed = sealer.seal('the secret');
    const parts = sealed.split('.');
    for (const index of [1, 2, 3]) {
      const bytes = Buffer.from(parts[index] as string, 'base64url');
      bytes[0] = (bytes[0] as number) ^ 0x01;
      const tampered = parts.map((part, at) => (at === index ? bytes.toString('base64url') : part)).join('.');
      expect(() => sealer.unseal(tampered)).toThrow(SealedSecretError);
    }
    expect(() => sealer.unseal(`v2${sealed.slice(2)}`)).toThrow(SealedSecretError);
    expect(() => sealer.unseal('not sealed at all')).toThrow(SealedSecretError);
    const other = new Sealer({ secretKey: `${SECRET}-other`, dataDir: tempDir() });
    expect(() => other.unseal(sealed)).toThrow(/another secret_key/);
  });

  it('creates a key file with mode 0600 on first use and reuses it', () => {
    const dataDir = path.join(tempDir(), 'nested', 'data');
    const sealer = new Sealer({ secretKey: null, dataDir });
    const sealed = sealer.seal('kept');
    const file = path.join(dataDir, 'secret-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const contents = readFileSync(file, 'utf8').trim();
    expect(Buffer.from(contents, 'base64url')).toHaveLength(32);
    expect(new Sealer({ secretKey: null, dataDir }).unseal(sealed)).toBe('kept');
    // The file's text works as secret_key, so a deployment can move to the setting.
    expect(new Sealer({ secretKey: contents, dataDir: tempDir() }).unseal(sealed)).toBe('kept');
  });

  it('creates no key file when secret_key is set', () => {
    const dataDir = tempDir();
    new Sealer({ secretKey: SECRET, dataDir }).seal('x');
    expect(() => statSync(path.join(dataDir, 'secret-key'))).toThrow();
  });
});

describe('the secret_key setting', () => {
  it('comes from PARAPET_SECRET_KEY, needs 32 characters, and is never shown', () => {
    const config = loadConfig({ env: { PARAPET_SECRET_KEY: SECRET }, cwd: tempDir() });
    expect(config.secret_key).toBe(SECRET);
    expect(JSON.stringify(redactedConfig(config))).not.toContain(SECRET);
    expect(loadConfig({ env: {}, cwd: tempDir() }).secret_key).toBeNull();
    expect(() => loadConfig({ env: { PARAPET_SECRET_KEY: 'too short' }, cwd: tempDir() })).toThrow(ConfigError);
  });
});
