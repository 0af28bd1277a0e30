// POST /v1/traces over HTTP with the real OpenTelemetry JS exporters (OTLP/JSON and protobuf,
// gzip), then the links to decisions: GET /api/traces/resolve and GET /api/traces/{id}/spans.
import { gzipSync } from 'node:zlib';
import { ROOT_CONTEXT, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../../test/helpers/gateway.js';
import { decodeTraceRequest, traceServiceTypes } from './protobuf.js';

/** Finished spans made by the real SDK: one root span with `attributes`, and a child when asked. */
function makeSpans(name: string, attributes: Attributes = {}, withChild = false): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('parapet-tests', '1.0.0');
  const root = tracer.startSpan(name, { attributes });
  if (withChild) {
    const child = tracer.startSpan(`${name}.child`, {}, trace.setSpan(ROOT_CONTEXT, root));
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'tool failed' });
    child.end();
  }
  root.end();
  return memory.getFinishedSpans();
}

/** Exports through a real exporter and answers the export result (0 = success). */
function exportWith(exporter: SpanExporter, spans: ReadableSpan[]): Promise<{ code: number; error?: Error }> {
  return new Promise((resolve) => exporter.export(spans, (result) => resolve(result)));
}

/** The exporters' CompressionAlgorithm.GZIP (the enum lives in a package the tests do not import). */
const GZIP = 'gzip' as NonNullable<NonNullable<ConstructorParameters<typeof ProtoExporter>[0]>['compression']>;

const exporterOptions = (gateway: TestGateway) => ({
  url: `${gateway.url}/v1/traces`,
  headers: { authorization: `Bearer ${gateway.trafficToken}`, 'x-parapet-agent': 'some-agent' },
});

async function postJson(gateway: TestGateway, body: unknown, init: { gzip?: boolean; token?: string | null; headers?: Record<string, string> } = {}) {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
  if (init.gzip === true) headers['content-encoding'] = 'gzip';
  return gateway.request('/v1/traces', {
    method: 'POST',
    headers,
    body: init.gzip === true ? gzipSync(text) : text,
    ...(init.token !== undefined ? { token: init.token } : {}),
  });
}

const hex = (bytes: number, pair: string) => pair.repeat(bytes);
const nanos = (ms: number) => String(BigInt(ms) * 1_000_000n);

/** A hand-built OTLP/JSON request with one resource, one scope and the given spans. */
function otlpJson(spans: Array<Record<string, unknown>>, resourceAttributes: Record<string, string> = {}) {
  return {
    resourceSpans: [
      {
        resource: { attributes: Object.entries(resourceAttributes).map(([key, value]) => ({ key, value: { stringValue: value } })) },
        scopeSpans: [{ scope: { name: 'hand-made' }, spans }],
      },
    ],
  };
}

function span(traceId: string, spanId: string, extra: Record<string, unknown> = {}) {
  const start = Date.parse('2026-11-21T10:00:00.000Z');
  return { traceId, spanId, name: 'step', kind: 1, startTimeUnixNano: nanos(start), endTimeUnixNano: nanos(start + 250), ...extra };
}

async function storedSpans(gateway: TestGateway, traceId: string) {
  return gateway.store.db.selectFrom('spans').selectAll().where('trace_id', '=', traceId).orderBy('name').execute();
}

async function guardWithTrace(gateway: TestGateway, traceId: string, agent = 'some-agent'): Promise<string> {
  const decision = await json(gateway.request('/v1/guard/input', { method: 'POST', json: { agent, content: 'hello there', trace_id: traceId } }));
  await gateway.app.services.recorder.flush();
  return decision.decision_id as string;
}

