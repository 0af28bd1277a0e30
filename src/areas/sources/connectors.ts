// Connections to a source's real content: the checked config of a connection, and one validation
// run against it. Databases are opened read-only with a 5 s statement timeout and asked only
// `count(*)` and `max(freshness_column)` on the configured table (identifiers quoted from a
// checked pattern, never interpolated raw); an API is read with one GET (5 s, 1 MiB, redirects
// followed only on the same origin). A failure is an answer (ok false with the reason), never a throw.
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { request } from 'undici';
import { problem, type FieldError } from '../../infra/http/problems.js';
import type { ConnectionConfig, ConnectionKind, DatabaseDialect, ValidationSaw } from './schemas.js';

export const TIMEOUT_MS = 5000;
export const API_BODY_CAP_BYTES = 1024 * 1024;
const MAX_SAME_ORIGIN_REDIRECTS = 3;
const DEFAULT_PORTS: Record<Exclude<DatabaseDialect, 'sqlite'>, number> = { postgres: 5432, mysql: 3306, mariadb: 3306 };
const DATABASE_FIELDS = ['host', 'port', 'database', 'username'] as const;
const TABLE_FIELDS = ['check_table', 'freshness_column'] as const;
const API_FIELDS = ['base_url', 'auth_header', 'auth_prefix'] as const;

/** A stored connection config: the body's config checked for its kind, defaults filled in. */
export type StoredConfig = Record<string, string | number>;

/**
 * The config as stored, or a 400 naming every field that does not fit the kind.
 * @example normaliseConfig('api', { base_url: 'https://kb.example.com' }) // { base_url, auth_header: 'Authorization', auth_prefix: 'Bearer ' }
 */
export function normaliseConfig(kind: ConnectionKind, config: ConnectionConfig): StoredConfig {
  const errors: FieldError[] = [];
  const field = (name: string) => `/body/config/${name}`;
  const refuse = (names: readonly string[], why: string) => {
    for (const name of names) if (config[name as keyof ConnectionConfig] !== undefined) errors.push({ field: field(name), message: why });
  };
  const stored: StoredConfig = {};
  if (kind === 'database') {
    refuse(API_FIELDS, 'only for kind api');
    const dialect = config.dialect;
    if (dialect === undefined) errors.push({ field: field('dialect'), message: 'required for kind database' });
    else if (dialect === 'sqlite') {
      stored.dialect = dialect;
      refuse(DATABASE_FIELDS, 'not for dialect sqlite (give path)');
      if (config.path === undefined) errors.push({ field: field('path'), message: 'required for dialect sqlite: the database file' });
      else if (!path.isAbsolute(config.path)) errors.push({ field: field('path'), message: 'must be an absolute path' });
      else stored.path = config.path;
    } else {
      stored.dialect = dialect;
      refuse(['path'], 'only for dialect sqlite or kind api');
      for (const name of ['host', 'database', 'username'] as const) {
        const value = config[name];
        if (value === undefined) errors.push({ field: field(name), message: `required for dialect ${dialect}` });
        else stored[name] = value;
      }
      stored.port = config.port ?? DEFAULT_PORTS[dialect];
    }
    if (config.check_table !== undefined) stored.check_table = config.check_table;
    if (config.freshness_column !== undefined) {
      if (config.check_table === undefined) errors.push({ field: field('freshness_column'), message: 'needs check_table' });
      stored.freshness_column = config.freshness_column;
    }
  } else {
    refuse(['dialect', ...DATABASE_FIELDS, ...TABLE_FIELDS], 'only for kind database');
    if (config.base_url === undefined) errors.push({ field: field('base_url'), message: 'required for kind api' });
    else {
      const url = URL.canParse(config.base_url) ? new URL(config.base_url) : undefined;
      if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        errors.push({ field: field('base_url'), message: 'must be an http or https URL' });
      } else if (url.username !== '' || url.password !== '') {
        // The secret belongs in credential, which is sealed; config is answered back.
        errors.push({ field: field('base_url'), message: 'must not carry user:password; give the secret as credential' });
      } else stored.base_url = config.base_url;
    }
    if (config.path !== undefined) {
      if (!config.path.startsWith('/')) errors.push({ field: field('path'), message: 'must start with /' });
      else stored.path = config.path;
    }
    stored.auth_header = config.auth_header ?? 'Authorization';
    stored.auth_prefix = config.auth_prefix ?? 'Bearer ';
  }
  if (errors.length > 0) throw problem('invalid-request', `config does not fit kind ${kind}: ${errors.map((error) => `${error.field.slice('/body/config/'.length)} ${error.message}`).join('; ')}`, errors);
  return stored;
}

export interface ProbeResult {
  ok: boolean;
  saw: ValidationSaw;
  /** Set when the source could not be reached or read (recorded as the connection's last_error). */
  connectionError: string | null;
}

