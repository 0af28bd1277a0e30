// POST /api/discovery/scan (operator), GET /api/discovery/shadow (viewer),
// POST /api/discovery/submit (operator).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { EmptyBody } from '../../infra/http/schemas.js';
import { DiscoveryScanSchema, ShadowListSchema, ShadowQuery, SUBMIT_BODY_LIMIT, SubmitBody, SubmittedSchema } from './schemas.js';
import type { DiscoveryService } from './service.js';

export const discoveryRoutes: FastifyPluginAsyncTypebox<{ discovery: DiscoveryService }> = async (app, { discovery }) => {
  const tags = ['discovery'];
  app.post(
    '/api/discovery/scan',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary:
          'Run discovery now: queue a code-host scan of each connected repository (at most 50) and raise a shadow_agent finding for every shadow agent of the last 30 days that has none',
        body: EmptyBody,
        response: { 200: DiscoveryScanSchema },
      },
    },
    async (request) => discovery.scan(request.principal as Principal),
  );
  app.get(
    '/api/discovery/shadow',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'Agents seen in traffic, OTLP spans or code within window_days that are not registered: where, how much, which tools, and the request that registers each',
        querystring: ShadowQuery,
        response: { 200: ShadowListSchema },
      },
    },
    async (request) => discovery.shadow(request.query),
  );
  app.post(
    '/api/discovery/submit',
    {
      config: { access: 'operator' },
      bodyLimit: SUBMIT_BODY_LIMIT,
      schema: {
        tags,
        summary: "Store an external scanner's results: the submission and its sites (at most 5,000), which GET /api/discovery/shadow reads as code",
        body: SubmitBody,
        response: { 201: SubmittedSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await discovery.submit(request.principal as Principal, request.body)),
  );
};
