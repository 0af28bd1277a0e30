// GET /api/findings, GET /api/findings/types, GET and PATCH /api/findings/{finding_id}, GET /api/attention.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import type { AttentionService } from './attention.js';
import {
  AttentionList,
  AttentionQuery,
  FindingIdParams,
  FindingList,
  FindingSchema,
  FindingTypeList,
  ListFindingsQuery,
  PatchFindingBody,
} from './schemas.js';
import type { FindingService } from './service.js';

const tags = ['findings'];

export const findingRoutes: FastifyPluginAsyncTypebox<{ findings: FindingService; attention: AttentionService }> = async (
  app,
  { findings, attention },
) => {
  app.get(
    '/api/findings',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Findings, newest first', querystring: ListFindingsQuery, response: { 200: FindingList } },
    },
    async (request) => findings.list(request.query),
  );

  // Registered before /api/findings/:finding_id (the router prefers a static path anyway).
  app.get(
    '/api/findings/types',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Every finding type: title, default severity, meaning and who raises it', response: { 200: FindingTypeList } },
    },
    async () => findings.types(),
  );

  app.get(
    '/api/findings/:finding_id',
    { config: { access: 'viewer' }, schema: { tags, summary: 'One finding', params: FindingIdParams, response: { 200: FindingSchema } } },
    async (request) => findings.get(request.params.finding_id),
  );

  app.patch(
    '/api/findings/:finding_id',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Suppress (suppression_reason), resolve (note), unsuppress or reopen (note) a finding; audited',
        params: FindingIdParams,
        body: PatchFindingBody,
        response: { 200: FindingSchema },
      },
    },
    async (request) => findings.patch(request.principal as Principal, request.params.finding_id, request.body),
  );

  app.get(
    '/api/attention',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['platform'],
        summary: 'What needs a person, ranked: open findings, pending approvals, stopped and unowned agents, dead jobs',
        querystring: AttentionQuery,
        response: { 200: AttentionList },
      },
    },
    async (request) => attention.list(request.query.hours ?? 24),
  );
};
