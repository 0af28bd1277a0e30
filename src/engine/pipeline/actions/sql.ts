// SQL arguments: what each statement does and how many rows it can reach. The parser
// (node-sql-parser) is an optional dependency loaded once by loadSqlParser(); without it, or when a
// statement does not parse, the argument fails closed (destructive, total), because a statement we
// cannot read may be the one that drops the database. No I/O here besides that one dynamic import.
import { LRUCache } from 'lru-cache';
import type { ActionFinding, BlastRadius, Sink } from './types.js';

/** The part of node-sql-parser's Parser we use; declared here so the code compiles without it. */
export interface SqlParserLike {
  astify(sql: string, options?: { database?: string }): unknown;
}

/**
 * Dialects tried in order: MySQL is the parser's default; PostgreSQL reads what MySQL refuses
 * (`RETURNING`, `::` casts). "PostgresQL" is how the package spells it.
 */
const DIALECTS = ['MySQL', 'PostgresQL'] as const;
/** Above this size only the first dialect is tried: parsing costs ~3 ms per KB. */
const RETRY_LIMIT_CHARS = 8192;

/**
 * Whether the parentheses outside literals and comments balance. The PostgreSQL grammar backtracks
 * exponentially over unclosed parentheses (`SELECT ((((((((((((;` takes seconds), and SQL whose
 * parentheses do not balance cannot parse in any dialect, so such text gets no second attempt and
 * fails closed. A miscount only skips the retry: the statement then fails closed, never open.
 */
export function parenthesesBalance(text: string): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === "'" || char === '"' || char === '`') {
      const end = text.indexOf(char, index + 1);
      if (end < 0) return false;
      index = end;
    } else if (char === '-' && text[index + 1] === '-') {
      const end = text.indexOf('\n', index);
      if (end < 0) break;
      index = end;
    } else if (char === '/' && text[index + 1] === '*') {
      const end = text.indexOf('*/', index + 2);
      if (end < 0) return false;
      index = end + 1;
    } else if (char === '(') depth += 1;
    else if (char === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

let parser: SqlParserLike | null = null;
let loading: Promise<boolean> | null = null;

/** A finding before it is tied to an argument: what the cache keeps. */
type Verdict = Omit<ActionFinding, 'argument'>;

// Agents repeat the same statements; parsing costs ~0.2 ms even for a short one. Verdicts of short
// texts are kept (null: did not parse); the parser is deterministic, so a hit is the same answer.
// Least recently used goes first: with more statements than entries a miss costs a parse, and an
// LRU misses less than clearing all at the limit (bench/caches.ts: 40 µs against 58 µs a call).
const CACHE_TEXT_CHARS = 4096;
const CACHE_ENTRIES = 512;
/** Wrapped: lru-cache holds no null, and null is the verdict of a text that did not parse. */
const verdicts = new LRUCache<string, { found: Verdict[] | null }>({ max: CACHE_ENTRIES });

// Agents also send the same statement with other values (`… WHERE id = 41`, `… WHERE id = 42`).
// The verdict depends on where literals stand, not on their values, except where literals are
// compared with each other or stand alone as a condition (`1 = 1`, `WHERE 0`): texts whose shape
// has such a place are not cached by shape. Literals keep their type in the shape (a string stays
// a string, a number a number), so key and LIMIT checks read the same.
const STRING_LITERAL = /'(?:[^'\\]|\\.|'')*'/g;
const NUMBER_LITERAL = /\b\d+(?:\.\d+)?\b/g;
const LITERAL = String.raw`(?:0|'\?'|true|false|null)(?![\w'])`;
const VALUE_DEPENDENT = new RegExp(
  String.raw`\b(?:where|and|or|not|having|on|when)\s*(?:\(\s*)*${LITERAL}|${LITERAL}\s*(?:=|<>|!=|<=|>=|<|>|\bis\b|\blike\b|\bin\b)\s*(?:\(\s*)?${LITERAL}`,
  'i',
);
const shapes = new LRUCache<string, { found: Verdict[] | null }>({ max: CACHE_ENTRIES });
/** An escaped quote can leave a string open to the end; bounding the text bounds that rescan. */
const SHAPE_TEXT_CHARS = 1024;

