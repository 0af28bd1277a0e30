// The gateway's own trace spans as the engine and the areas see them: a small interface with no
// tracing library behind it. src/infra/tracing.ts implements it over OpenTelemetry; the engine
// may import only infra/lib (.dependency-cruiser.cjs), so the pipeline takes a span through its
// GuardCall and never knows what exports it. Tracing off means no span at all: callers hold
// `TraceSpan | undefined` and every use is `span?.…`, which builds nothing when it is undefined.

/** Attribute values: ids, slugs, verdicts, rule ids, detector keys, timings and status codes; never content. */
export type SpanValue = string | number | boolean | string[];
export type SpanAttributes = Record<string, SpanValue>;

export interface ChildOptions {
  /** When the span began, as a `performance.now()` reading (a span recorded after the fact); absent: now. */
  startedAt?: number;
  /** The span is a call out of the gateway (the model upstream): span kind CLIENT. */
  client?: boolean;
}

export interface TraceSpan {
  child(name: string, attributes?: SpanAttributes, options?: ChildOptions): TraceSpan;
  set(attributes: SpanAttributes): void;
  /** Marks the span failed; `reason` is a short fixed phrase or an error class, never content. */
  fail(reason: string): void;
  /** `endedAt` as a `performance.now()` reading; absent: now. Ending twice is harmless. */
  end(endedAt?: number): void;
  /** This span as a W3C `traceparent` header value, for a call out of the gateway. */
  traceparent(): string;
}

/** Where governed requests start their server span; `undefined` when tracing is off. */
export interface GatewayTracer {
  readonly enabled: boolean;
  /**
   * The server span of one request, in the caller's trace when its `traceparent` header is valid
   * (with its `tracestate`), else at the root of a new trace.
   */
  serverSpan(name: string, headers: Readonly<Record<string, string | string[] | undefined>>, attributes?: SpanAttributes): TraceSpan | undefined;
  /** Exports what is waiting (tests, drain). */
  flush(): Promise<void>;
  /** Exports what is waiting and stops; later spans are dropped. */
  close(): Promise<void>;
}

/** Tracing off: no span is ever made. */
export const TRACING_OFF: GatewayTracer = {
  enabled: false,
  serverSpan: () => undefined,
  flush: async () => undefined,
  close: async () => undefined,
};
