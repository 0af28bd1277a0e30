// Hot path: no I/O per call. rails.catalog.valid_sql: SQL that does not parse, read with the
// optional `node-sql-parser` (the package SQL action analysis uses), tried as MySQL and then as
// PostgreSQL; a statement either accepts is valid. Without the package the validator is
// unavailable. The package is loaded once (warmUp, before the gateway listens; or the first check).
// Which text is SQL:
// - tool_args: string values under a key named like `sql`, `query`, `statement` that begin with a
//   statement keyword, and any string value that begins with one and ends with `;`;
// - output and tool_result: ```sql fenced blocks (prose such as "Update the table with…" is not
//   read as SQL).
// Parsing costs ~3-4 ms per KB, so a statement over MAX_STATEMENT_CHARS, or past the per-text
// budget (characters, or 200 ms of parsing), is not checked (neither passed nor failed). Deeply
// bracketed statements are read with the MySQL grammar only (bracketDepth says why).
import { createRequire } from 'node:module';
import type { Availability, Detection, DetectContext } from '../types.js';
import { MAX_DETECTIONS, type CatalogValidator } from './catalog.js';

interface SqlParserLike {
  astify(sql: string, options?: { database?: string }): unknown;
}

const DIALECTS = ['MySQL', 'PostgresQL'] as const;
export const MAX_STATEMENT_CHARS = 16 * 1024;
const BUDGET_CHARS = 64 * 1024;
/** String values looked at per tool call; nesting deeper than this is not walked. */
const MAX_VALUES = 256;
const MAX_DEPTH = 32;

const STATEMENT_START = /^\s*(?:select|insert|update|delete|with|create|drop|alter|truncate|merge|replace|grant|revoke|upsert)\b/i;
const SQL_KEY = /(?:^|[_-])(?:sql|query|statement|stmt)s?(?:$|[_-])|^(?:sql|query|statement)/i;
const SQL_FENCE = /```(?:sql|postgres(?:ql)?|mysql|sqlite)[ \t]*\r?\n/gi;
const FENCE_END = /\r?\n[ \t]*```/g;

let parser: SqlParserLike | null = null;
let state: Availability | null = null;

/** Loads node-sql-parser once; its availability after. */
function load(): Availability {
  if (state !== null) return state;
  try {
    // A variable specifier keeps tsc and bundlers from requiring the optional package.
    const specifier = 'node-sql-parser';
    const mod = createRequire(import.meta.url)(specifier) as { Parser?: new () => SqlParserLike };
    if (mod.Parser === undefined) throw new Error('no Parser export');
    parser = new mod.Parser();
    state = { available: true };
  } catch {
    state = { available: false, reason: 'needs the optional package node-sql-parser; not installed' };
  }
  return state;
}

/** Whether the package can be loaded, without loading it (a lookup on disk, once). */
let resolvable: boolean | null = null;
function installed(): Availability {
  if (state !== null) return state;
  if (resolvable === null) {
    try {
      createRequire(import.meta.url).resolve('node-sql-parser');
      resolvable = true;
    } catch {
      resolvable = false;
    }
  }
  return resolvable ? { available: true } : { available: false, reason: 'needs the optional package node-sql-parser; not installed' };
}

/** Replaces the parser (tests): null makes the validator unavailable. */
export function __setSqlParserForTests(next: SqlParserLike | null): void {
  parser = next;
  state = next === null ? { available: false, reason: 'needs the optional package node-sql-parser; not installed' } : { available: true };
}

/**
 * How deep brackets nest outside quotes and comments. node-sql-parser's PostgreSQL grammar takes
 * time exponential in the nesting of an invalid statement (`SELECT ((((((((((;` ~1.3 s, twenty
 * brackets ~19 s, measured with 5.4), while its MySQL grammar stays in milliseconds.
 */
