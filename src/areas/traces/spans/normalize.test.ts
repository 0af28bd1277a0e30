// The OTLP normalizer on its own: bounds on attributes, value conversion, id encodings, agent and
// external-id mapping, and the protobuf round trip through the published definitions.
import { describe, expect, it } from 'vitest';
import { Problem } from '../../../infra/http/problems.js';
import { MAX_ATTRIBUTES, normalizeRequest, type IngestContext } from './normalize.js';
import { decodeTraceRequest, encodeTraceResponse, traceServiceTypes } from './protobuf.js';

const TRACE = '5b8efff798038103d269b633813fc60c';
const SPAN = 'eee19b7ec3c1b174';
const context: IngestContext = { idEncoding: 'hex', credentialAgent: null, headerAgent: null, receivedAt: '2026-11-21T12:00:00.000Z' };

const kv = (key: string, value: Record<string, unknown>) => ({ key, value });
const request = (span: Record<string, unknown>, resource: unknown[] = []) => ({
  resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ spans: [{ traceId: TRACE, spanId: SPAN, startTimeUnixNano: '1763726400000000000', ...span }] }] }],
});
const only = (span: Record<string, unknown>, resource: unknown[] = [], ctx: IngestContext = context) => {
  const batch = normalizeRequest(request(span, resource), ctx);
  expect(batch.rejected).toBe(0);
  return batch.spans[0]!;
};

describe('normalizeRequest', () => {
  it('keeps the first 128 attributes, cuts values to 1 KB and counts what it dropped', () => {
    const many = Array.from({ length: MAX_ATTRIBUTES + 10 }, (_, index) => kv(`k${index}`, { stringValue: 'v' }));
    const row = only({ attributes: [...many, kv('long', { stringValue: 'y'.repeat(5000) })], droppedAttributesCount: 2 });
    const attributes = JSON.parse(row.attributes) as Record<string, unknown>;
    expect(Object.keys(attributes)).toHaveLength(MAX_ATTRIBUTES);
    expect(attributes.k127).toBe('v');
    expect(attributes.k128).toBeUndefined();
    expect(row.dropped_attributes).toBe(13);
    const big = only({ attributes: [kv('list', { arrayValue: { values: Array.from({ length: 100 }, () => ({ stringValue: 'abcdefghijklmnop' })) } })] });
    expect((JSON.parse(big.attributes) as { list: string }).list).toHaveLength(1024);
  });

  it('turns AnyValues into JSON: int64 text, doubles, booleans, bytes, arrays and key-value lists', () => {
    const row = only({
      attributes: [
        kv('small', { intValue: '42' }),
        kv('huge', { intValue: '9223372036854775807' }),
        kv('ratio', { doubleValue: 0.5 }),
        kv('nan', { doubleValue: 'NaN' }),
        kv('flag', { boolValue: true }),
        kv('raw', { bytesValue: 'AQID' }),
        kv('tags', { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 1 }] } }),
        kv('nested', { kvlistValue: { values: [kv('inner', { stringValue: 'x' })] } }),
      ],
    });
    expect(JSON.parse(row.attributes)).toEqual({
      small: 42,
      huge: '9223372036854775807',
      ratio: 0.5,
      nan: 'NaN',
      flag: true,
      raw: 'AQID',
      tags: ['a', 1],
      nested: { inner: 'x' },
    });
  });

  it('reads times, kinds and statuses given as numbers or as enum names', () => {
    const row = only({ endTimeUnixNano: 1763726400250000000, kind: 'SPAN_KIND_CLIENT', status: { code: 2, message: 'boom' } });
    expect(row).toMatchObject({ start_time: '2025-11-21T12:00:00.000Z', kind: 'client', status_code: 'error', status_message: 'boom' });
    // A JSON number this large has lost its last digits on the way: it still names the right time to the millisecond or so.
    expect(row.end_time).toMatch(/^2025-11-21T12:00:00\.2(49|50)Z$/);
    expect(row.duration_ms).toBeCloseTo(250, 0);
  });

  it('maps the external run id from the span, then its resource, else the trace id under otel', () => {
    expect(only({})).toMatchObject({ external_system: 'otel', external_id: TRACE });
    const fromSpan = only({ attributes: [kv('parapet.external.system', { stringValue: 'langgraph' }), kv('parapet.external.id', { stringValue: 'run-1' })] });
    expect(fromSpan).toMatchObject({ external_system: 'langgraph', external_id: 'run-1' });
    const fromResource = only({}, [kv('parapet.external.system', { stringValue: 'crewai' }), kv('parapet.external.id', { stringValue: 'crew-9' })]);
    expect(fromResource).toMatchObject({ external_system: 'crewai', external_id: 'crew-9' });
    // A system without an id is no mapping.
    expect(only({ attributes: [kv('parapet.external.system', { stringValue: 'langgraph' })] })).toMatchObject({ external_system: 'otel' });
  });

  it('names the agent by credential, then header, then parapet.agent, then service.name', () => {
    const resource = [kv('parapet.agent', { stringValue: 'planner' }), kv('service.name', { stringValue: 'svc' })];
    expect(only({}, resource).agent).toBe('planner');
    expect(only({}, [kv('service.name', { stringValue: 'svc' })]).agent).toBe('svc');
    expect(only({}, [kv('service.name', { stringValue: 'svc' })], { ...context, headerAgent: 'billing' }).agent).toBe('billing');
    expect(only({}, [kv('parapet.agent', { stringValue: 'bot' })], { ...context, credentialAgent: 'bot' }).agent).toBe('bot');
    const refused = normalizeRequest(request({}, resource), { ...context, credentialAgent: 'bot' });
    expect(refused).toMatchObject({ spans: [], rejected: 1 });
  });

  it('keeps only a well-formed parapet.decision_id', () => {
    expect(only({ attributes: [kv('parapet.decision_id', { stringValue: 'dec_01jd0000000000000000000000' })] }).decision_id).toBe('dec_01jd0000000000000000000000');
    expect(only({ attributes: [kv('parapet.decision_id', { stringValue: 'not-an-id' })] }).decision_id).toBeNull();
  });

  it('refuses a request whose structure is wrong, naming the field', () => {
    expect(() => normalizeRequest({ resourceSpans: [{ scopeSpans: 'x' }] }, context)).toThrow(Problem);
    expect(() => normalizeRequest({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: TRACE, attributes: {} }] }] }] }, context)).toThrow(
      /resourceSpans\/0\/scopeSpans\/0\/spans\/0\/attributes must be an array/,
    );
  });
});

