// GET /api/answerability/boundaries and GET /api/answerability/report (viewer);
// PUT /api/answerability/boundary (operator); POST /api/answerability/check (any credential: an
// application calls it in its request path; an agent credential checks only for its own agent).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { BoundariesQuery, BoundaryBody, BoundaryListSchema, BoundarySchema, CheckBody, CheckResultSchema, ReportQuery, ReportSchema } from './schemas.js';
import type { AnswerabilityService } from './service.js';

export const answerabilityRoutes: FastifyPluginAsyncTypebox<{ answerability: AnswerabilityService }> = async (app, { answerability }) => {
  const tags = ['answerability'];
  app.get(
    '/api/answerability/boundaries',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: "Agents' answerability boundaries (optionally one agent's), by agent", querystring: BoundariesQuery, response: { 200: BoundaryListSchema } },
    },
    async (request) => answerability.boundaries(request.query),
  );
  app.put(
    '/api/answerability/boundary',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Set an agent's answerability boundary (replaces the whole boundary; audited): systems of record, coverage dates, entity types, out-of-scope topics, freshness and mode",
        body: BoundaryBody,
        response: { 200: BoundarySchema, 201: BoundarySchema },
      },
    },
    async (request, reply) => {
      const { created, boundary } = await answerability.putBoundary(request.principal as Principal, request.body);
      return reply.code(created ? 201 : 200).send(boundary);
    },
  );
  app.post(
    '/api/answerability/check',
    {
      config: { access: 'any' },
      schema: {
        tags,
        summary: "Check a question against the agent's boundary: answerable, not_answerable or partial, with the reasons (deterministic; stored with the question as a SHA-256 only)",
        body: CheckBody,
        response: { 200: CheckResultSchema },
      },
    },
    async (request) => answerability.check(request.principal as Principal, request.body),
  );
  app.get(
    '/api/answerability/report',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'Checks of the last days: counts by outcome and reason, the unanswerable rate, and not-answerable questions that were answered anyway',
        querystring: ReportQuery,
        response: { 200: ReportSchema },
      },
    },
    async (request) => answerability.report(request.query),
  );
};
