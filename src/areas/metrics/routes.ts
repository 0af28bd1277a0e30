// GET /api/metrics/summary|errors|rules|breakdown (viewer): each runs in a report reader thread
// (src/infra/store/reader.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Reports } from '../../infra/store/reader.js';
import type { METRICS_REPORT_JOBS } from './report-jobs.js';
import { BreakdownQuery, BreakdownSchema, ErrorsSchema, MetricsQuery, RuleMetricsSchema, SummarySchema } from './schemas.js';

export const metricsRoutes: FastifyPluginAsyncTypebox<{ reports: Reports<typeof METRICS_REPORT_JOBS> }> = async (app, { reports }) => {
  const tags = ['metrics'];
  app.get(
    '/api/metrics/summary',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Decisions, verdicts, rates, latency percentiles, degraded checks and findings opened in a range', querystring: MetricsQuery, response: { 200: SummarySchema } },
    },
    async (request) => reports.run('metrics.summary', request.query),
  );
  app.get(
    '/api/metrics/errors',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Degraded decisions by detector and status, and budget_breach findings', querystring: MetricsQuery, response: { 200: ErrorsSchema } },
    },
    async (request) => reports.run('metrics.errors', request.query),
  );
  app.get(
    '/api/metrics/rules',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Per rule: how often it fired, by effect and mode, and when last', querystring: MetricsQuery, response: { 200: RuleMetricsSchema } },
    },
    async (request) => reports.run('metrics.rules', request.query),
  );
  app.get(
    '/api/metrics/breakdown',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Decisions counted per value of one dimension, with blocks', querystring: BreakdownQuery, response: { 200: BreakdownSchema } },
    },
    async (request) => reports.run('metrics.breakdown', request.query),
  );
};
