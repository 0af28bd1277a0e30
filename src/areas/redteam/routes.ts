// GET /api/redteam/probes and GET /api/redteam/campaigns (viewer); POST /api/redteam/campaigns
// (operator), processed inside the request.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { LibraryViewSchema } from './library.js';
import { CampaignBody, CampaignCreatedSchema, CampaignListSchema, CampaignQuery } from './schemas.js';
import type { RedteamService } from './service.js';

export const redteamRoutes: FastifyPluginAsyncTypebox<{ redteam: RedteamService }> = async (app, { redteam }) => {
  const tags = ['redteam'];
  app.get(
    '/api/redteam/probes',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'The probe library: attack probes by class (OWASP LLM Top 10 and MITRE ATLAS ids), benign probes that must pass, and the mutation classes',
        response: { 200: LibraryViewSchema },
      },
    },
    async () => redteam.probes(),
  );
  app.get(
    '/api/redteam/campaigns',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'Red-team campaigns, newest first, with their summaries and comparisons (results are in the answer of POST)',
        querystring: CampaignQuery,
        response: { 200: CampaignListSchema },
      },
    },
    async (request) => redteam.list(request.query),
  );
  app.post(
    '/api/redteam/campaigns',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Run a red-team campaign now against an agent's configuration (runner pipeline, nothing recorded as live traffic) or a probe target, within a budget of probe calls",
        body: CampaignBody,
        response: { 201: CampaignCreatedSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await redteam.create(request.principal as Principal, request.body)),
  );
};
