// Turns an OTLP ExportTraceServiceRequest (decoded from JSON or protobuf) into span rows. Pure: no
// I/O. A request whose structure is wrong is refused whole (400, OTLP/HTTP "permanent failure");
// a span that is wrong on its own (bad ids, no start time) is rejected alone and counted in the
// answer's partialSuccess, as OTLP/HTTP asks.
import { problem } from '../../../infra/http/problems.js';
import type { NewSpan } from '../../../infra/store/tables.js';
import { SPAN_KINDS, SPAN_STATUS_CODES } from './schemas.js';

/** ExportTraceServiceRequest as a plain object; everything below resourceSpans is checked here. */
export interface OtlpRequest {
  resourceSpans?: unknown[];
}

/** How ids and bytes travel: hex in OTLP/JSON, base64 in protobufjs' plain objects. */
export type IdEncoding = 'hex' | 'base64';

export interface IngestContext {
  idEncoding: IdEncoding;
  /** The agent of an agent credential: it speaks only for itself. */
  credentialAgent: string | null;
  /** X-Parapet-Agent under a traffic token. */
  headerAgent: string | null;
  receivedAt: string;
}

export interface NormalizedBatch {
  spans: NewSpan[];
  rejected: number;
  /** A few distinct reasons, for the partialSuccess error message. */
  reasons: string[];
}

export const MAX_ATTRIBUTES = 128;
export const MAX_VALUE_CHARS = 1024;
const MAX_NAME_CHARS = 1024;
const MAX_LABEL_CHARS = 200;
const MAX_EXTERNAL_ID_CHARS = 500;
const MAX_VALUE_DEPTH = 8;
const MAX_REASONS = 3;

export const ATTR_AGENT = 'parapet.agent';
export const ATTR_EXTERNAL_SYSTEM = 'parapet.external.system';
export const ATTR_EXTERNAL_ID = 'parapet.external.id';
export const ATTR_DECISION_ID = 'parapet.decision_id';
/** The system of the fallback mapping: a span's own trace id is its external id. */
export const OTEL_SYSTEM = 'otel';

const DECISION_ID = /^dec_[0-9a-z]{26}$/;

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Attributes = Record<string, Json>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A span that cannot be kept; the rest of the request goes on. */
class SpanRejected extends Error {}

function structural(field: string, message: string): never {
  throw problem('invalid-request', `invalid OTLP request: ${field} ${message}`, [{ field, message }]);
}

/** A repeated field: absent is empty (proto3 JSON leaves empty lists out), anything else must be a list. */
function list(value: unknown, field: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) structural(field, 'must be an array');
  return value;
}

/** A message field: absent is empty, anything else must be an object. */
function message(value: unknown, field: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) structural(field, 'must be an object');
  return value;
}

const truncate = (text: string, max: number): string => (text.length > max ? text.slice(0, max) : text);

/** An int64 as OTLP/JSON writes it (decimal string or number): a number when it is exact, else its text. */
function int64(value: unknown): Json {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || !/^-?\d{1,20}$/.test(value)) return null;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) ? parsed : value;
}

/** AnyValue as plain JSON; bytes stay base64 (the text OTLP/JSON uses for them). */
function anyValue(value: unknown, depth: number): Json {
  if (!isObject(value)) return null;
  if (depth > MAX_VALUE_DEPTH) return '[nested too deep]';
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (value.intValue !== undefined) return int64(value.intValue);
  if (value.doubleValue !== undefined) {
    const double = Number(value.doubleValue);
    // JSON has no NaN or Infinity: keep their names as text.
    return Number.isFinite(double) ? double : String(value.doubleValue);
  }
  if (typeof value.bytesValue === 'string') return value.bytesValue;
  if (isObject(value.arrayValue)) {
    const values = Array.isArray(value.arrayValue.values) ? value.arrayValue.values : [];
    return values.slice(0, MAX_ATTRIBUTES).map((item) => anyValue(item, depth + 1));
  }
  if (isObject(value.kvlistValue)) {
    const values = Array.isArray(value.kvlistValue.values) ? value.kvlistValue.values : [];
    return readAttributes(values, depth + 1).attributes;
  }
  return null;
}

/** A value no longer than 1 KB of JSON text: strings are cut, larger structures become their cut JSON text. */
function bounded(value: Json): Json {
  if (typeof value === 'string') return truncate(value, MAX_VALUE_CHARS);
  if (value === null || typeof value !== 'object') return value;
  const text = JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? text.slice(0, MAX_VALUE_CHARS) : value;
}