describe('protobuf encoding', () => {
  const v1 = { ExportTraceServiceRequest: traceServiceTypes.request, ExportTraceServiceResponse: traceServiceTypes.response };

  it('decodes ids as base64 that the normalizer reads as bytes', () => {
    const message = v1.ExportTraceServiceRequest.fromObject({
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: Buffer.from(TRACE, 'hex'), spanId: Buffer.from(SPAN, 'hex'), name: 'n', startTimeUnixNano: '1763726400000000000' }] }] }],
    });
    const decoded = decodeTraceRequest(v1.ExportTraceServiceRequest.encode(message).finish());
    const batch = normalizeRequest(decoded, { ...context, idEncoding: 'base64' });
    expect(batch.spans[0]).toMatchObject({ trace_id: TRACE, span_id: SPAN, name: 'n', start_time: '2025-11-21T12:00:00.000Z' });
  });

  it('answers an empty response for full success and partialSuccess otherwise', () => {
    expect(encodeTraceResponse(0, '')).toHaveLength(0);
    const partial = v1.ExportTraceServiceResponse.toObject(v1.ExportTraceServiceResponse.decode(encodeTraceResponse(3, 'bad ids')), { longs: String });
    expect(partial).toEqual({ partialSuccess: { rejectedSpans: '3', errorMessage: 'bad ids' } });
  });

  it('refuses bytes that are not an ExportTraceServiceRequest', () => {
    expect(() => decodeTraceRequest(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]))).toThrow(/not a protobuf ExportTraceServiceRequest/);
  });
});