/** The statement with every literal value replaced, or null when its verdict may depend on values. */
export function sqlShape(text: string): string | null {
  const shape = text.replace(STRING_LITERAL, "'?'").replace(NUMBER_LITERAL, '0');
  return VALUE_DEPENDENT.test(shape) ? null : shape;
}

/** Loads node-sql-parser if it is installed; true when SQL can be analysed. Safe to call repeatedly. */
export async function loadSqlParser(): Promise<boolean> {
  if (parser) return true;
  loading ??= (async () => {
    try {
      // A variable specifier keeps bundlers and tsc from requiring the optional package.
      const specifier = 'node-sql-parser';
      const mod = (await import(specifier)) as {
        Parser?: new () => SqlParserLike;
        default?: { Parser?: new () => SqlParserLike };
      };
      // The package is CommonJS: under ESM its exports arrive on `default`.
      const Parser = mod.Parser ?? mod.default?.Parser;
      if (!Parser) return false;
      parser = new Parser();
      return true;
    } catch {
      return false;
    } finally {
      loading = null;
    }
  })();
  return loading;
}

export function sqlParserAvailable(): boolean {
  return parser !== null;
}

/**
 * Test hook: replaces the loaded parser (null simulates the package being absent) and returns the
 * previous one so the test can put it back.
 */
export function __setSqlParserForTests(next: SqlParserLike | null): SqlParserLike | null {
  const previous = parser;
  parser = next;
  verdicts.clear();
  return previous;
}

