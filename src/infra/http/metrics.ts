// Prometheus metrics: process metrics (prom-client's defaults), requests by route and status, and
// latency histograms. Labels use the route template, never the raw URL, so cardinality stays
// bounded. Hot path: a request adds to plain per-route counters (prom-client's own observe()
// validates and hashes labels on every call); the exposition text is built when scraped.
import { Registry, collectDefaultMetrics, type Metric } from 'prom-client';

/** Upper bounds of the latency buckets, in seconds. */
export const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** A latency distribution kept as plain per-bucket counts (not cumulative; the last slot is +Inf). */
export class Latencies {
  readonly buckets = new Float64Array(BUCKETS.length + 1);
  sumSeconds = 0;
  count = 0;

  add(seconds: number): void {
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > (BUCKETS[bucket] as number)) bucket += 1;
    this.buckets[bucket] = (this.buckets[bucket] as number) + 1;
    this.sumSeconds += seconds;
    this.count += 1;
  }
}

interface RouteStats {
  method: string;
  route: string;
  latencies: Latencies;
  byStatus: Map<number, number>;
}

export interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** A metric whose samples are computed at scrape time, registered with prom-client's registry. */
export function scrapedMetric(name: string, help: string, type: 'counter' | 'histogram', samples: () => Sample[]): Metric {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: samples() }),
    reset: () => undefined,
  };
  return metric as unknown as Metric;
}

/** The gateway's own metrics registry (served at GET /metrics). */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly routes: RouteStats[] = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'parapet_' });
    this.registry.registerMetric(
      scrapedMetric('parapet_http_requests_total', 'HTTP requests by method, route template and status code', 'counter', () =>
        this.routes.flatMap((stats) =>
          [...stats.byStatus].map(([status, value]) => ({
            labels: { method: stats.method, route: stats.route, status: String(status) },
            value,
          })),
        ),
      ),
    );
    this.registry.registerMetric(
      scrapedMetric('parapet_http_request_duration_seconds', 'HTTP request latency by method and route template', 'histogram', () =>
        this.routes
          .filter((stats) => stats.latencies.count > 0)
          .flatMap((stats) =>
            bucketSamples('parapet_http_request_duration_seconds', { method: stats.method, route: stats.route }, stats.latencies),
          ),
      ),
    );
  }

  /**
   * An observer for one route, made when the route is registered, so that a request costs a
   * bucket search and three additions.
   */
  observerFor(method: string, route: string): (statusCode: number, elapsedMs: number) => void {
    const stats: RouteStats = { method, route, latencies: new Latencies(), byStatus: new Map() };
    this.routes.push(stats);
    return (statusCode, elapsedMs) => {
      stats.latencies.add(elapsedMs / 1000);
      stats.byStatus.set(statusCode, (stats.byStatus.get(statusCode) ?? 0) + 1);
    };
  }
}

/** Prometheus histogram samples (cumulative buckets, sum, count) from plain per-bucket counts. */
export function bucketSamples(
  name: string,
  labels: Record<string, string>,
  stats: { buckets: Float64Array; sumSeconds: number; count: number },
): Sample[] {
  const samples: Sample[] = [];
  let cumulative = 0;
  BUCKETS.forEach((bound, index) => {
    cumulative += stats.buckets[index] as number;
    samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: bound }, value: cumulative });
  });
  samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: stats.count });
  samples.push({ metricName: `${name}_sum`, labels, value: stats.sumSeconds });
  samples.push({ metricName: `${name}_count`, labels, value: stats.count });
  return samples;
}
