// GET /api/coverage/threats.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CoverageQuery, CoverageSchema } from './schemas.js';
import type { CoverageService } from './service.js';

export const coverageRoutes: FastifyPluginAsyncTypebox<{ coverage: CoverageService }> = async (app, { coverage }) => {
  app.get(
    '/api/coverage/threats',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['compliance'],
        summary: 'OWASP LLM Top 10 (2025) and MITRE ATLAS threats against the detectors and rules running here, uncovered first',
        querystring: CoverageQuery,
        response: { 200: CoverageSchema },
      },
    },
    async (request) => coverage.threats(request.query),
  );
};