/** KeyValue list → object of at most MAX_ATTRIBUTES keys (the first ones sent), each value bounded. */
function readAttributes(items: unknown[], depth = 0): { attributes: Attributes; dropped: number } {
  const attributes: Attributes = {};
  let kept = 0;
  let dropped = 0;
  for (const item of items) {
    if (!isObject(item) || typeof item.key !== 'string') {
      dropped += 1;
      continue;
    }
    const isNew = !Object.hasOwn(attributes, item.key);
    if (isNew && kept >= MAX_ATTRIBUTES) {
      dropped += 1;
      continue;
    }
    if (isNew) kept += 1;
    attributes[item.key] = bounded(anyValue(item.value, depth));
  }
  return { attributes, dropped };
}

function attributeText(attributes: Attributes, key: string, max: number): string | null {
  const value = attributes[key];
  return typeof value === 'string' && value.trim() !== '' ? truncate(value.trim(), max) : null;
}

function readId(value: unknown, bytes: number, encoding: IdEncoding, what: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new SpanRejected(`${what} is not a string`);
  let hex: string;
  if (encoding === 'hex') {
    if (!new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(value)) throw new SpanRejected(`${what} is not ${bytes} bytes of hex`);
    hex = value.toLowerCase();
  } else {
    const raw = Buffer.from(value, 'base64');
    if (raw.length !== bytes) throw new SpanRejected(`${what} is not ${bytes} bytes`);
    hex = raw.toString('hex');
  }
  if (/^0+$/.test(hex)) throw new SpanRejected(`${what} is all zeros`);
  return hex;
}

/** fixed64 nanoseconds since the epoch (decimal string or number); 0 or absent is "not set". */
function readNanos(value: unknown, what: string): bigint | null {
  if (value === undefined || value === null || value === '' || value === 0 || value === '0') return null;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return BigInt(value);
  // Numbers beyond 2^53 have lost their last digits already; they still name the right millisecond.
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return BigInt(Math.round(value));
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) {
    const nanos = BigInt(value);
    if (nanos < 2n ** 64n) return nanos;
  }
  throw new SpanRejected(`${what} is not a count of nanoseconds`);
}

const isoOf = (nanos: bigint): string => new Date(Number(nanos / 1_000_000n)).toISOString();

function enumName<T extends readonly string[]>(value: unknown, names: T, prefix: string): T[number] {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < names.length) return names[value] as T[number];
  // Some senders write enum names instead of numbers; proto3 JSON allows both.
  if (typeof value === 'string') {
    const name = value.replace(prefix, '').toLowerCase();
    if ((names as readonly string[]).includes(name)) return name as T[number];
  }
  return names[0] as T[number];
}

interface ResourceFacts {
  resourceAttributes: Attributes;
  resourceDropped: number;
  agent: string | null;
  /** Set when the resource names an agent the request may not speak for: its spans are rejected. */
  refusal: string | null;
}

/**
 * Which agent a resource's spans belong to. In order: the agent of an agent credential; the
 * X-Parapet-Agent header under a traffic token; the resource attribute `parapet.agent`; the
 * resource attribute `service.name`. A `parapet.agent` that disagrees with the credential or the
 * header is refused, as a disagreeing body is on the guard routes.
 */
function resourceFacts(resource: Record<string, unknown>, field: string, context: IngestContext): ResourceFacts {
  const { attributes, dropped } = readAttributes(list(resource.attributes, `${field}/attributes`));
  const claimed = attributeText(attributes, ATTR_AGENT, MAX_LABEL_CHARS);
  const speaking = context.credentialAgent ?? context.headerAgent;
  if (speaking !== null) {
    const refusal =
      claimed !== null && claimed !== speaking
        ? `resource attribute ${ATTR_AGENT} names ${claimed}, but the request speaks for ${speaking}`
        : null;
    return { resourceAttributes: attributes, resourceDropped: dropped, agent: speaking, refusal };
  }
  const agent = claimed ?? attributeText(attributes, 'service.name', MAX_LABEL_CHARS);
  return { resourceAttributes: attributes, resourceDropped: dropped, agent, refusal: null };
}

