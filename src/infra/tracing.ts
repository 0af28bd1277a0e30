// Self-tracing (issue 23): the gateway's own OpenTelemetry spans for each governed call, sent in
// batches to an OTLP/HTTP collector (`otel_traces_endpoint`). Off by default; off, the tracer is
// TRACING_OFF and no span object is ever made. On, a span costs a few allocations and no await:
// the BatchSpanProcessor exports in the background and drops spans when its queue is full rather
// than grow. The engine sees only the TraceSpan interface of infra/lib (its layer rule forbids
// anything else), through the span a route puts on its GuardCall.
//
// The collector is the deployment's own (a setting in the config file or the environment, never
// an API input), usually on a private address (http://collector:4318): the exporter calls it
// directly rather than through infra/http/outbound.ts, whose policy is for URLs operators enter
// through the API. Credentials for a hosted collector come from the standard
// OTEL_EXPORTER_OTLP_TRACES_HEADERS / OTEL_EXPORTER_OTLP_HEADERS variables, read by the exporter.
import { createTraceState, isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TRACING_OFF, type ChildOptions, type GatewayTracer, type SpanAttributes, type TraceSpan } from './lib/trace-span.js';

export { TRACING_OFF, type GatewayTracer, type TraceSpan } from './lib/trace-span.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span (traceRequests); undefined when tracing is off or the route is not traced. */
    traceSpan: TraceSpan | undefined;
  }
}

export interface TracingSettings {
  /** An OTLP/HTTP traces URL; null: tracing off. */
  otel_traces_endpoint: string | null;
  otel_service_name: string;
  /** The share of new traces sampled; a caller's traceparent decides for the traces it started. */
  otel_sample_ratio: number;
}

export interface TracerOptions {
  /** Called when a batch could not be exported (at most once a minute); its spans are dropped. */
  onExportError?: (error: Error) => void;
}

/** Spans waiting for export at most; past it new spans are dropped (memory stays bounded). */
const MAX_QUEUE = 4096;
const BATCH = 512;
const EXPORT_TIMEOUT_MS = 10_000;
const EXPORT_ERROR_EVERY_MS = 60_000;
/** A caller's tracestate longer than this is ignored (W3C allows 512 characters of members). */
const MAX_TRACESTATE_CHARS = 1024;

/** The tracer for these settings: TRACING_OFF without an endpoint. */
export function createTracer(settings: TracingSettings, options: TracerOptions = {}): GatewayTracer {
  const endpoint = settings.otel_traces_endpoint;
  if (endpoint === null) return TRACING_OFF;
  return new OtelTracer(new ReportingExporter(new OTLPTraceExporter({ url: endpoint, timeoutMillis: EXPORT_TIMEOUT_MS }), options.onExportError), settings);
}

/** The exporter with failures reported (the SDK alone would only tell its diagnostic logger). */
class ReportingExporter implements SpanExporter {
  private lastReportMs = -Infinity;

  constructor(
    private readonly inner: SpanExporter,
    private readonly onError: ((error: Error) => void) | undefined,
  ) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.inner.export(spans, (result) => {
      if (result.code !== 0 && this.onError !== undefined && Date.now() - this.lastReportMs >= EXPORT_ERROR_EVERY_MS) {
        this.lastReportMs = Date.now();
        this.onError(result.error ?? new Error(`exporting ${spans.length} spans failed`));
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

class OtelTracer implements GatewayTracer {
  readonly enabled = true;
  private readonly provider: BasicTracerProvider;
  private readonly tracer: Tracer;
  private closing: Promise<void> | undefined;

  constructor(exporter: SpanExporter, settings: TracingSettings) {
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': settings.otel_service_name }),
      // A caller's sampling decision holds for its trace; traces the gateway starts follow the ratio.
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.otel_sample_ratio) }),
      spanProcessors: [
        // Exported every 5 s (the processor's default) or as soon as a batch is full.
        new BatchSpanProcessor(exporter, { maxQueueSize: MAX_QUEUE, maxExportBatchSize: BATCH, exportTimeoutMillis: EXPORT_TIMEOUT_MS }),
      ],
    });
    // The provider is this gateway's own, never registered globally: several gateways (tests) or
    // an application's own SDK in the same process each keep theirs.
    this.tracer = this.provider.getTracer('parapet');
  }

  serverSpan(name: string, headers: Readonly<Record<string, string | string[] | undefined>>, attributes?: SpanAttributes): TraceSpan {
    const span = this.tracer.startSpan(name, { kind: SpanKind.SERVER, ...(attributes === undefined ? {} : { attributes }) }, callerContext(headers));
    return new OtelSpan(this.tracer, span);
  }

  async flush(): Promise<void> {
    if (this.closing === undefined) await this.provider.forceFlush();
  }

  close(): Promise<void> {
    this.closing ??= this.provider.shutdown();
    return this.closing;
  }
}

