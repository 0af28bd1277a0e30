import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, configHash, loadConfig, redactedConfig } from './load.js';
import { DEFAULT_DETECTORS } from './schema.js';

const emptyDir = () => mkdtempSync(path.join(tmpdir(), 'parapet-config-'));

function withFile(contents: string): string {
  const dir = emptyDir();
  writeFileSync(path.join(dir, 'parapet.yaml'), contents);
  return dir;
}

function failure(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the specification defaults', () => {
    const config = loadConfig({ env: {}, cwd: emptyDir() });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      database_url: null,
      body_limit_bytes: 1_048_576,
      enforcement_budget_ms: 300,
      detector_timeout_ms: 40,
      request_budget_ms: 350,
      detector_timeout_per_kb_ms: 1,
      enforcement_budget_per_kb_ms: 1,
      detection_ceiling_ms: 2000,
      detection_max_chars: 2_000_000,
      fail_mode: 'open',
      allow_egress: false,
      upstream_openai_base_url: 'https://api.openai.com/v1',
      upstream_anthropic_base_url: 'https://api.anthropic.com',
    });
    expect(config.enabled_detectors).toEqual([...DEFAULT_DETECTORS]);
    expect(path.isAbsolute(config.data_dir)).toBe(true);
  });

  it('reads parapet.yaml and lets PARAPET_* variables win over it', () => {
    const cwd = withFile('fail_mode: closed\nenforcement_budget_ms: 250\njudgment_tiers: [local]\n');
    const fromFile = loadConfig({ env: {}, cwd });
    expect(fromFile).toMatchObject({ fail_mode: 'closed', enforcement_budget_ms: 250, judgment_tiers: ['local'] });
    const fromEnv = loadConfig({ env: { PARAPET_ENFORCEMENT_BUDGET_MS: '120' }, cwd });
    expect(fromEnv.enforcement_budget_ms).toBe(120);
    expect(fromEnv.fail_mode).toBe('closed');
    const scaling = loadConfig({ env: { PARAPET_DETECTOR_TIMEOUT_PER_KB_MS: '0.5', PARAPET_DETECTION_MAX_CHARS: '1000000' }, cwd });
    expect(scaling).toMatchObject({ detector_timeout_per_kb_ms: 0.5, detection_max_chars: 1_000_000 });
  });

  it('reads lists from the environment as JSON or comma-separated text', () => {
    const json = loadConfig({ env: { PARAPET_ENABLED_DETECTORS: '["pii.native"]' }, cwd: emptyDir() });
    expect(json.enabled_detectors).toEqual(['pii.native']);
    const commas = loadConfig({ env: { PARAPET_ENABLED_DETECTORS: 'pii.native, secrets.native' }, cwd: emptyDir() });
    expect(commas.enabled_detectors).toEqual(['pii.native', 'secrets.native']);
  });

  it('reads model_prices from the environment as a JSON object, and refuses a bad price in one line', () => {
    const env = { PARAPET_MODEL_PRICES: '{"my-model": {"input_per_mtok": 1.5, "output_per_mtok": 6}}' };
    expect(loadConfig({ env, cwd: emptyDir() }).model_prices).toEqual({ 'my-model': { input_per_mtok: 1.5, output_per_mtok: 6 } });
    expect(loadConfig({ env: {}, cwd: emptyDir() }).model_prices['gpt-4o']).toEqual({ input_per_mtok: 2.5, output_per_mtok: 10 });
    expect(failure(() => loadConfig({ env: { PARAPET_MODEL_PRICES: '{not json' }, cwd: emptyDir() }))).toMatch(/^config: model_prices is invalid .*a JSON object$/);
    const negative = failure(() => loadConfig({ env: { PARAPET_MODEL_PRICES: '{"m": {"input_per_mtok": -1, "output_per_mtok": 1}}' }, cwd: emptyDir() }));
    expect(negative).toMatch(/^config: model_prices is invalid/);
    expect(negative.split('\n')).toHaveLength(1);
  });

  it('honours the contract variables PORT, HOST, DATABASE_URL, PARAPET_DATA_DIR and PARAPET_CONFIG', () => {
    const dir = emptyDir();
    writeFileSync(path.join(dir, 'other.yaml'), 'allow_egress: true\n');
    const config = loadConfig({
      env: {
        PORT: '9000',
        HOST: '0.0.0.0',
        DATABASE_URL: 'postgres://u:secret@db/x',
        PARAPET_DATA_DIR: 'state',
        PARAPET_CONFIG: 'other.yaml',
        PARAPET_ALLOW_EGRESS: 'false',
      },
      cwd: dir,
    });
    expect(config).toMatchObject({ port: 9000, host: '0.0.0.0', database_url: 'postgres://u:secret@db/x', allow_egress: false });
    expect(config.data_dir).toBe(path.join(dir, 'state'));
    expect(redactedConfig(config).database_url).toBe('postgres://u:[redacted]@db/x');
  });

  it.each([
    [{ PARAPET_FAIL_MODE: 'sideways' }, 'fail_mode', 'open or closed'],
    [{ PORT: 'eighty' }, 'port', 'an integer from 0 to 65535'],
    [{ PARAPET_DETECTOR_TIMEOUT_MS: '0' }, 'detector_timeout_ms', 'milliseconds'],
    [{ PARAPET_ENABLED_DETECTORS: '["unterminated' }, 'enabled_detectors', 'a JSON list'],
    [{ DATABASE_URL: 'mysql://x' }, 'database_url', 'postgres://'],
    [{ PARAPET_ALLOW_EGRESS: 'perhaps' }, 'allow_egress', 'true or false'],
  ])('stops on a bad value with one line naming the key and what is allowed (%j)', (env, key, allowed) => {
    const message = failure(() => loadConfig({ env, cwd: emptyDir() }));
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toContain(key);
    expect(message).toContain(allowed);
  });

  it('refuses unknown settings in the file and unreadable YAML', () => {
    expect(failure(() => loadConfig({ env: {}, cwd: withFile('enforcment_budget_ms: 5\n') }))).toContain('enforcment_budget_ms');
    expect(failure(() => loadConfig({ env: {}, cwd: withFile('fail_mode: [open\n') }))).toContain('not valid YAML');
    expect(failure(() => loadConfig({ env: { PARAPET_CONFIG: 'missing.yaml' }, cwd: emptyDir() }))).toContain('does not exist');
  });

  it('hashes only the settings that change decisions', () => {
    const config = loadConfig({ env: {}, cwd: emptyDir() });
    expect(configHash({ ...config, port: 1 })).toBe(configHash(config));
    expect(configHash({ ...config, upstream_openai_api_key: 'sk-other' })).toBe(configHash(config));
    expect(configHash({ ...config, enabled_detectors: ['pii.native'] })).not.toBe(configHash(config));
  });
});