function spanRow(
  span: Record<string, unknown>,
  field: string,
  facts: ResourceFacts,
  scopeName: string | null,
  context: IngestContext,
): NewSpan {
  // Structure first: a malformed request is refused whole, whatever else is wrong with the span.
  const { attributes, dropped } = readAttributes(list(span.attributes, `${field}/attributes`));
  const status = message(span.status, `${field}/status`);
  if (facts.refusal !== null) throw new SpanRejected(facts.refusal);
  const traceId = readId(span.traceId, 16, context.idEncoding, 'traceId');
  const spanId = readId(span.spanId, 8, context.idEncoding, 'spanId');
  if (traceId === null) throw new SpanRejected('traceId is missing');
  if (spanId === null) throw new SpanRejected('spanId is missing');
  const parentSpanId = readId(span.parentSpanId, 8, context.idEncoding, 'parentSpanId');
  const start = readNanos(span.startTimeUnixNano, 'startTimeUnixNano');
  if (start === null) throw new SpanRejected('startTimeUnixNano is missing');
  const end = readNanos(span.endTimeUnixNano, 'endTimeUnixNano');
  if (end !== null && end < start) throw new SpanRejected('endTimeUnixNano is before startTimeUnixNano');
  const reportedDropped = Number(span.droppedAttributesCount ?? 0);

  // An external run id needs both attributes, on the span or else on its resource; otherwise the
  // span is known by its own trace id.
  const system =
    attributeText(attributes, ATTR_EXTERNAL_SYSTEM, MAX_LABEL_CHARS) ??
    attributeText(facts.resourceAttributes, ATTR_EXTERNAL_SYSTEM, MAX_LABEL_CHARS);
  const externalId =
    attributeText(attributes, ATTR_EXTERNAL_ID, MAX_EXTERNAL_ID_CHARS) ??
    attributeText(facts.resourceAttributes, ATTR_EXTERNAL_ID, MAX_EXTERNAL_ID_CHARS);
  const explicit = system !== null && externalId !== null;
  const decisionId = attributeText(attributes, ATTR_DECISION_ID, MAX_LABEL_CHARS);

  return {
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: parentSpanId,
    name: typeof span.name === 'string' ? truncate(span.name, MAX_NAME_CHARS) : '',
    kind: enumName(span.kind, SPAN_KINDS, 'SPAN_KIND_'),
    start_time: isoOf(start),
    end_time: end === null ? null : isoOf(end),
    duration_ms: end === null ? null : Number(end - start) / 1e6,
    status_code: enumName(status.code, SPAN_STATUS_CODES, 'STATUS_CODE_'),
    status_message: typeof status.message === 'string' && status.message !== '' ? truncate(status.message, MAX_VALUE_CHARS) : null,
    scope_name: scopeName,
    attributes: JSON.stringify(attributes),
    resource_attributes: JSON.stringify(facts.resourceAttributes),
    dropped_attributes: dropped + (Number.isSafeInteger(reportedDropped) && reportedDropped > 0 ? reportedDropped : 0),
    agent: facts.agent,
    external_system: explicit ? system : OTEL_SYSTEM,
    external_id: explicit ? externalId : traceId,
    decision_id: decisionId !== null && DECISION_ID.test(decisionId) ? decisionId : null,
    received_at: context.receivedAt,
  };
}

/**
 * Every span of the request as a row, and the spans rejected with why.
 * @example normalizeRequest(JSON.parse(body), { idEncoding: 'hex', credentialAgent: null, headerAgent: 'billing', receivedAt })
 */
export function normalizeRequest(request: OtlpRequest, context: IngestContext): NormalizedBatch {
  const batch: NormalizedBatch = { spans: [], rejected: 0, reasons: [] };
  const reject = (reason: string) => {
    batch.rejected += 1;
    if (batch.reasons.length < MAX_REASONS && !batch.reasons.includes(reason)) batch.reasons.push(reason);
  };
  list(request.resourceSpans, '/body/resourceSpans').forEach((resourceSpans, r) => {
    const rField = `/body/resourceSpans/${r}`;
    const entry = message(resourceSpans, rField);
    const facts = resourceFacts(message(entry.resource, `${rField}/resource`), `${rField}/resource`, context);
    list(entry.scopeSpans, `${rField}/scopeSpans`).forEach((scopeSpans, s) => {
      const sField = `${rField}/scopeSpans/${s}`;
      const scopeEntry = message(scopeSpans, sField);
      const scope = message(scopeEntry.scope, `${sField}/scope`);
      const scopeName = typeof scope.name === 'string' && scope.name !== '' ? truncate(scope.name, MAX_LABEL_CHARS) : null;
      list(scopeEntry.spans, `${sField}/spans`).forEach((span, i) => {
        const field = `${sField}/spans/${i}`;
        try {
          batch.spans.push(spanRow(message(span, field), field, facts, scopeName, context));
        } catch (error) {
          if (!(error instanceof SpanRejected)) throw error;
          reject(error.message);
        }
      });
    });
  });
  return batch;
}
