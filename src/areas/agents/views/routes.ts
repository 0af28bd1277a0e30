// Routes of the computed agent views: lineage, posture and protections (spec 02 "Agents").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../../infra/auth/principal.js';
import type { AgentViewService } from './service.js';
import { AgentSlugParams, LineageQuery, LineageSchema, PostureSchema, PreviewSchema, ProtectionBody, ProtectionSchema } from './schemas.js';

const tags = ['agents'];

export const agentViewRoutes: FastifyPluginAsyncTypebox<{ views: AgentViewService }> = async (app, { views }) => {
  const caller = (request: { principal?: unknown }) => request.principal as Principal;

  app.get(
    '/api/agents/:slug/lineage',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'Delegation chains through the agent over 30 days of agent messages; raises delegation_depth and delegation_cycle',
        params: AgentSlugParams,
        querystring: LineageQuery,
        response: { 200: LineageSchema },
      },
    },
    async (request) => views.lineage(request.params.slug, request.query.depth ?? 5),
  );

  app.get(
    '/api/agents/:slug/posture',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: "The agent's grants, credentials, keys, decisions and open findings, scored 0-100 with its gaps", params: AgentSlugParams, response: { 200: PostureSchema } },
    },
    async (request) => views.posture(request.params.slug),
  );

  app.get(
    '/api/agents/:slug/protection',
    { config: { access: 'viewer' }, schema: { tags, summary: "The agent's protections: limits, words, topics and refusal message", params: AgentSlugParams, response: { 200: ProtectionSchema } } },
    async (request) => views.protection(request.params.slug),
  );

  app.post(
    '/api/agents/:slug/protection',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Change the agent's protections (merged; a field given as null is removed)",
        params: AgentSlugParams,
        body: ProtectionBody,
        response: { 200: ProtectionSchema },
      },
    },
    async (request) => views.setProtection(caller(request), request.params.slug, request.body),
  );

  app.post(
    '/api/agents/:slug/protection/preview',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: "Replay the agent's last week of input and output against proposed protections, as if enforcing; stores nothing",
        params: AgentSlugParams,
        body: ProtectionBody,
        response: { 200: PreviewSchema },
      },
    },
    async (request) => views.previewProtection(request.params.slug, request.body),
  );
};
