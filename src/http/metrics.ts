// Prometheus metrics: process metrics (prom-client's defaults), requests by route and status, and
// latency histograms. Labels use the route template, never the raw URL, so cardinality stays
// bounded. Hot path: a request adds to plain per-route counters (prom-client's own observe()
// validates and hashes labels on every call); the exposition text is built when scraped.
import { Registry, collectDefaultMetrics, type Metric } from 'prom-client';

/** Upper bounds of the latency buckets, in seconds. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface RouteStats {
  method: string;
  route: string;
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  buckets: Float64Array;
  sumSeconds: number;
  count: number;
  byStatus: Map<number, number>;
}

interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** A metric whose samples are computed at scrape time, registered with prom-client's registry. */
function scrapedMetric(name: string, help: string, type: 'counter' | 'histogram', samples: () => Sample[]): Metric {
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
        this.routes.filter((stats) => stats.count > 0).flatMap((stats) => histogramSamples(stats)),
      ),
    );
  }

  /**
   * An observer for one route, made when the route is registered, so that a request costs a
   * bucket search and three additions.
   */
  observerFor(method: string, route: string): (statusCode: number, elapsedMs: number) => void {
    const stats: RouteStats = {
      method,
      route,
      buckets: new Float64Array(BUCKETS.length + 1),
      sumSeconds: 0,
      count: 0,
      byStatus: new Map(),
    };
    this.routes.push(stats);
    return (statusCode, elapsedMs) => {
      const seconds = elapsedMs / 1000;
      let bucket = 0;
      while (bucket < BUCKETS.length && seconds > (BUCKETS[bucket] as number)) bucket += 1;
      stats.buckets[bucket] = (stats.buckets[bucket] as number) + 1;
      stats.sumSeconds += seconds;
      stats.count += 1;
      stats.byStatus.set(statusCode, (stats.byStatus.get(statusCode) ?? 0) + 1);
    };
  }
}

function histogramSamples(stats: RouteStats): Sample[] {
  const name = 'parapet_http_request_duration_seconds';
  const labels = { method: stats.method, route: stats.route };
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
