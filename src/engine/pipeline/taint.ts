// Taint: content from documents, tools, memory and other agents is untrusted, and its taint follows
// it into the arguments of later tool calls. Two ways in:
// - the caller says where each argument came from (`provenance`), or names `taint_source`;
// - or the gateway sees it: untrusted content checked earlier in the same session (same agent and
//   `session_id`) is kept for a while, and an argument value that appears in it inherits its taint.
//   Content that carried an injection makes the value hostile.
// Levels: 0 trusted, 0.5 untrusted, 1 hostile. Sessions live in this process's memory (bounded);
// with `redis_url` set they are shared by every gateway process too (shared-state.ts), so a load
// balancer needs no sticky sessions.
import { UNTRUSTED_SURFACES, type Surface } from '../detectors/types.js';

export const TAINT_UNTRUSTED = 0.5;
export const TAINT_HOSTILE = 1;

/** Origin labels that mean "not from the user or the operator". */
const UNTRUSTED_ORIGINS = new Set<string>([
  ...UNTRUSTED_SURFACES,
  'memory',
  'web',
  'document',
  'email',
  'external',
  'tool',
  'model',
  'output',
]);

export function originLevel(origin: string | undefined): number {
  if (origin === undefined) return 0;
  const label = origin.toLowerCase();
  if (label === 'hostile') return TAINT_HOSTILE;
  return UNTRUSTED_ORIGINS.has(label) ? TAINT_UNTRUSTED : 0;
}

export interface ArgumentTaint {
  /** Argument path (e.g. `to`, `message.body`) → where its taint came from. */
  sources: Record<string, string>;
  level: number;
}

export interface Remembered {
  /** Lower-cased, so that an address or a name matches whatever its case in the arguments. */
  text: string;
  surface: Surface;
  hostile: boolean;
}

interface Session {
  entries: Remembered[];
  chars: number;
  touchedMs: number;
}

export const SESSION_CHARS = 256 * 1024;
const MAX_SESSIONS = 10_000;
export const SESSION_TTL_MS = 3_600_000;
/** Shorter values ("yes", "10") occur everywhere and prove nothing about where they came from. */
const MIN_VALUE_LENGTH = 6;
const MAX_VALUES = 200;
const MAX_DEPTH = 8;

export class SessionTaint {
  private readonly sessions = new Map<string, Session>();

  /**
   * Keeps untrusted content checked in a session, so that its values can be recognised later.
   * Returns the entry as kept (for the shared copy).
   */
  remember(agent: string, sessionId: string, surface: Surface, content: string, hostile: boolean, nowMs: number): Remembered {
    const key = `${agent}\u0000${sessionId}`;
    let session = this.sessions.get(key);
    if (session === undefined) {
      if (this.sessions.size >= MAX_SESSIONS) this.evict(nowMs);
      session = { entries: [], chars: 0, touchedMs: nowMs };
    } else this.sessions.delete(key); // re-inserted below: Map order is least recently used first
    this.sessions.set(key, session);
    session.touchedMs = nowMs;
    const entry: Remembered = { text: content.slice(0, SESSION_CHARS).toLowerCase(), surface, hostile };
    session.entries.push(entry);
    session.chars += entry.text.length;
    while (session.chars > SESSION_CHARS && session.entries.length > 1) {
      session.chars -= session.entries.shift()?.text.length ?? 0;
    }
    return entry;
  }

  /** Whether any untrusted content was seen in this session (a cheap test before walking arguments). */
  has(agent: string, sessionId: string, nowMs: number): boolean {
    const session = this.sessions.get(`${agent}\u0000${sessionId}`);
    return session !== undefined && nowMs - session.touchedMs < SESSION_TTL_MS;
  }

  /** Arguments whose values appear in untrusted content of the session, with their level. */
  arguments(agent: string, sessionId: string, args: unknown, nowMs: number): ArgumentTaint {
    const session = this.sessions.get(`${agent}\u0000${sessionId}`);
    if (session === undefined || nowMs - session.touchedMs >= SESSION_TTL_MS) return { sources: {}, level: 0 };
    return taintFrom(session.entries, args);
  }

  private evict(nowMs: number): void {
    for (const [key, session] of this.sessions) {
      if (nowMs - session.touchedMs >= SESSION_TTL_MS || this.sessions.size >= MAX_SESSIONS) this.sessions.delete(key);
      if (this.sessions.size < MAX_SESSIONS * 0.9) return;
    }
  }
}

/** Arguments whose values appear in the remembered untrusted content (oldest first), with their level. */
export function taintFrom(entries: readonly Remembered[], args: unknown): ArgumentTaint {
  const result: ArgumentTaint = { sources: {}, level: 0 };
  if (entries.length === 0) return result;
  for (const [path, value] of stringLeaves(args)) {
    const needle = value.trim().toLowerCase();
    if (needle.length < MIN_VALUE_LENGTH) continue;
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const entry = entries[index] as Remembered;
      if (!entry.text.includes(needle)) continue;
      const level = entry.hostile ? TAINT_HOSTILE : TAINT_UNTRUSTED;
      if (level > result.level) result.level = level;
      result.sources[path] = entry.hostile ? `${entry.surface} (carried an injection)` : entry.surface;
      if (entry.hostile) break;
    }
  }
  return result;
}

/** String values of a JSON value with their dotted paths, bounded in depth and count. */
export function stringLeaves(value: unknown): Array<[string, string]> {
  const leaves: Array<[string, string]> = [];
  const walk = (node: unknown, path: string, depth: number): void => {
    if (leaves.length >= MAX_VALUES || depth > MAX_DEPTH) return;
    if (typeof node === 'string') leaves.push([path, node]);
    else if (Array.isArray(node)) node.forEach((item, index) => walk(item, path === '' ? String(index) : `${path}.${index}`, depth + 1));
    else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) walk(item, path === '' ? key : `${path}.${key}`, depth + 1);
    }
  };
  walk(value, '', 0);
  return leaves;
}
