// GET /api/obligations.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ObligationsQuery, ObligationsSchema } from './schemas.js';
import type { ObligationsService } from './service.js';

export const obligationRoutes: FastifyPluginAsyncTypebox<{ obligations: ObligationsService }> = async (app, { obligations }) => {
  app.get(
    '/api/obligations',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['compliance'],
        summary: "Dated obligations: the frameworks' application dates and what the deployment's records make due, overdue first",
        querystring: ObligationsQuery,
        response: { 200: ObligationsSchema },
      },
    },
    async (request) => obligations.list(request.query),
  );
};