/** Validates one connection against its real content. Never throws. */
export async function probeSource(kind: ConnectionKind, config: StoredConfig, credential: string | null): Promise<ProbeResult> {
  const started = Date.now();
  const scrub = (text: string) => (credential !== null && credential !== '' ? text.replaceAll(credential, '[credential]') : text);
  try {
    const partial = kind === 'database' ? await probeDatabase(config, credential) : await probeApi(config, credential);
    const saw: ValidationSaw = { ...partial.saw, kind, duration_ms: Date.now() - started, reason: partial.reason === null ? null : scrub(partial.reason) };
    return { ok: partial.reason === null, saw, connectionError: partial.connected ? null : saw.reason };
  } catch (error) {
    const reason = scrub(messageOf(error));
    const saw: ValidationSaw = { kind, connected: false, duration_ms: Date.now() - started, reason };
    if (kind === 'database') saw.dialect = config.dialect as DatabaseDialect;
    return { ok: false, saw, connectionError: reason };
  }
}

interface ProbePart {
  saw: Omit<ValidationSaw, 'kind' | 'duration_ms' | 'reason'>;
  connected: boolean;
  /** null: ok. */
  reason: string | null;
}

interface TableFacts {
  count: unknown;
  freshest: unknown;
}

async function probeDatabase(config: StoredConfig, credential: string | null): Promise<ProbePart> {
  const dialect = config.dialect as DatabaseDialect;
  const table = typeof config.check_table === 'string' ? config.check_table : undefined;
  const column = typeof config.freshness_column === 'string' ? config.freshness_column : undefined;
  let facts: TableFacts | undefined;
  try {
    if (dialect === 'postgres') facts = await readPostgres(config, credential, table, column);
    else if (dialect === 'sqlite') facts = readSqlite(String(config.path), table, column);
    else facts = await readMysql(dialect, config, credential, table, column);
  } catch (error) {
    return { saw: { dialect, connected: false }, connected: false, reason: `${dialect}: ${messageOf(error)}` };
  }
  const saw: ProbePart['saw'] = { dialect, connected: true };
  if (facts === undefined) return { saw, connected: true, reason: null };
  saw.row_count = Number(facts.count);
  if (column !== undefined) saw.freshest = toIso(facts.freshest);
  if (saw.row_count === 0) return { saw, connected: true, reason: `${table} has no rows` };
  if (column !== undefined && saw.freshest === null) return { saw, connected: true, reason: `${table}.${column} holds no readable timestamp` };
  return { saw, connected: true, reason: null };
}

/** Each part of a (schema-)qualified name quoted; the parts come from a checked pattern without quotes. */
function quoted(name: string, quote: '"' | '`'): string {
  return name
    .split('.')
    .map((part) => `${quote}${part}${quote}`)
    .join('.');
}

function tableQuery(table: string, column: string | undefined, quote: '"' | '`'): string {
  const freshest = column === undefined ? 'null' : `max(${quote}${column}${quote})`;
  return `select count(*) as n, ${freshest} as freshest from ${quoted(table, quote)}`;
}

async function readPostgres(config: StoredConfig, credential: string | null, table: string | undefined, column: string | undefined): Promise<TableFacts | undefined> {
  const client = new pg.Client({
    host: String(config.host),
    port: Number(config.port),
    database: String(config.database),
    user: String(config.username),
    ...(credential === null ? {} : { password: credential }),
    connectionTimeoutMillis: TIMEOUT_MS,
    statement_timeout: TIMEOUT_MS,
    query_timeout: TIMEOUT_MS + 1000,
    // Every transaction of this session is read-only, whatever the user may do.
    options: '-c default_transaction_read_only=on',
    application_name: 'parapet-source-validate',
  });
  // A dropped connection emits 'error' on the client; the awaited call reports it instead.
  client.on('error', () => undefined);
  await client.connect();
  try {
    if (table === undefined) {
      await client.query('select 1');
      return undefined;
    }
    const result = await client.query(tableQuery(table, column, '"'));
    const row = result.rows[0] as { n: unknown; freshest: unknown } | undefined;
    return { count: row?.n ?? 0, freshest: row?.freshest ?? null };
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function readMysql(
  dialect: 'mysql' | 'mariadb',
  config: StoredConfig,
  credential: string | null,
  table: string | undefined,
  column: string | undefined,
): Promise<TableFacts | undefined> {
  const connection = await mysql.createConnection({
    host: String(config.host),
    port: Number(config.port),
    database: String(config.database),
    user: String(config.username),
    ...(credential === null ? {} : { password: credential }),
    connectTimeout: TIMEOUT_MS,
    // DATETIME values read as UTC, as the registry stores times.
    timezone: 'Z',
    supportBigNumbers: true,
    multipleStatements: false,
  });
  connection.on('error', () => undefined);
  try {
    await connection.query({ sql: 'SET SESSION TRANSACTION READ ONLY', timeout: TIMEOUT_MS });
    // The server-side limit has a different name on each; the client-side timeout below holds either way.
    const limit = dialect === 'mysql' ? `SET SESSION max_execution_time = ${TIMEOUT_MS}` : `SET SESSION max_statement_time = ${TIMEOUT_MS / 1000}`;
    await connection.query({ sql: limit, timeout: TIMEOUT_MS }).catch(() => undefined);
    if (table === undefined) {
      await connection.query({ sql: 'select 1', timeout: TIMEOUT_MS });
      return undefined;
    }
    const [rows] = await connection.query({ sql: tableQuery(table, column, '`'), timeout: TIMEOUT_MS });
    const row = (rows as Array<{ n: unknown; freshest: unknown }>)[0];
    return { count: row?.n ?? 0, freshest: row?.freshest ?? null };
  } finally {
    connection.destroy();
  }
}

/** SQLite runs in-process: read-only, and the file must already exist (nothing is created). */
function readSqlite(file: string, table: string | undefined, column: string | undefined): TableFacts | undefined {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true, timeout: TIMEOUT_MS });
  try {
    if (table === undefined) {
      db.prepare('select 1').get();
      return undefined;
    }
    const row = db.prepare(tableQuery(table, column, '"')).get() as { n: unknown; freshest: unknown } | undefined;
    return { count: row?.n ?? 0, freshest: row?.freshest ?? null };
  } finally {
    db.close();
  }
}

