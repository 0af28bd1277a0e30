// Walks a tool call's arguments and hands each string that looks like SQL, a command line or a URL
// to its analyser. Hot path: most calls carry none of these, so each string costs a key lookup and
// a first-character test before anything else. Bounded: depth, string count, node count and
// characters per string are capped; what the caps leave out is reported as unanalysable.
import { analyseUrl, methodOf } from './http.js';
import { analyseShell } from './shell.js';
import { analyseSql, startsLikeSql } from './sql.js';
import type { ToolProfile } from './tools.js';
import type { Sink } from './types.js';

export interface WalkLimits {
  maxDepth: number;
  maxStrings: number;
  /** Characters of one string analysed; a longer one is cut and, if it is SQL, shell or a URL, fails closed. */
  maxChars: number;
  /** Objects, arrays and primitives visited in all (a million numbers must not cost a million steps). */
  maxNodes: number;
}

/** Requirement limits for the call being analysed: depth 8, 200 strings, 64 KB each. */
export const CALL_LIMITS: WalkLimits = { maxDepth: 8, maxStrings: 200, maxChars: 65536, maxNodes: 5000 };
/** Earlier steps are only classified: smaller limits keep a long history cheap. */
export const PRIOR_LIMITS: WalkLimits = { maxDepth: 8, maxStrings: 50, maxChars: 8192, maxNodes: 1000 };

const SQL_KEYS = new Set(['sql', 'sql_query', 'sqlquery', 'statement', 'statements', 'stmt', 'raw_sql', 'sql_statement', 'sql_text', 'sqltext']);
/** Keys that hold SQL on a database tool (on a search tool `query` is free text). */
const QUERY_KEYS = new Set(['query', 'q', 'query_text', 'querytext', 'queries']);
/** Keys holding one command line (or, as an array, one argv) on any tool. */
const SHELL_KEYS = new Set(['command', 'cmd', 'shell', 'bash', 'sh', 'commandline', 'command_line', 'cmdline', 'shell_command', 'argv']);
/** Keys holding a list of command lines. ("script" alone is too common: a video script, a JS snippet.) */
const SHELL_LIST_KEYS = new Set(['commands', 'shell_commands']);
const URL_KEYS = new Set(['url', 'uri', 'endpoint', 'href', 'webhook']);
const METHOD_KEYS = ['method', 'http_method', 'httpMethod', 'verb', 'request_method'];
const BODY_KEYS = ['body', 'data', 'json', 'payload', 'form', 'form_data', 'files'];
/** Top-level keys of a SQL or shell tool that carry settings, not statements or commands. */
const SETTING_KEYS = new Set([
  'params', 'parameters', 'values', 'bindings', 'args', 'arguments', 'database', 'db', 'schema', 'catalog', 'connection',
  'connection_id', 'dsn', 'datasource', 'timeout', 'limit', 'format', 'cwd', 'workdir', 'working_directory', 'dir',
  'directory', 'description', 'env', 'name', 'id', 'user', 'username', 'host', 'port', 'region', 'language', 'lang',
  'mode', 'output_format', 'timezone', 'encoding', 'reason', 'title', 'label', 'dialect', 'warehouse', 'role', 'explanation', 'stdin',
]);

function isUrlKey(key: string): boolean {
  return URL_KEYS.has(key) || key.endsWith('_url') || key.endsWith('_uri') || (key.endsWith('url') && key.length <= 16);
}

function looksLikeUrl(text: string): boolean {
  const first = text.charCodeAt(0) | 0x20;
  if (first !== 0x68 && first !== 0x66 && first !== 0x77) return false; // h, f, w
  const head = text.slice(0, 8).toLowerCase();
  return head.startsWith('http://') || head.startsWith('https://') || head.startsWith('file://') || head.startsWith('ws://') || head.startsWith('wss://');
}

interface Walk {
  sink: Sink;
  tool: ToolProfile;
  limits: WalkLimits;
  strings: number;
  nodes: number;
  tooDeep: boolean;
  tooMany: boolean;
  /** Strings seen, for escalation's secret-path test (heads only). */
  heads: string[];
}

/** Analyses every qualifying string in args; returns heads of the strings seen (≤ 4 KB each). */
export function analyseArguments(sink: Sink, tool: ToolProfile, args: unknown, limits: WalkLimits): string[] {
  const walk: Walk = { sink, tool, limits, strings: 0, nodes: 0, tooDeep: false, tooMany: false, heads: [] };
  if (args !== null && typeof args === 'object') visitObjectOrArray(walk, args, '', '', 1, true);
  else if (typeof args === 'string') visitString(walk, args, '', 'arguments', null, true);
  const family = tool.sql ? 'sql' : tool.shell ? 'shell' : tool.http ? 'http' : '';
  const skipped = (why: string): void => {
    sink.unanalysable.push(why);
    // On a SQL, shell or HTTP tool, what we did not read may be the dangerous part.
    if (family && !sink.prior) {
      sink.findings.push({ kind: `${family}.unanalysable`, argument: 'arguments', radius: 'total', destructive: true, reason: `${why}; treated as destructive with total reach` });
    }
  };
  if (walk.tooDeep) skipped(`arguments nested deeper than ${limits.maxDepth} levels were not analysed`);
  if (walk.tooMany) skipped(`arguments beyond ${limits.maxStrings} strings or ${limits.maxNodes} values were not analysed`);
  return walk.heads;
}

