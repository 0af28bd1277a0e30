// Loads the configuration: defaults < parapet.yaml (or PARAPET_CONFIG) < PARAPET_* environment.
// A bad value throws ConfigError whose message is one line naming the key and what is allowed.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import Value from 'typebox/value';
import { ConfigSchema, DECISION_KEYS, SECRET_KEYS, type Config, type ConfigKey } from './schema.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Environment variables named by CONTRACT.md that do not follow the PARAPET_<KEY> rule. */
const CONTRACT_ALIASES: Record<string, ConfigKey> = {
  PORT: 'port',
  HOST: 'host',
  DATABASE_URL: 'database_url',
};

const KEYS = Object.keys(ConfigSchema.properties) as ConfigKey[];

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Values that win over everything else; tests use them. */
  overrides?: Partial<Config>;
}

export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const merged: Record<string, unknown> = {};

  Object.assign(merged, readConfigFile(env, cwd));
  Object.assign(merged, readEnvironment(env));
  Object.assign(merged, options.overrides ?? {});

  const unknownKey = Object.keys(merged).find((key) => !KEYS.includes(key as ConfigKey));
  if (unknownKey !== undefined) {
    throw new ConfigError(`config: unknown setting "${unknownKey}"; known settings: ${KEYS.join(', ')}`);
  }

  const candidate = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, merged)) as Record<string, unknown>;
  for (const error of Value.Errors(ConfigSchema, candidate)) {
    const key = error.instancePath.split('/')[1] ?? error.instancePath;
    const schema = ConfigSchema.properties[key as ConfigKey] as { description?: string } | undefined;
    const got = JSON.stringify(merged[key]);
    throw new ConfigError(`config: ${key} is invalid (got ${got}); allowed: ${schema?.description ?? error.message}`);
  }
  const config = candidate as Config;
  config.data_dir = path.resolve(cwd, config.data_dir);
  return config;
}

function readConfigFile(env: NodeJS.ProcessEnv, cwd: string): Record<string, unknown> {
  const explicit = env.PARAPET_CONFIG;
  const file = path.resolve(cwd, explicit ?? 'parapet.yaml');
  if (!existsSync(file)) {
    if (explicit !== undefined) throw new ConfigError(`config: PARAPET_CONFIG names ${file}, which does not exist`);
    return {};
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    const firstLine = String((error as Error).message).split('\n')[0];
    throw new ConfigError(`config: ${file} is not valid YAML: ${firstLine}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`config: ${file} must hold a mapping of settings`);
  }
  return parsed as Record<string, unknown>;
}

function readEnvironment(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, key] of Object.entries(CONTRACT_ALIASES)) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') values[key] = coerce(key, raw);
  }
  for (const key of KEYS) {
    const raw = env[`PARAPET_${key.toUpperCase()}`];
    if (raw !== undefined && raw !== '') values[key] = coerce(key, raw);
  }
  return values;
}

/** Environment values are text; lists arrive as JSON (`'["pii.native"]'`) or comma-separated. */
function coerce(key: ConfigKey, raw: string): unknown {
  const schema = ConfigSchema.properties[key] as { type?: string };
  const trimmed = raw.trim();
  // Objects (model_prices) arrive as JSON only.
  if (schema.type === 'object') {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      throw new ConfigError(`config: ${key} is invalid (got ${JSON.stringify(raw)}); allowed: a JSON object`);
    }
  }
  if (schema.type !== 'array') return raw;
  if (trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      throw new ConfigError(`config: ${key} is invalid (got ${JSON.stringify(raw)}); allowed: a JSON list`);
    }
  }
  return trimmed.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** The configuration with secrets removed, for hashing and display. */
export function redactedConfig(config: Config): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...config };
  for (const key of SECRET_KEYS) if (copy[key] !== null) copy[key] = '[redacted]';
  if (typeof copy.database_url === 'string') copy.database_url = copy.database_url.replace(/:[^:@/]*@/, ':[redacted]@');
  return copy;
}

/** A short, stable hash of the settings that take part in decisions (spec 01 §9). */
export function configHash(config: Config): string {
  const decisive = Object.fromEntries(DECISION_KEYS.map((key) => [key, config[key]]));
  return createHash('sha256').update(JSON.stringify(decisive)).digest('hex').slice(0, 16);
}
