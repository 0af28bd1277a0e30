// A fake OpenTelemetry collector on 127.0.0.1 (plain node:http): accepts OTLP/HTTP JSON trace
// exports on POST /v1/traces, keeps every request as it came (headers, parsed body) and answers
// success. Spans come back flattened, with their resource attributes, for assertions.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  status: { code?: number; message?: string };
}

interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}

/** An OTLP/JSON AnyValue as a plain value. */
function plain(value: Record<string, unknown>): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value) return ((value.arrayValue as { values?: Array<Record<string, unknown>> }).values ?? []).map(plain);
  return value;
}

const attributesOf = (list: OtlpAttribute[] | undefined): Record<string, unknown> => Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));

export class FakeOtlpCollector {
  readonly requests: Array<{ path: string; headers: IncomingHttpHeaders; body: any }> = [];
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: unknown = null;
        try {
          body = JSON.parse(text || '{}');
        } catch {
          body = { unparsed: text.length };
        }
        this.requests.push({ path: request.url ?? '', headers: request.headers, body });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  /** Every span received so far. */
  spans(): CollectedSpan[] {
    const spans: CollectedSpan[] = [];
    for (const { body } of this.requests) {
      for (const resourceSpans of body?.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
          for (const span of scopeSpans.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              resource,
              status: span.status ?? {},
            });
          }
        }
      }
    }
    return spans;
  }

  reset(): void {
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
