// Prometheus metrics: process metrics (prom-client's defaults), requests by route and status, and
// latency histograms. Labels use the route template, never the raw URL, so cardinality stays
// bounded. Hot path: a request adds to plain per-route counters (prom-client's own observe()
// validates and hashes labels on every call); the exposition text is built when scraped.
import { Registry, collectDefaultMetrics } from 'prom-client';
import { Latencies, bucketSamples, scrapedMetric } from '../lib/metrics.js';

interface RouteStats {
  method: string;
  route: string;
  latencies: Latencies;
  byStatus: Map<number, number>;
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