/** `performance.now()` readings as the epoch milliseconds OpenTelemetry takes. */
const epochMs = (at: number): number => performance.timeOrigin + at;

class OtelSpan implements TraceSpan {
  private context: Context | undefined;

  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
  ) {}

  child(name: string, attributes?: SpanAttributes, options?: ChildOptions): TraceSpan {
    this.context ??= trace.setSpan(ROOT_CONTEXT, this.span);
    const span = this.tracer.startSpan(
      name,
      {
        kind: options?.client === true ? SpanKind.CLIENT : SpanKind.INTERNAL,
        ...(attributes === undefined ? {} : { attributes }),
        ...(options?.startedAt === undefined ? {} : { startTime: epochMs(options.startedAt) }),
      },
      this.context,
    );
    return new OtelSpan(this.tracer, span);
  }

  set(attributes: SpanAttributes): void {
    this.span.setAttributes(attributes);
  }

  fail(reason: string): void {
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
  }

  end(endedAt?: number): void {
    if (this.span.isRecording()) this.span.end(endedAt === undefined ? undefined : epochMs(endedAt));
  }

  traceparent(): string {
    const { traceId, spanId, traceFlags } = this.span.spanContext();
    return `00-${traceId}-${spanId}-${(traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00'}`;
  }
}

const TRACEPARENT_V00_LENGTH = 55;
/** Fixed-length fields only: nothing here can backtrack. */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The caller's span as the parent of ours, from its W3C `traceparent` (and `tracestate`); the root
 * context when there is none or it is malformed (W3C Trace Context §3.2: then a new trace starts).
 */
function callerContext(headers: Readonly<Record<string, string | string[] | undefined>>): Context {
  const header = headers.traceparent;
  if (typeof header !== 'string') return ROOT_CONTEXT;
  const value = header.trim();
  if (value.length < TRACEPARENT_V00_LENGTH) return ROOT_CONTEXT;
  const version = value.slice(0, 2);
  // Version 00 is exactly 55 characters; a later version may append fields after a dash; ff is invalid.
  if (version === 'ff' || (version === '00' ? value.length !== TRACEPARENT_V00_LENGTH : value.length > TRACEPARENT_V00_LENGTH && value[TRACEPARENT_V00_LENGTH] !== '-')) return ROOT_CONTEXT;
  const fields = value.slice(0, TRACEPARENT_V00_LENGTH);
  if (!TRACEPARENT.test(fields)) return ROOT_CONTEXT;
  const spanContext = {
    traceId: fields.slice(3, 35),
    spanId: fields.slice(36, 52),
    traceFlags: Number.parseInt(fields.slice(53, 55), 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  // All-zero ids are invalid.
  if (!isSpanContextValid(spanContext)) return ROOT_CONTEXT;
  const state = headers.tracestate;
  const traceState = typeof state === 'string' && state.length <= MAX_TRACESTATE_CHARS ? createTraceState(state) : undefined;
  return trace.setSpanContext(ROOT_CONTEXT, traceState === undefined ? spanContext : { ...spanContext, traceState });
}

/**
 * A server span for every request of the routes registered in `app` (one plugin's encapsulated
 * context), named `METHOD /route/{template}`, ended when the answer is sent with its status code.
 * Nothing is registered when tracing is off. Routes add the agent once they know it.
 */
export function traceRequests(app: FastifyInstance, tracer: GatewayTracer): void {
  if (!tracer.enabled) return;
  app.decorateRequest('traceSpan', undefined);
  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    const route = request.routeOptions.url ?? 'unknown';
    request.traceSpan = tracer.serverSpan(`${request.method} ${route}`, request.headers, {
      'http.request.method': request.method,
      'http.route': route,
      'parapet.request_id': request.id,
    });
    done();
  });
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const span = request.traceSpan;
    if (span !== undefined) {
      span.set({ 'http.response.status_code': reply.statusCode });
      if (reply.statusCode >= 500) span.fail(`status ${reply.statusCode}`);
      span.end();
    }
    done();
  });
}
