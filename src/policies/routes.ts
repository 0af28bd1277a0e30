// GET /api/policies, POST /api/policies/{key}/mode.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../auth/principal.js';
import { ListPoliciesQuery, PolicyKeyParams, PolicyList, PolicySummarySchema, SetModeBody } from './schemas.js';
import type { PolicyService } from './service.js';

export const policyRoutes: FastifyPluginAsyncTypebox<{ policies: PolicyService }> = async (app, { policies }) => {
  const tags = ['policies'];
  app.get(
    '/api/policies',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'The bound policy packs with their modes and rules', querystring: ListPoliciesQuery, response: { 200: PolicyList } },
    },
    async () => ({ items: policies.list(), next_cursor: null }),
  );
  app.post(
    '/api/policies/:key/mode',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Move a pack between observe and enforce',
        params: PolicyKeyParams,
        body: SetModeBody,
        response: { 200: PolicySummarySchema },
      },
    },
    async (request) => policies.setMode(request.principal as Principal, request.params.key, request.body),
  );
};