export function bracketDepth(statement: string): number {
  let depth = 0;
  let max = 0;
  let quote = '';
  for (let i = 0; i < statement.length; i += 1) {
    const c = statement[i]!;
    if (quote !== '') {
      if (c === quote) quote = '';
      else if (c === '\\') i += 1;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(') max = Math.max(max, ++depth);
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === '-' && statement[i + 1] === '-') {
      const end = statement.indexOf('\n', i);
      i = end < 0 ? statement.length : end;
    } else if (c === '/' && statement[i + 1] === '*') {
      const end = statement.indexOf('*/', i + 2);
      i = end < 0 ? statement.length : end + 1;
    }
  }
  return max;
}

/** Deeper than this, only the MySQL grammar is tried (see bracketDepth). */
export const POSTGRES_MAX_DEPTH = 4;
/** Milliseconds of parsing per text; statements past it are not checked. */
const PARSE_BUDGET_MS = 200;

/** Why the statement parses in none of the dialects tried (and which were tried), or null. */
function parseError(sql: string): { message: string; tried: readonly string[] } | null {
  if (parser === null) return null;
  let first: string | null = null;
  const dialects = bracketDepth(sql) > POSTGRES_MAX_DEPTH ? DIALECTS.slice(0, 1) : DIALECTS;
  for (const database of dialects) {
    try {
      parser.astify(sql, { database });
      return null;
    } catch (error) {
      first ??= error instanceof Error ? error.message : 'does not parse';
    }
  }
  return { message: first ?? 'does not parse', tried: dialects.map((d) => (d === 'PostgresQL' ? 'PostgreSQL' : d)) };
}

interface Candidate {
  sql: string;
  start: number;
  end: number;
  what: string;
}

function fenced(text: string): Candidate[] {
  const found: Candidate[] = [];
  SQL_FENCE.lastIndex = 0;
  for (let open = SQL_FENCE.exec(text); open !== null && found.length < MAX_DETECTIONS; open = SQL_FENCE.exec(text)) {
    const start = open.index + open[0].length;
    FENCE_END.lastIndex = start;
    const close = FENCE_END.exec(text);
    const end = close === null ? text.length : close.index;
    if (text.slice(start, end).trim() !== '') found.push({ sql: text.slice(start, end), start, end, what: 'a ```sql block' });
    if (close === null) break;
    SQL_FENCE.lastIndex = close.index + close[0].length;
  }
  return found;
}

function fromArguments(text: string): Candidate[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return []; // valid_json reports arguments that are not JSON
  }
  const found: Candidate[] = [];
  let seen = 0;
  const walk = (node: unknown, key: string, depth: number): void => {
    if (seen >= MAX_VALUES || depth > MAX_DEPTH) return;
    if (typeof node === 'string') {
      seen += 1;
      if (!STATEMENT_START.test(node)) return;
      if (!SQL_KEY.test(key) && !node.trimEnd().endsWith(';')) return;
      // Point at the value where it stands in the text when it is written there as JSON would.
      const encoded = JSON.stringify(node);
      const at = text.indexOf(encoded);
      const [start, end] = at < 0 ? [0, text.length] : [at + 1, at + encoded.length - 1];
      found.push({ sql: node, start, end, what: key === '' ? 'an SQL argument' : `argument "${key.slice(0, 64)}"` });
    } else if (Array.isArray(node)) {
      for (const item of node) walk(item, key, depth + 1);
    } else if (node !== null && typeof node === 'object') {
      for (const [name, item] of Object.entries(node)) walk(item, name, depth + 1);
    }
  };
  walk(value, '', 0);
  return found;
}

export function checkSql(text: string, context: DetectContext): Detection[] {
  if (load().available !== true) throw new Error('rails.catalog.valid_sql: not available (node-sql-parser is not installed)');
  const candidates = context.surface === 'tool_args' ? fromArguments(text) : fenced(text);
  const found: Detection[] = [];
  let budget = BUDGET_CHARS;
  const stopAt = Math.min(performance.now() + PARSE_BUDGET_MS, context.deadline === undefined ? Infinity : performance.now() + (context.deadline - Date.now()));
  for (const candidate of candidates) {
    if (found.length >= MAX_DETECTIONS || performance.now() > stopAt) break;
    if (candidate.sql.length > MAX_STATEMENT_CHARS || candidate.sql.length > budget) continue;
    budget -= candidate.sql.length;
    const error = parseError(candidate.sql);
    if (error === null) continue;
    const tried = error.tried.join(', ');
    found.push({
      entity: 'SCHEMA.SQL_INVALID',
      score: 0.9,
      start: candidate.start,
      end: candidate.end,
      pattern: candidate.what,
      validator: `node-sql-parser (${tried}): failed`,
      explanation: `${candidate.what} is not valid SQL (${tried}): ${error.message.slice(0, 120)}`,
    });
  }
  return found;
}

export const validSql: CatalogValidator = {
  name: 'valid_sql',
  entity: 'SCHEMA.SQL_INVALID',
  surfaces: ['output', 'tool_args', 'tool_result'],
  costRank: 40,
  wholeText: true,
  available: () => installed(),
  warmUp: () => {
    load();
  },
  check: (text, context) => checkSql(text, context),
};