async function probeApi(config: StoredConfig, credential: string | null): Promise<ProbePart> {
  const base = String(config.base_url).replace(/\/+$/, '');
  let url = new URL(base + (typeof config.path === 'string' ? config.path : ''));
  const origin = url.origin;
  const headers: Record<string, string> = { accept: '*/*', 'user-agent': 'parapet-source-validate' };
  if (credential !== null) headers[String(config.auth_header).toLowerCase()] = `${String(config.auth_prefix)}${credential}`;
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  try {
    for (let hop = 0; ; hop += 1) {
      const response = await request(url, { method: 'GET', headers, signal });
      const status = response.statusCode;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && typeof location === 'string') {
        discard(response.body);
        const next = URL.canParse(location, url.href) ? new URL(location, url) : undefined;
        if (next === undefined || next.origin !== origin) {
          return { saw: { connected: true, status }, connected: false, reason: `HTTP ${status} redirects to another host (${next?.host ?? 'an unreadable location'}); not followed` };
        }
        if (hop >= MAX_SAME_ORIGIN_REDIRECTS) return { saw: { connected: true, status }, connected: false, reason: `more than ${MAX_SAME_ORIGIN_REDIRECTS} redirects` };
        url = next;
        continue;
      }
      const contentType = response.headers['content-type'];
      let bytes = 0;
      let truncated = false;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes >= API_BODY_CAP_BYTES) {
          truncated = bytes > API_BODY_CAP_BYTES;
          bytes = Math.min(bytes, API_BODY_CAP_BYTES);
          discard(response.body);
          break;
        }
      }
      const saw: ProbePart['saw'] = { connected: true, status, content_type: typeof contentType === 'string' ? contentType : null, bytes, truncated };
      if (status < 200 || status >= 300) return { saw, connected: false, reason: `the API answered HTTP ${status}` };
      if (bytes === 0) return { saw, connected: true, reason: 'the API answered an empty body' };
      return { saw, connected: true, reason: null };
    }
  } catch (error) {
    if (signal.aborted) return { saw: { connected: false }, connected: false, reason: `no answer within ${TIMEOUT_MS} ms` };
    return { saw: { connected: false }, connected: false, reason: `the request failed: ${messageOf(error)}` };
  }
}

/** Stops reading a body; undici reports the stop as an error event, which is expected here. */
function discard(body: { on(event: 'error', listener: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** A timestamp a database answered, as ISO 8601; text without a zone is read as UTC; numbers as epoch seconds (or ms). */
export function toIso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  let date: Date | undefined;
  if (value instanceof Date) date = value;
  else if (typeof value === 'number' || typeof value === 'bigint') {
    const number = Number(value);
    date = new Date(Math.abs(number) > 1e11 ? number : number * 1000);
  } else if (typeof value === 'string') {
    const text = value.trim();
    if (/^\d{4}-\d{2}-\d{2}$/.test(text)) date = new Date(`${text}T00:00:00Z`);
    else if (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) date = new Date(`${text.replace(' ', 'T')}Z`);
    else if (/^-?\d+(\.\d+)?$/.test(text)) return toIso(Number(text));
    else date = new Date(text);
  }
  return date === undefined || Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const text = message === '' && typeof code === 'string' ? code : message;
  return text.slice(0, 500);
}