describe.each(DIALECTS)('OTLP trace ingest over HTTP (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('stores spans sent by the OTLP/JSON exporter, with the agent from X-Parapet-Agent', async () => {
    const spans = makeSpans('agent.run', { 'gen_ai.system': 'openai', 'app.note': 'x'.repeat(3000) }, true);
    const result = await exportWith(new JsonExporter(exporterOptions(ctx.gateway)), spans);
    expect(result.error).toBeUndefined();
    expect(result.code).toBe(0);

    const traceId = spans[0]!.spanContext().traceId;
    const rows = await storedSpans(ctx.gateway, traceId);
    expect(rows.map((row) => row.name)).toEqual(['agent.run', 'agent.run.child']);
    const [root, child] = rows as [(typeof rows)[0], (typeof rows)[0]];
    expect(root).toMatchObject({ trace_id: traceId, parent_span_id: null, kind: 'internal', status_code: 'unset', agent: 'some-agent', scope_name: 'parapet-tests' });
    expect(root).toMatchObject({ external_system: 'otel', external_id: traceId, decision_id: null });
    expect(child).toMatchObject({ parent_span_id: root.span_id, status_code: 'error', status_message: 'tool failed' });
    const attributes = JSON.parse(root.attributes) as Record<string, string>;
    expect(attributes['gen_ai.system']).toBe('openai');
    expect(attributes['app.note']).toHaveLength(1024);
    expect(JSON.parse(root.resource_attributes)['service.name']).toMatch(/^unknown_service/);
    const [seconds, nanoseconds] = spans.find((made) => made.name === 'agent.run')!.startTime;
    expect(root.start_time).toBe(new Date(seconds * 1000 + Math.floor(nanoseconds / 1e6)).toISOString());
    expect(root.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('stores spans sent by the protobuf exporter, gzip-compressed, and resolves them to the decision with the same trace id', async () => {
    const spans = makeSpans('agent.proto', { 'parapet.external.system': 'langgraph', 'parapet.external.id': 'run-42' });
    const traceId = spans[0]!.spanContext().traceId;
    const exporter = new ProtoExporter({ ...exporterOptions(ctx.gateway), compression: GZIP });
    const result = await exportWith(exporter, spans);
    expect(result.error).toBeUndefined();
    expect(result.code).toBe(0);
    const [row] = await storedSpans(ctx.gateway, traceId);
    expect(row).toMatchObject({ name: 'agent.proto', span_id: spans[0]!.spanContext().spanId, agent: 'some-agent', external_system: 'langgraph', external_id: 'run-42' });

    const decisionId = await guardWithTrace(ctx.gateway, traceId);
    const byTrace = await json(ctx.gateway.request(`/api/traces/resolve?system=otel&external_id=${traceId}`));
    expect(byTrace).toEqual({ system: 'otel', external_id: traceId, trace_id: traceId, trace_ids: [traceId], decision_ids: [decisionId], spans: 1 });
    const byRun = await json(ctx.gateway.request('/api/traces/resolve?system=langgraph&external_id=run-42'));
    expect(byRun).toEqual({ system: 'langgraph', external_id: 'run-42', trace_id: traceId, trace_ids: [traceId], decision_ids: [decisionId], spans: 1 });

    const listed = await json(ctx.gateway.request(`/api/traces/${decisionId}/spans`));
    expect(listed.items.map((item: { span_id: string }) => item.span_id)).toEqual([row!.span_id]);
    expect(listed.items[0]).toMatchObject({ trace_id: traceId, external_system: 'langgraph', attributes: { 'parapet.external.id': 'run-42' } });
    expect(listed.next_cursor).toBeNull();
  });

  it('links a span to the decision recorded before it arrived, and to one it names in parapet.decision_id', async () => {
    const traceId = hex(16, 'a1');
    const before = await guardWithTrace(ctx.gateway, traceId);
    const named = await guardWithTrace(ctx.gateway, 'unrelated-run');
    const response = await postJson(ctx.gateway, otlpJson([
      span(traceId, hex(8, 'b1')),
      span(traceId, hex(8, 'b2'), { attributes: [{ key: 'parapet.decision_id', value: { stringValue: named } }] }),
    ]));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    const rows = await storedSpans(ctx.gateway, traceId);
    expect(Object.fromEntries(rows.map((row) => [row.span_id, row.decision_id]))).toEqual({ [hex(8, 'b1')]: before, [hex(8, 'b2')]: named });
    const resolved = await json(ctx.gateway.request(`/api/traces/resolve?system=otel&external_id=${traceId}`));
    expect(resolved.decision_ids).toEqual([named, before]);
    const ofNamed = await json(ctx.gateway.request(`/api/traces/${named}/spans`));
    expect(ofNamed.items.map((item: { span_id: string }) => item.span_id)).toEqual([hex(8, 'b2')]);
  });

  it('resolves a run that sent guard calls with its own id as trace_id but no spans, and answers 404 when nothing matches', async () => {
    const decisionId = await guardWithTrace(ctx.gateway, 'crew-run-7');
    const resolved = await json(ctx.gateway.request('/api/traces/resolve?system=crewai&external_id=crew-run-7'));
    expect(resolved).toEqual({ system: 'crewai', external_id: 'crew-run-7', trace_id: 'crew-run-7', trace_ids: ['crew-run-7'], decision_ids: [decisionId], spans: 0 });
    const missing = await ctx.gateway.request('/api/traces/resolve?system=langgraph&external_id=never-seen');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await ctx.gateway.request('/api/traces/resolve?system=otel')).status).toBe(400);
    expect((await ctx.gateway.request('/api/traces/dec_00000000000000000000000000/spans')).status).toBe(404);
  });

  it('takes the agent from parapet.agent, then service.name, and refuses a resource naming another agent than the header', async () => {
    const traceId = hex(16, 'c1');
    const viaResource = await postJson(ctx.gateway, otlpJson([span(traceId, hex(8, 'c1'))], { 'parapet.agent': 'planner', 'service.name': 'svc' }));
    expect(viaResource.status).toBe(200);
    await postJson(ctx.gateway, otlpJson([span(traceId, hex(8, 'c2'))], { 'service.name': 'svc' }));
    const rows = await storedSpans(ctx.gateway, traceId);
    expect(rows.map((row) => row.agent)).toEqual(['planner', 'svc']);

    const conflicting = await postJson(ctx.gateway, otlpJson([span(traceId, hex(8, 'c3'))], { 'parapet.agent': 'planner' }), {
      headers: { 'x-parapet-agent': 'billing' },
    });
    expect(conflicting.status).toBe(200);
    const answer = await json(conflicting);
    expect(answer.partialSuccess.rejectedSpans).toBe('1');
    expect(answer.partialSuccess.errorMessage).toContain('parapet.agent names planner');
    expect(await storedSpans(ctx.gateway, traceId)).toHaveLength(2);
  });

  it('answers partialSuccess for spans with bad ids and keeps the good ones; a re-sent span changes nothing', async () => {
    const traceId = hex(16, 'd1');
    const body = otlpJson([
      span(traceId, hex(8, 'd1')),
      span('not-hex', hex(8, 'd2')),
      span(traceId, hex(8, '00')),
      span(traceId, hex(8, 'd3'), { startTimeUnixNano: undefined }),
    ]);
    const response = await postJson(ctx.gateway, body, { gzip: true });
    expect(response.status).toBe(200);
    const answer = await json(response);
    expect(answer.partialSuccess.rejectedSpans).toBe('3');
    expect(answer.partialSuccess.errorMessage).toMatch(/traceId is not 16 bytes of hex.*spanId is all zeros.*startTimeUnixNano is missing/);
    const first = await storedSpans(ctx.gateway, traceId);
    expect(first).toHaveLength(1);

    const again = await postJson(ctx.gateway, otlpJson([span(traceId, hex(8, 'd1'), { name: 'renamed' })]));
    expect(again.status).toBe(200);
    expect(await storedSpans(ctx.gateway, traceId)).toEqual(first);
  });

  it('answers a protobuf request in protobuf, with partialSuccess when spans were rejected', async () => {
    const good = Buffer.from(hex(16, 'e1'), 'hex').toString('base64');
    const request = {
      resourceSpans: [{ scopeSpans: [{ spans: [span(good, Buffer.from(hex(8, 'e1'), 'hex').toString('base64')), span(good, 'AAAA')] }] }],
    };
    // Encodes with the same published definitions the gateway decodes with (the OTel exporter
    // tests above send what the SDK encodes).
    const Request = traceServiceTypes.request;
    const bytes = Request.encode(Request.fromObject(request)).finish();
    expect(decodeTraceRequest(bytes).resourceSpans).toHaveLength(1);
    const response = await ctx.gateway.request('/v1/traces', { method: 'POST', headers: { 'content-type': 'application/x-protobuf', 'x-parapet-agent': 'some-agent' }, body: bytes });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-protobuf');
    const answer = Buffer.from(await response.arrayBuffer());
    const Response = traceServiceTypes.response;
    const decoded = Response.toObject(Response.decode(answer), { longs: String }) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
    expect(decoded.partialSuccess.rejectedSpans).toBe('1');
    expect(decoded.partialSuccess.errorMessage).toContain('spanId is not 8 bytes');
    expect(await storedSpans(ctx.gateway, hex(16, 'e1'))).toHaveLength(1);
  });

  it('refuses malformed JSON, malformed protobuf, a bad structure and a bad gzip body with 400 problem+json', async () => {
    const send = (body: string | Uint8Array, headers: Record<string, string>) => ctx.gateway.request('/v1/traces', { method: 'POST', headers, body });
    const cases: Array<[string, Response]> = [
      ['malformed JSON', await send('{"resourceSpans": [', { 'content-type': 'application/json' })],
      ['malformed protobuf', await send(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]), { 'content-type': 'application/x-protobuf' })],
      ['wrong type', await send(JSON.stringify({ resourceSpans: 'nope' }), { 'content-type': 'application/json' })],
      ['bad nesting', await send(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: 'nope' }] }] }), { 'content-type': 'application/json' })],
      ['not gzip', await send('{"resourceSpans": []}', { 'content-type': 'application/json', 'content-encoding': 'gzip' })],
    ];
    for (const [name, response] of cases) {
      expect({ name, status: response.status }).toEqual({ name, status: 400 });
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await json(response)).type).toBe('urn:parapet:problem:invalid-request');
    }
    const nested = await json(send(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: 'nope' }] }] }), { 'content-type': 'application/json' }));
    expect(nested.errors).toEqual([{ field: '/body/resourceSpans/0/scopeSpans/0/spans', message: 'must be an array' }]);
    const brotli = await send('{}', { 'content-type': 'application/json', 'content-encoding': 'br' });
    expect(brotli.status).toBe(415);
    // A few kilobytes that inflate past the 8 MB limit: the limit counts inflated bytes.
    const bomb = gzipSync(`{"resourceSpans": [], "padding": "${'x'.repeat(9 * 1_048_576)}"}`);
    expect(bomb.length).toBeLessThan(100_000);
    const inflated = await send(bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(inflated.status).toBe(413);
    expect(inflated.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('refuses a request without a credential (401) and an operator token (403); an agent credential speaks only for itself', async () => {
    const spans = makeSpans('unauthorised');
    const noCredential = await exportWith(new JsonExporter({ url: `${ctx.gateway.url}/v1/traces` }), spans);
    expect(noCredential.code).toBe(1);
    const raw = await postJson(ctx.gateway, otlpJson([]), { token: null });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await postJson(ctx.gateway, otlpJson([]), { token: ctx.gateway.adminToken })).status).toBe(403);

    const minted = await ctx.gateway.app.services.credentials.mint({ identityId: 'idn_otlp', agentSlug: 'tracer-bot', ttlDays: 1 }, 'test');
    const traceId = hex(16, 'f1');
    const own = await postJson(ctx.gateway, otlpJson([span(traceId, hex(8, 'f1'))], { 'service.name': 'other' }), { token: minted.credential });
    expect(own.status).toBe(200);
    expect((await storedSpans(ctx.gateway, traceId))[0]?.agent).toBe('tracer-bot');
    const other = await postJson(ctx.gateway, otlpJson([]), { token: minted.credential, headers: { 'x-parapet-agent': 'someone-else' } });
    expect(other.status).toBe(403);
  });

  it('accepts an empty export', async () => {
    const response = await postJson(ctx.gateway, {});
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
  });
});