/**
 * `root` marks a top-level argument or an element of a top-level array: on a SQL, shell or HTTP
 * tool those strings are statements, command lines or URLs even under an unremarkable key.
 */
function visitObjectOrArray(walk: Walk, value: object, key: string, path: string, depth: number, root: boolean): void {
  if (depth > walk.limits.maxDepth) {
    walk.tooDeep = true;
    return;
  }
  if (Array.isArray(value)) {
    // An argv under a command key: ["rm", "-rf", "/"] is judged word by word, not re-tokenised.
    if (SHELL_KEYS.has(key) && value.length > 0 && value.length <= 4096 && value.every((item) => typeof item === 'string')) {
      if (!countString(walk)) return;
      analyseShell(walk.sink, path, '', false, (value as string[]).map((item) => item.slice(0, walk.limits.maxChars)));
      return;
    }
    for (let i = 0; i < value.length; i++) {
      if (!countNode(walk)) return;
      visit(walk, value[i], key, `${path}[${i}]`, depth, null, root);
    }
    return;
  }
  const record = value as Record<string, unknown>;
  // MCP-style `{ command: "rm", args: ["-rf", "/"] }`: one command line.
  const command = record.command;
  const commandArgs = record.args;
  const joined =
    typeof command === 'string' && Array.isArray(commandArgs) && commandArgs.length <= 4096 && commandArgs.every((item) => typeof item === 'string');
  if (joined && countString(walk)) {
    const argument = path ? `${path}.command` : 'command';
    analyseShell(walk.sink, argument, '', false, [command, ...(commandArgs as string[])].map((item) => item.slice(0, walk.limits.maxChars)));
  }
  for (const name in record) {
    if (!Object.prototype.hasOwnProperty.call(record, name)) continue;
    if (!countNode(walk)) return;
    if (joined && (name === 'command' || name === 'args')) continue;
    visit(walk, record[name], name.toLowerCase(), path ? `${path}.${name}` : name, depth, record, depth === 1);
  }
}

function countNode(walk: Walk): boolean {
  if (++walk.nodes > walk.limits.maxNodes) {
    walk.tooMany = true;
    return false;
  }
  return true;
}

function countString(walk: Walk): boolean {
  if (++walk.strings > walk.limits.maxStrings) {
    walk.tooMany = true;
    return false;
  }
  return true;
}

function visit(walk: Walk, value: unknown, key: string, path: string, depth: number, parent: Record<string, unknown> | null, root: boolean): void {
  if (typeof value === 'string') visitString(walk, value, key, path, parent, root);
  else if (value !== null && typeof value === 'object') visitObjectOrArray(walk, value, key, path, depth + 1, root);
}

function visitString(walk: Walk, value: string, key: string, path: string, parent: Record<string, unknown> | null, root: boolean): void {
  if (value.length === 0 || !countString(walk)) return;
  const { sink, tool, limits } = walk;
  const truncated = value.length > limits.maxChars;
  const text = truncated ? value.slice(0, limits.maxChars) : value;
  if (walk.heads.length < limits.maxStrings) walk.heads.push(text.length > 4096 ? text.slice(0, 4096) : text);
  const topLevel = root && !SETTING_KEYS.has(key);
  if (SHELL_KEYS.has(key) || SHELL_LIST_KEYS.has(key) || (tool.shell && topLevel)) {
    analyseShell(sink, path, text, truncated);
  } else if (SQL_KEYS.has(key) || (tool.sql && (topLevel || QUERY_KEYS.has(key))) || startsLikeSql(text)) {
    analyseSql(sink, path, text, truncated);
  } else if (isUrlKey(key) || (tool.http && topLevel && looksLikeUrl(text))) {
    // On other tools a URL key holding plain words ("endpoint": "users") is not a request.
    if (!tool.http && !looksLikeUrl(text)) return;
    analyseUrl(sink, path, text, requestMethod(tool, parent, key), truncated);
  }
}

/** The method of the request a URL belongs to: named beside it, implied by an HTTP tool, or by a body. */
function requestMethod(tool: ToolProfile, parent: Record<string, unknown> | null, key: string): string {
  if (parent) {
    for (const name of METHOD_KEYS) {
      const method = methodOf(parent[name]);
      if (method) return method;
    }
  }
  // Only an HTTP tool's key names its method: a link in send_email's arguments is not POSTed to.
  if (tool.http && tool.method) return tool.method;
  if (key.includes('webhook') || key.includes('callback')) return 'POST';
  // A body without a method is sent somewhere: assume it is written (fetch would refuse a GET body).
  if (parent && BODY_KEYS.some((name) => parent[name] !== undefined && parent[name] !== null)) return 'POST';
  return 'GET';
}
