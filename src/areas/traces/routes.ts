// GET /api/traces and /api/traces/{trace_id} (viewer); the search runs in a report reader thread
// (src/infra/store/reader.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Reports } from '../../infra/store/reader.js';
import type { TRACE_REPORT_JOBS } from './report-jobs.js';
import { ListTracesQuery, TraceIdParams, TraceList, TraceSchema } from './schemas.js';
import type { TraceService } from './service.js';

export const traceRoutes: FastifyPluginAsyncTypebox<{ traces: TraceService; reports: Reports<typeof TRACE_REPORT_JOBS> }> = async (app, { traces, reports }) => {
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
};
