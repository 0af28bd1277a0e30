// Prometheus metrics: process metrics, requests by route and status, latency histograms. Labels use
// the route template, never the raw URL, so cardinality stays bounded.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
  }
}

export const metricsPlugin = fp(
  async (app: FastifyInstance) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: 'parapet_' });
    const requests = new Counter({
      name: 'parapet_http_requests_total',
      help: 'HTTP requests by method, route template and status code',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    });
    const latency = new Histogram({
      name: 'parapet_http_request_duration_seconds',
      help: 'HTTP request latency by method and route template',
      labelNames: ['method', 'route'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    app.decorate('metrics', registry);

    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      requests.inc({ method: request.method, route, status: String(reply.statusCode) });
      latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
      done();
    });
  },
  { name: 'parapet-metrics' },
);
