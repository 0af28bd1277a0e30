// GET /api/retention (viewer); GET /api/legal-holds (viewer); POST /api/legal-holds and
// POST /api/legal-holds/{hold_id}/release (admin: CONTRACT.md gives retention and holds to admins).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import {
  CreateLegalHoldBody,
  LegalHoldIdParams,
  LegalHoldList,
  LegalHoldSchema,
  ListLegalHoldsQuery,
  ReleaseLegalHoldBody,
  RetentionSchema,
} from './schemas.js';
import type { RetentionService } from './service.js';

export const retentionRoutes: FastifyPluginAsyncTypebox<{ retention: RetentionService }> = async (app, { retention }) => {
  app.get(
    '/api/retention',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['retention'],
        summary: 'Retention settings, the legal holds in force and what the next sweep would remove',
        response: { 200: RetentionSchema },
      },
    },
    async () => retention.view(),
  );

  const tags = ['legal holds'];
  app.get(
    '/api/legal-holds',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Legal holds, newest first', querystring: ListLegalHoldsQuery, response: { 200: LegalHoldList } },
    },
    async (request) => retention.listHolds(request.query),
  );

  app.post(
    '/api/legal-holds',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Keep the records a scope covers (agents, period; empty: everything) from retention until released',
        body: CreateLegalHoldBody,
        response: { 201: LegalHoldSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await retention.createHold(request.principal as Principal, request.body)),
  );

  app.post(
    '/api/legal-holds/:hold_id/release',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'Release a legal hold: the next sweep applies retention to what it kept', params: LegalHoldIdParams, body: ReleaseLegalHoldBody, response: { 200: LegalHoldSchema } },
    },
    async (request) => retention.releaseHold(request.principal as Principal, request.params.hold_id, request.body.reason),
  );
};