// Recognising SQL in free text. Every pattern runs sticky on a head of at most 512 characters, and
// none nests quantifiers, so adversarial input costs at most one linear pass over the head.
const HEAD_CHARS = 512;
const LEADING_SPACE = /\s*/y;
const SQL_START = new RegExp(
  [
    'select\\s+(?:\\*|\\d|\'|"|`|@|\\(|distinct\\b|count\\s*\\()',
    'insert\\s+(?:ignore\\s+)?into\\b',
    'update\\s+\\S+\\s+set\\b',
    'delete\\s+from\\b',
    'drop\\s+(?:table|database|schema|view|index|user|role|function|procedure|trigger|sequence)\\b',
    'truncate\\s+(?:table\\s+)?[\\w`"]',
    'alter\\s+(?:table|user|role|database|schema|view|index|sequence|system)\\b',
    'create\\s+(?:or\\s+replace\\s+)?(?:temporary\\s+)?(?:table|user|role|database|schema|view|index|function|procedure|trigger|sequence|unique)\\b',
    '(?:grant|revoke)\\s+\\w',
    'with\\s+(?:recursive\\s+)?\\w+\\s+as\\s*\\(',
    '(?:replace|merge)\\s+into\\b',
  ].join('|'),
  'iy',
);
const SELECT_FROM = /^\s*select\s/i;
/** FROM and a table name; "select the best from the list" is English, not a query. */
const FROM_WORD = /\bfrom\s+(?!(?:the|a|an|my|your|our|their|this|that|these|those|here|there)\b)[\w.`"[]/i;

/** Cheap test: does the text start like an SQL statement? */
export function startsLikeSql(text: string): boolean {
  const first = text.charCodeAt(0) | 0x20;
  // Fast exit on the first letter: s, i, u, d, t, a, c, g, r, w, m, or leading whitespace.
  if (text.length === 0) return false;
  if (!(first <= 0x20 + 0x20 || 'siudtacgrwm'.includes(String.fromCharCode(first)))) return false;
  const head = text.length > HEAD_CHARS ? text.slice(0, HEAD_CHARS) : text;
  LEADING_SPACE.lastIndex = 0;
  LEADING_SPACE.test(head);
  SQL_START.lastIndex = LEADING_SPACE.lastIndex;
  if (SQL_START.test(head)) return true;
  // "select name from users": a column list then FROM within the head.
  return SELECT_FROM.test(head) && FROM_WORD.test(head);
}

/** The finding kind an unreadable statement most likely has, from its first words. */
function guessKind(text: string): string {
  const head = text.slice(0, 64).trimStart().toLowerCase();
  const word = head.split(/\s/, 1)[0] ?? '';
  if (word === 'grant' || word === 'revoke') return 'sql.grant';
  if (/^(?:create|alter|drop)\s+(?:user|role)\b/.test(head)) return 'sql.grant';
  if (word === 'drop' || word === 'truncate' || word === 'alter' || word === 'create' || word === 'rename') return 'sql.ddl';
  if (word === 'delete') return 'sql.delete';
  if (word === 'update') return 'sql.update';
  if (word === 'insert' || word === 'replace' || word === 'merge') return 'sql.insert';
  if (word === 'select' || word === 'with') return 'sql.select';
  return 'sql.unknown';
}

function failClosed(sink: Sink, argument: string, text: string, why: string): void {
  sink.unanalysable.push(`${argument}: ${why}`);
  sink.findings.push({
    kind: guessKind(text),
    argument,
    radius: 'total',
    destructive: true,
    reason: `${why}; treated as destructive with total reach`,
  });
}

/** Analyses one SQL argument into sink. `truncated` means text is only the first 64 KB. */
export function analyseSql(sink: Sink, argument: string, text: string, truncated: boolean): void {
  if (sink.prior) {
    // Earlier steps are only classified (escalation needs the kind, not the reach): no parsing.
    sink.findings.push({ kind: guessKind(text), argument, radius: 'none', destructive: false, reason: 'earlier step' });
    return;
  }
  if (truncated) return failClosed(sink, argument, text, 'sql argument over 64 KB');
  if (!parser) return failClosed(sink, argument, text, 'sql parser not installed');
  const cacheable = text.length <= CACHE_TEXT_CHARS;
  const shape = text.length <= SHAPE_TEXT_CHARS ? sqlShape(text) : null;
  let found = cacheable ? (verdicts.get(text)?.found ?? (shape === null ? undefined : shapes.get(shape)?.found)) : undefined;
  if (found === undefined) {
    if (text.length > sink.sqlBudget) return failClosed(sink, argument, text, 'sql budget for this call exhausted');
    let ast: unknown = undefined;
    let attempts = 0;
    for (const database of DIALECTS) {
      if (text.length > sink.sqlBudget) break;
      sink.sqlBudget -= text.length;
      attempts++;
      try {
        ast = parser.astify(text, { database });
        break;
      } catch {
        // Also catches RangeError: deeply nested parentheses overflow the parser's stack.
        if (text.length > RETRY_LIMIT_CHARS || !parenthesesBalance(text)) break;
      }
    }
    found = ast === undefined ? null : classifyAll(ast);
    // A failure for want of budget is this call's, not the text's: it is not kept.
    if (cacheable && (ast !== undefined || attempts === DIALECTS.length)) {
      verdicts.set(text, { found });
      if (shape !== null) shapes.set(shape, { found });
    }
  }
  if (found === null) return failClosed(sink, argument, text, 'sql did not parse');
  if (found.length === 0) return failClosed(sink, argument, text, 'sql has no statement');
  for (const { kind, radius, destructive, reason } of found) sink.findings.push({ kind, argument, radius, destructive, reason });
}

function classifyAll(ast: unknown): Verdict[] {
  const out: Verdict[] = [];
  for (const statement of Array.isArray(ast) ? ast : [ast]) classifyStatement(out, statement as Ast);
  return out;
}

/** The AST is loosely typed (the package's own types differ per statement); we read it defensively. */
type Ast = Record<string, unknown> | null | undefined;

function str(value: unknown): string {
  return typeof value === 'string' ? value.toLowerCase() : '';
}

function tableNames(list: unknown): string {
  if (typeof list === 'string') return list;
  if (!Array.isArray(list)) return '';
  const names: string[] = [];
  for (const item of list.slice(0, 5)) {
    const table = (item as Ast)?.table;
    if (typeof table === 'string') names.push(table);
  }
  return names.join(', ');
}

/** Columns whose equality picks out one row, or a few. */
const KEY_COLUMN = /^(?:id|uuid|guid|pk|key|[a-z0-9_]*_id|[a-z0-9_]*_uuid|[a-z0-9_]*_key|email|username)$/i;

function columnName(node: Ast): string {
  if (!node || node.type !== 'column_ref') return '';
  const column = node.column;
  if (typeof column === 'string') return column;
  // Newer parser versions wrap the name: { expr: { type, value } }.
  const inner = (column as Ast)?.expr as Ast;
  return typeof inner?.value === 'string' ? inner.value : '';
}

function isLiteral(node: Ast): boolean {
  const type = str(node?.type);
  return type === 'number' || type === 'bool' || type === 'null' || type.endsWith('string') || type === 'param';
}

/**
 * Does this WHERE clause restrict to rows by key? True for `id = 42`, `id IN (1, 2)`, or an AND
 * with such a term; false for an OR (either side may match everything) and for non-key conditions.
 */
function keyRestricted(node: Ast, depth = 0): boolean {
  if (!node || depth > 32) return false;
  const operator = str(node.operator);
  if (operator === 'and') {
    return keyRestricted(node.left as Ast, depth + 1) || keyRestricted(node.right as Ast, depth + 1);
  }
  if (operator === '=' || operator === 'in') {
    const left = node.left as Ast;
    const right = node.right as Ast;
    const keyed = KEY_COLUMN.test(columnName(left)) || KEY_COLUMN.test(columnName(right));
    const other = KEY_COLUMN.test(columnName(left)) ? right : left;
    return keyed && (isLiteral(other) || str(other?.type) === 'expr_list');
  }
  return false;
}

/** A WHERE that holds for every row: `1 = 1`, `'a' = 'a'`, `true`, or an OR with one of those. */
function tautology(node: Ast, depth = 0): boolean {
  if (!node || depth > 32) return false;
  const type = str(node.type);
  if (type === 'bool') return node.value === true;
  if (type === 'number') return node.value !== 0;
  const operator = str(node.operator);
  if (operator === 'or') return tautology(node.left as Ast, depth + 1) || tautology(node.right as Ast, depth + 1);
  if (operator === '=' && isLiteral(node.left as Ast) && isLiteral(node.right as Ast)) {
    return JSON.stringify((node.left as Ast)?.value) === JSON.stringify((node.right as Ast)?.value);
  }
  return false;
}

/** Reach of a row-changing or row-reading statement from its WHERE and LIMIT. */
function rowsReach(where: Ast, limit: unknown): { radius: BlastRadius; why: string } {
  const limited = Array.isArray((limit as Ast)?.value) && ((limit as Ast)?.value as unknown[]).length > 0;
  if (!where) return limited ? { radius: 'narrow', why: 'no WHERE, but a LIMIT' } : { radius: 'broad', why: 'no WHERE: every row of the table' };
  if (tautology(where)) return { radius: 'broad', why: 'a WHERE that is always true: every row of the table' };
  if (keyRestricted(where)) return { radius: 'narrow', why: 'a WHERE on a key' };
  if (limited) return { radius: 'narrow', why: 'a LIMIT' };
  return { radius: 'broad', why: 'a WHERE not on a key: may match many rows' };
}

function aggregateOnly(columns: unknown): boolean {
  if (!Array.isArray(columns) || columns.length === 0) return false;
  return columns.every((column) => str(((column as Ast)?.expr as Ast)?.type) === 'aggr_func');
}

const HARMLESS = new Set(['use', 'show', 'desc', 'explain', 'set', 'transaction', 'lock', 'unlock', 'commit', 'rollback']);

function classifyStatement(out: Verdict[], ast: Ast): void {
  const push = (kind: string, radius: BlastRadius, destructive: boolean, reason: string): void => {
    out.push({ kind, radius, destructive, reason });
  };
  const type = str(ast?.type);
  const keyword = str(ast?.keyword);
  switch (type) {
    case 'select': {
      if (!ast?.from) return push('sql.select', 'none', false, 'SELECT without a table');
      // A read is bulk only when nothing restricts it: no WHERE (or one always true) and no LIMIT.
      const where = ast.where as Ast;
      const reach = where && !tautology(where) ? { radius: 'narrow' as const, why: 'a WHERE' } : rowsReach(where, ast.limit);
      // count(*) over a whole table returns one row: the data read does not leave in bulk.
      if (reach.radius === 'broad' && aggregateOnly(ast.columns)) {
        return push('sql.select', 'narrow', false, `SELECT of aggregates only from ${tableNames(ast.from)}`);
      }
      return push('sql.select', reach.radius, false, `SELECT from ${tableNames(ast.from)} with ${reach.why}`);
    }
    case 'insert':
    case 'replace': {
      // REPLACE and ON DUPLICATE KEY UPDATE overwrite existing rows.
      const overwrites = type === 'replace' || Boolean(ast?.on_duplicate_update);
      return push('sql.insert', 'narrow', overwrites, `${type.toUpperCase()} into ${tableNames(ast?.table)}${overwrites ? ' overwriting existing rows' : ''}`);
    }
    case 'update':
    case 'delete': {
      const reach = rowsReach(ast?.where as Ast, ast?.limit);
      const table = tableNames(type === 'delete' ? (ast?.from ?? ast?.table) : ast?.table);
      return push(`sql.${type}`, reach.radius, true, `${type.toUpperCase()} on ${table} with ${reach.why}`);
    }
    case 'drop': {
      const names = tableNames(ast?.name);
      if (keyword === 'database' || keyword === 'schema') return push('sql.ddl', 'total', true, `DROP ${keyword.toUpperCase()} ${names}: everything in it`);
      if (keyword === 'user' || keyword === 'role') return push('sql.grant', 'broad', true, `DROP ${keyword.toUpperCase()}`);
      if (keyword === 'table') return push('sql.ddl', 'broad', true, `DROP TABLE ${names}: the table and every row`);
      return push('sql.ddl', 'narrow', true, `DROP ${keyword.toUpperCase() || 'object'} ${names}`);
    }
    case 'truncate':
      return push('sql.ddl', 'broad', true, `TRUNCATE ${tableNames(ast?.name)}: every row`);
    case 'alter': {
      // Dropping, changing or renaming loses data or breaks readers; adding a column does not.
      const actions = Array.isArray(ast?.expr) ? (ast.expr as Ast[]).map((expr) => str(expr?.action)) : [];
      const destructive = actions.length === 0 || actions.some((action) => action !== 'add');
      return push('sql.ddl', 'broad', destructive, `ALTER TABLE ${tableNames(ast?.table)} (${actions.join(', ') || 'change'})`);
    }
    case 'rename':
      return push('sql.ddl', 'broad', true, 'RENAME TABLE: readers of the old name break');
    case 'create': {
      if (keyword === 'user' || keyword === 'role') return push('sql.grant', 'broad', false, `CREATE ${keyword.toUpperCase()}: a new principal`);
      const replaces = Boolean(ast?.replace) || str(ast?.ignore_replace) === 'replace';
      return push('sql.ddl', 'narrow', replaces, `CREATE ${keyword.toUpperCase() || 'object'}${replaces ? ' replacing an existing one' : ''}`);
    }
    case 'grant':
    case 'revoke': {
      const text = JSON.stringify(ast?.on ?? '') + JSON.stringify(ast?.objects ?? '');
      const everything = text.includes('"*"') && text.includes('"prefix":"*"');
      const all = /"value":"ALL(?: PRIVILEGES)?"/i.test(text);
      const radius: BlastRadius = everything ? 'total' : all || text.includes('"*"') ? 'broad' : 'narrow';
      return push('sql.grant', radius, false, `${type.toUpperCase()} ${all ? 'ALL ' : ''}privileges${everything ? ' on every database' : ''}`);
    }
    case 'call':
    case 'exec':
    case 'execute':
      return push('sql.exec', 'broad', true, 'a stored procedure call: its effects cannot be seen here');
    default:
      if (HARMLESS.has(type)) return push('sql.other', 'none', false, `${type.toUpperCase()} statement`);
      return push('sql.other', 'broad', true, `unclassified ${type || 'statement'} statement; treated as destructive`);
  }
}
