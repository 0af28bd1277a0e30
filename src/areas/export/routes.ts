// GET /api/export/siem (viewer): findings for a SIEM in the format it reads.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ExportSiemQuery, FindingEventSchema, OcsfFindingSchema } from './schemas.js';
import type { Reports } from '../../infra/store/reader.js';
import type { EXPORT_REPORT_JOBS } from './report-jobs.js';

export const exportRoutes: FastifyPluginAsyncTypebox<{ reports: Reports<typeof EXPORT_REPORT_JOBS> }> = async (app, { reports }) => {
  app.get(
    '/api/export/siem',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['export'],
        summary: 'Findings seen in the last since_days as SIEM events, newest first',
        querystring: ExportSiemQuery,
        response: {
          200: {
            description: 'jsonl: one finding event per line; json: an array of them; cef: one CEF line per finding; ocsf: an array of OCSF Detection Findings',
            content: {
              'application/x-ndjson': { schema: Type.String({ description: 'one JSON finding event per line' }) },
              'application/json': { schema: Type.Union([Type.Array(FindingEventSchema), Type.Array(OcsfFindingSchema)]) },
              'text/plain': { schema: Type.String({ description: 'CEF:0|Parapet|Parapet|<version>|<type>|<title>|<severity>|<extension> per line' }) },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const { contentType, body } = await reports.run('export.siem', request.query);
      return reply.type(contentType).send(body);
    },
  );
};
