// Wire shapes of trace ingest (POST /v1/traces, OTLP/HTTP) and of the span reads on /api/traces.
import { Type, type Static } from 'typebox';
import { ListQuery, Nullable, StringEnum, Timestamp } from '../../../infra/http/schemas.js';

/** OTLP bodies are larger than guard calls: exporters batch up to 512 spans with their attributes. */
export const OTLP_BODY_LIMIT = 8 * 1_048_576;

/**
 * ExportTraceServiceRequest in OTLP/JSON. Only the top level is described: the protocol adds
 * fields over time and receivers must ignore the ones they do not know, so the structure below
 * resourceSpans is checked by the normalizer, which refuses a malformed request whole.
 */
export const ExportTraceBody = Type.Object(
  {
    resourceSpans: Type.Optional(
      Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'ResourceSpans: resource, scopeSpans[].spans[]' }),
    ),
  },
  {
    additionalProperties: true,
    'x-body-limit': OTLP_BODY_LIMIT,
    description: 'An OTLP ExportTraceServiceRequest (application/json; application/x-protobuf carries the binary form)',
  },
);

export const ExportTraceResponse = Type.Object(
  {
    partialSuccess: Type.Optional(
      Type.Object({
        rejectedSpans: Type.String({ description: 'int64 as proto3 JSON writes it' }),
        errorMessage: Type.String(),
      }),
    ),
  },
  { description: 'ExportTraceServiceResponse; empty when every span was accepted' },
);
export type ExportTraceResponse = Static<typeof ExportTraceResponse>;

export const ResolveQuery = Type.Object({
  system: Type.String({ minLength: 1, maxLength: 200, description: 'the external system: `otel` for a bare trace id, or what spans named in parapet.external.system' }),
  external_id: Type.String({ minLength: 1, maxLength: 500, description: 'the run id in that system (for `otel`, the trace id)' }),
});
export type ResolveQuery = Static<typeof ResolveQuery>;

export const ResolveSchema = Type.Object({
  system: Type.String(),
  external_id: Type.String(),
  trace_id: Type.String({ description: 'the trace of the run (the first received when spans of several traces name the run)' }),
  trace_ids: Type.Array(Type.String(), { description: 'every trace that names the run, first received first (at most 500)' }),
  decision_ids: Type.Array(Type.String(), { description: 'decisions linked to those traces, newest first (at most 500)' }),
  spans: Type.Integer({ description: 'spans received for the run' }),
});
export type Resolution = Static<typeof ResolveSchema>;

export const SPAN_KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;
export const SPAN_STATUS_CODES = ['unset', 'ok', 'error'] as const;

export const SpanSchema = Type.Object({
  trace_id: Type.String(),
  span_id: Type.String(),
  parent_span_id: Nullable(Type.String()),
  name: Type.String(),
  kind: StringEnum(SPAN_KINDS),
  start_time: Timestamp,
  end_time: Nullable(Timestamp),
  duration_ms: Nullable(Type.Number()),
  status_code: StringEnum(SPAN_STATUS_CODES),
  status_message: Nullable(Type.String()),
  scope_name: Nullable(Type.String()),
  attributes: Type.Record(Type.String(), Type.Unknown(), { description: 'at most 128, each value at most 1 KB' }),
  resource_attributes: Type.Record(Type.String(), Type.Unknown()),
  dropped_attributes: Type.Integer(),
  agent: Nullable(Type.String()),
  external_system: Type.String(),
  external_id: Type.String(),
  decision_id: Nullable(Type.String({ description: 'the decision the span named, or the first one recorded with its trace id when it arrived' })),
  received_at: Timestamp,
});
export type Span = Static<typeof SpanSchema>;

export const SpanList = Type.Object({ items: Type.Array(SpanSchema), next_cursor: Nullable(Type.String()) });
export const ListSpansQuery = ListQuery;
export type ListSpansQuery = Static<typeof ListSpansQuery>;
