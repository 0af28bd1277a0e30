// Recorded decisions for operators: GET /api/traces with every filter of spec 02 and one trace by
// its decision id. Reads only; the recorder writes traces and retention removes them.
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { ReadStore } from '../../infra/store/reader.js';
import type { TraceRow } from '../../infra/store/tables.js';
import type { ListTracesQuery, Trace } from './schemas.js';
import { getTrace, listTraces, type TraceFilter } from './store.js';

const DAY_MS = 86_400_000;

/**
 * An ISO date or date-time from a query or body as the UTC text stored timestamps compare with.
 * A bare date is its first millisecond, or with `endOfDay` its last, so that `end=2026-11-21`
 * includes that whole day.
 */
export function normalizeInstant(value: string, options: { endOfDay?: boolean } = {}): string | null {
  const time = Date.parse(value);
  if (Number.isNaN(time)) return null;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  return new Date(dateOnly && options.endOfDay === true ? time + DAY_MS - 1 : time).toISOString();
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function traceToWire(row: TraceRow): Trace {
  return {
    id: row.id,
    at: row.at,
    agent: row.agent,
    subject: row.subject,
    surface: row.surface,
    tool: row.tool,
    verdict: row.verdict as Trace['verdict'],
    effective_verdict: row.effective_verdict as Trace['effective_verdict'],
    mode: row.mode,
    rules: parseJson<Trace['rules']>(row.rules, []),
    entities: parseJson<string[]>(row.entities, []),
    degraded: parseJson<string[]>(row.degraded, []),
    detectors: parseJson<Trace['detectors']>(row.detectors, []),
    latency_ms: Number(row.latency_ms),
    content_sha256: row.content_sha256,
    content_length: Number(row.content_length),
    content: row.content,
    session_id: row.session_id,
    trace_id: row.trace_id,
    environment: row.environment,
  };
}

export class TraceService {
  constructor(
    private readonly store: ReadStore,
    private readonly clock: Clock,
  ) {}

  async list(query: ListTracesQuery): Promise<{ items: Trace[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const filter: TraceFilter = {
      ...(query.agent !== undefined ? { agent: query.agent } : {}),
      ...(query.verdict !== undefined ? { verdict: query.verdict } : {}),
      ...(query.environment !== undefined ? { environment: query.environment } : {}),
      ...(query.entity_type !== undefined ? { entityType: query.entity_type } : {}),
      ...(query.tool !== undefined ? { tool: query.tool } : {}),
      ...(query.rule !== undefined ? { rule: query.rule } : {}),
      ...(query.errors !== undefined ? { errors: query.errors } : {}),
      ...this.period(query),
    };
    const rows = await listTraces(this.store.db, this.store.dialect, filter, decodeCursor(query.cursor), limit + 1);
    const page = pageOf(rows, limit);
    return { items: page.items.map(traceToWire), next_cursor: page.next_cursor };
  }

  async get(id: string): Promise<Trace> {
    const row = await getTrace(this.store.db, id);
    if (row === undefined) throw notFound('trace', id);
    return traceToWire(row);
  }

  /** since_days, start and end together: the latest start and the earliest end win. */
  private period(query: ListTracesQuery): { from?: string; to?: string } {
    const start = query.start === undefined ? undefined : normalizeInstant(query.start);
    const end = query.end === undefined ? undefined : normalizeInstant(query.end, { endOfDay: true });
    if (start === null) throw problem('invalid-request', 'start is not a date', [{ field: '/querystring/start', message: 'not a date' }]);
    if (end === null) throw problem('invalid-request', 'end is not a date', [{ field: '/querystring/end', message: 'not a date' }]);
    if (start !== undefined && end !== undefined && start > end) {
      throw problem('invalid-request', `start (${start}) is after end (${end})`, [{ field: '/querystring/start', message: 'must not be after end' }]);
    }
    const since = query.since_days === undefined ? undefined : new Date(this.clock.now().getTime() - query.since_days * DAY_MS).toISOString();
    const from = [since, start].filter((value): value is string => value !== undefined).sort().at(-1);
    return { ...(from !== undefined ? { from } : {}), ...(end !== undefined ? { to: end } : {}) };
  }
}
