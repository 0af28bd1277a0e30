// Trace ingest and the links from spans to decisions: stores the spans of an OTLP export,
// resolves an external run id to the decisions of its traces, and lists the spans of a decision.
import { notFound, problem } from '../../../infra/http/problems.js';
import type { Clock } from '../../../infra/lib/clock.js';
import type { Store } from '../../../infra/store/db.js';
import type { SpanRow } from '../../../infra/store/tables.js';
import { normalizeRequest, OTEL_SYSTEM, type IdEncoding, type OtlpRequest } from './normalize.js';
import type { ListSpansQuery, Resolution, Span } from './schemas.js';
import {
  countSpansOfTrace,
  decisionsOfTraces,
  firstDecisionByTrace,
  getDecisionTraceId,
  insertSpans,
  spansByExternalId,
  spansOfDecision,
  type SpanPosition,
} from './store.js';

export interface IngestResult {
  accepted: number;
  rejected: number;
  /** Why spans were rejected; empty when none was. */
  errorMessage: string;
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function spanToWire(row: SpanRow): Span {
  return {
    trace_id: row.trace_id,
    span_id: row.span_id,
    parent_span_id: row.parent_span_id,
    name: row.name,
    kind: row.kind as Span['kind'],
    start_time: row.start_time,
    end_time: row.end_time,
    duration_ms: row.duration_ms === null ? null : Number(row.duration_ms),
    status_code: row.status_code as Span['status_code'],
    status_message: row.status_message,
    scope_name: row.scope_name,
    attributes: parseObject(row.attributes),
    resource_attributes: parseObject(row.resource_attributes),
    dropped_attributes: Number(row.dropped_attributes),
    agent: row.agent,
    external_system: row.external_system,
    external_id: row.external_id,
    decision_id: row.decision_id,
    received_at: row.received_at,
  };
}

function encodeSpanCursor(row: SpanPosition): string {
  return Buffer.from(JSON.stringify([row.start_time, row.trace_id, row.span_id]), 'utf8').toString('base64url');
}

function decodeSpanCursor(cursor: string | undefined): SpanPosition | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 3 && value.every((part) => typeof part === 'string')) {
      const [start_time, trace_id, span_id] = value as [string, string, string];
      return { start_time, trace_id, span_id };
    }
  } catch {
    // Falls through to the refusal below.
  }
  throw problem('invalid-request', 'cursor is not one this gateway issued', [{ field: '/querystring/cursor', message: 'unknown cursor' }]);
}

export class SpanService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Stores the spans of one export. A span that names no decision is linked to the first decision
   * already recorded with its trace id; decisions recorded later are found by trace id when read.
   */
  async ingest(
    request: OtlpRequest,
    context: { idEncoding: IdEncoding; credentialAgent: string | null; headerAgent: string | null },
  ): Promise<IngestResult> {
    const batch = normalizeRequest(request, { ...context, receivedAt: this.clock.now().toISOString() });
    const unlinked = batch.spans.filter((span) => span.decision_id === null).map((span) => span.trace_id);
    if (unlinked.length > 0) {
      const first = await firstDecisionByTrace(this.store.db, unlinked);
      for (const span of batch.spans) if (span.decision_id === null) span.decision_id = first.get(span.trace_id) ?? null;
    }
    await insertSpans(this.store.db, batch.spans);
    return {
      accepted: batch.spans.length,
      rejected: batch.rejected,
      errorMessage: batch.rejected === 0 ? '' : `${batch.rejected} span(s) rejected: ${batch.reasons.join('; ')}`,
    };
  }

  /**
   * An external run id → its traces and decisions. `otel` names a trace by its id: every span of
   * that trace counts. Any other system matches spans that carried parapet.external.system and
   * parapet.external.id. Either way a decision whose guard call recorded the external id itself as
   * its trace_id is linked too, so a run that sent guard calls but no spans still resolves.
   */
  async resolve(system: string, externalId: string): Promise<Resolution> {
    const db = this.store.db;
    let traceIds: string[];
    let spans: number;
    if (system === OTEL_SYSTEM) {
      spans = await countSpansOfTrace(db, externalId);
      traceIds = spans > 0 ? [externalId] : [];
    } else {
      ({ traceIds, spans } = await spansByExternalId(db, system, externalId));
    }
    const decisionIds = await decisionsOfTraces(db, traceIds.includes(externalId) ? traceIds : [...traceIds, externalId]);
    if (spans === 0 && decisionIds.length === 0) {
      throw problem('unknown-id', `no spans or decisions for ${system} run ${externalId}`);
    }
    const allTraces = traceIds.length > 0 ? traceIds : [externalId];
    return { system, external_id: externalId, trace_id: allTraces[0] as string, trace_ids: allTraces, decision_ids: decisionIds, spans };
  }

  /** Spans linked to one decision, newest start first. */
  async spansOf(decisionId: string, query: ListSpansQuery): Promise<{ items: Span[]; next_cursor: string | null }> {
    const decision = await getDecisionTraceId(this.store.db, decisionId);
    if (decision === undefined) throw notFound('trace', decisionId);
    const limit = query.limit ?? 50;
    const rows = await spansOfDecision(this.store.db, decisionId, decision.trace_id, decodeSpanCursor(query.cursor), limit + 1);
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return { items: items.map(spanToWire), next_cursor: rows.length > limit && last !== undefined ? encodeSpanCursor(last) : null };
  }
}
