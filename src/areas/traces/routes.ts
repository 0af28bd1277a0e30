// GET /api/traces, /api/traces/{trace_id} and /api/metrics/summary|errors|rules|breakdown (viewer);
// everything but one trace by id runs in a report reader thread (src/store/reader.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ReportReader } from '../../infra/store/reader.js';
import {
  BreakdownQuery,
  BreakdownSchema,
  ErrorsSchema,
  ListTracesQuery,
  MetricsQuery,
  RuleMetricsSchema,
  SummarySchema,
  TraceIdParams,
  TraceList,
  TraceSchema,
} from './schemas.js';
import type { TraceService } from './service.js';

export const traceRoutes: FastifyPluginAsyncTypebox<{ traces: TraceService; reports: ReportReader }> = async (app, { traces, reports }) => {
  app.get(
    '/api/traces',
    {
      config: { access: 'viewer' },
      schema: { tags: ['traces'], summary: 'Recorded decisions, newest first, with filters', querystring: ListTracesQuery, response: { 200: TraceList } },
    },
    // A search with filters on the JSON columns can read every decision: it runs in a reader thread.
    async (request) => reports.run('traces.search', request.query),
  );

  app.get(
    '/api/traces/:trace_id',
    {
      config: { access: 'viewer' },
      schema: { tags: ['traces'], summary: 'One recorded decision by its decision id', params: TraceIdParams, response: { 200: TraceSchema } },
    },
    async (request) => traces.get(request.params.trace_id),
  );

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
