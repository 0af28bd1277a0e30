// MCP server configurations in JSON: the files clients read (.mcp.json, mcp.json,
// claude_desktop_config.json, .cursor/mcp.json, .vscode/mcp.json, Cline's settings) under
// `mcpServers` or `servers`, and any other JSON file with a top-level `mcpServers` (or VS Code's
// `mcp.servers`). Comments and trailing commas (JSONC, as VS Code writes) are tolerated.

import { maskSecrets } from './secrets.js';
import { cleanName, jsonKeyLines, type SourceText } from './text.js';
import type { McpTransport } from './types.js';

export interface McpConfigServer {
  name: string;
  line: number;
  transport: McpTransport | null;
  command: string | null;
  url: string | null;
  /** The package a launcher runs (`npx -y @scope/server` → `@scope/server`), when readable. */
  package: string | null;
  /** Names of the environment variables it is given (never their values). */
  env_keys: string[];
}

const MAX_SERVERS = 100;
const MAX_ENV_KEYS = 32;
const MAX_URL_CHARS = 500;
const PACKAGE_ARG = /^(?:@[a-z0-9][\w.-]{0,100}\/)?[a-z0-9][\w.-]{0,100}(?:@[\w.^~-]{1,40})?$/i;

/** The end (exclusive) of the JSON string that opens at `start`, or the text's end when it does not close. */
function stringEnd(text: string, start: number): number {
  let j = start + 1;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === 34) return j + 1;
    j += c === 92 ? 2 : 1;
  }
  return text.length;
}

/** JSON with `//` and block comments blanked (line breaks kept, so lines still count the same). */
function stripComments(text: string): string {
  const out: string[] = [];
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = stringEnd(text, i);
    } else if (c === 47 && text.charCodeAt(i + 1) === 47) {
      out.push(text.slice(from, i));
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
      from = i;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      out.push(text.slice(from, i));
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out.push(text.slice(i, stop).replace(/[^\n]/g, ' '));
      i = stop;
      from = i;
    } else i += 1;
  }
  out.push(text.slice(from));
  return out.join('');
}

/** JSON without commas that stand before a closing `}` or `]`. */
function stripTrailingCommas(text: string): string {
  const out: string[] = [];
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = stringEnd(text, i);
      continue;
    }
    i += 1;
    if (c !== 44) continue;
    // White space after the comma is walked once: the loop goes on from where this look stopped.
    let j = i;
    while (j < text.length && /\s/.test(text[j] ?? '')) j += 1;
    const next = text.charCodeAt(j);
    if (next === 125 || next === 93) {
      out.push(text.slice(from, i - 1));
      from = i;
    }
    i = j;
  }
  out.push(text.slice(from));
  return out.join('');
}

/** JSONC (comments, trailing commas, as VS Code writes) made into JSON, in linear time. */
export function stripJsonComments(text: string): string {
  return stripTrailingCommas(stripComments(text));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    if (!text.includes('/') && !text.includes(',')) return undefined;
    try {
      return JSON.parse(stripJsonComments(text));
    } catch {
      return undefined;
    }
  }
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function str(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** A URL as it may be reported: no user, password, query or fragment (they carry tokens). */
export function reportableUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return cleanName(`${url.protocol}//${url.host}${url.pathname}`, MAX_URL_CHARS);
  } catch {
    const cut = raw.split(/[?#]/, 1)[0] ?? '';
    return cleanName(cut.includes('@') ? cut.slice(cut.lastIndexOf('@') + 1) : cut, MAX_URL_CHARS);
  }
}

function transportOf(entry: Record<string, unknown>, command: string | null, url: string | null): McpTransport | null {
  const declared = (str(entry.type) ?? str(entry.transport) ?? '').toLowerCase().replace(/[-_]/g, '');
  if (declared === 'stdio') return 'stdio';
  if (declared === 'sse') return 'sse';
  if (declared === 'http' || declared === 'streamablehttp' || declared === 'streamable') return 'http';
  if (command !== null) return 'stdio';
  if (url !== null) return /\/sse\/?$/i.test(url) ? 'sse' : 'http';
  return null;
}

function packageOf(args: unknown): string | null {
  if (!Array.isArray(args)) return null;
  for (const arg of args.slice(0, 16)) {
    if (typeof arg !== 'string' || arg.startsWith('-')) continue;
    // A bare argument may be a token rather than a package: then nothing is reported.
    return PACKAGE_ARG.test(arg) && maskSecrets(arg) === arg ? arg : null;
  }
  return null;
}

/**
 * The servers a JSON file configures. `named` is true for the files MCP clients read by name: they
 * may use `servers` as well as `mcpServers`.
 */
export function scanMcpConfig(source: SourceText, named: boolean): McpConfigServer[] {
  if (!named && !source.text.includes('mcpServers') && !source.text.includes('"mcp"')) return [];
  const root = asRecord(parseJson(source.text));
  if (root === null) return [];
  const candidates: Array<[string, Record<string, unknown> | null]> = [
    ['mcpServers', asRecord(root.mcpServers)],
    ['servers', named ? asRecord(root.servers) : null],
    ['servers', asRecord(asRecord(root.mcp)?.servers)],
  ];
  const found = candidates.find(([, servers]) => servers !== null);
  if (found === undefined || found[1] === null) return [];
  const [sectionKey, servers] = found;
  const sectionLine = jsonKeyLines(source, 0).get(sectionKey) ?? 0;
  const keyLines = jsonKeyLines(source, sectionLine + 1);
  const out: McpConfigServer[] = [];
  for (const [rawName, value] of Object.entries(servers).slice(0, MAX_SERVERS)) {
    const entry = asRecord(value);
    if (entry === null) continue;
    const command = str(entry.command);
    const rawUrl = str(entry.url) ?? str(entry.serverUrl) ?? str(entry.httpUrl);
    const url = rawUrl === null ? null : maskSecrets(reportableUrl(rawUrl));
    const line = keyLines.get(rawName) ?? sectionLine;
    const env = asRecord(entry.env);
    out.push({
      name: cleanName(rawName),
      line: line + 1,
      transport: transportOf(entry, command, url),
      // A command line may carry a token (`--api-key=…`): what the detector finds in it is masked.
      command: command === null ? null : cleanName(maskSecrets(command.slice(0, MAX_URL_CHARS)), MAX_URL_CHARS),
      url,
      package: packageOf(entry.args),
      env_keys: env === null ? [] : Object.keys(env).slice(0, MAX_ENV_KEYS).map((value) => cleanName(value)),
    });
  }
  return out;
}
