// Routes of the agent registry, access grants and agent controls (spec 02 "Agents").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import type { AgentService } from './service.js';
import {
  AccessQuery,
  AccessSchema,
  AgentControlList,
  AgentIdParams,
  AgentList,
  AgentSchema,
  AgentSlugParams,
  CapabilityParams,
  CapabilitySchema,
  CreateAgentBody,
  CreatedAgentSchema,
  DecideAgentBody,
  GrantBody,
  ListAgentsQuery,
  PatchAgentBody,
  StopBody,
} from './schemas.js';

const tags = ['agents'];

export const agentRoutes: FastifyPluginAsyncTypebox<{ agents: AgentService }> = async (app, { agents }) => {
  const caller = (request: { principal?: unknown }) => request.principal as Principal;

  app.get(
    '/api/agents',
    { config: { access: 'viewer' }, schema: { tags, summary: 'List agents, registered and seen in traffic', querystring: ListAgentsQuery, response: { 200: AgentList } } },
    async (request) => agents.list(request.query),
  );

  app.post(
    '/api/agents',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Register an agent (approved) and create its identity', body: CreateAgentBody, response: { 201: CreatedAgentSchema } },
    },
    async (request, reply) => reply.code(201).send(await agents.register(caller(request), request.body)),
  );

  app.post(
    '/api/agents/:agent_id/approve',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Approve a pending or rejected agent; it is registered with an identity', params: AgentIdParams, body: DecideAgentBody, response: { 200: AgentSchema } },
    },
    async (request) => agents.approve(caller(request), request.params.agent_id, request.body.reason),
  );

  app.post(
    '/api/agents/:agent_id/reject',
    {
      config: { access: 'operator' },
      schema: { tags, summary: "Reject an agent; its identity's credentials stop working", params: AgentIdParams, body: DecideAgentBody, response: { 200: AgentSchema } },
    },
    async (request) => agents.reject(caller(request), request.params.agent_id, request.body.reason),
  );

  app.get(
    '/api/agents/:slug',
    { config: { access: 'viewer' }, schema: { tags, summary: 'One agent', params: AgentSlugParams, response: { 200: AgentSchema } } },
    async (request) => agents.get(request.params.slug),
  );

  app.patch(
    '/api/agents/:slug',
    {
      config: { access: 'operator' },
      schema: { tags, summary: "Change an agent's owner, risk tier or purpose", params: AgentSlugParams, body: PatchAgentBody, response: { 200: AgentSchema } },
    },
    async (request) => agents.patch(caller(request), request.params.slug, request.body),
  );

  app.get(
    '/api/agents/:slug/access',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: "An agent's grants, and grants proposed from its observed traffic", params: AgentSlugParams, querystring: AccessQuery, response: { 200: AccessSchema } },
    },
    async (request) => agents.access(request.params.slug, request.query.days ?? 7),
  );

  app.post(
    '/api/agents/:slug/access',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Grant a tool, or change the one grant for it',
        params: AgentSlugParams,
        body: GrantBody,
        response: { 200: CapabilitySchema, 201: CapabilitySchema },
      },
    },
    async (request, reply) => {
      const { created, capability } = await agents.grant(caller(request), request.params.slug, request.body);
      return reply.code(created ? 201 : 200).send(capability);
    },
  );

  app.delete(
    '/api/agents/:slug/access/:capability_id',
    { config: { access: 'operator' }, schema: { tags, summary: 'Remove a grant', params: CapabilityParams, response: { 200: CapabilitySchema } } },
    async (request) => agents.revokeGrant(caller(request), request.params.slug, request.params.capability_id),
  );

  app.post(
    '/api/agents/:slug/kill',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'Kill switch: every call of the agent is blocked, in every process, until resumed', params: AgentSlugParams, body: StopBody, response: { 200: AgentSchema } },
    },
    async (request) => agents.stop(caller(request), request.params.slug, 'killed', request.body.reason),
  );

  app.post(
    '/api/agents/:slug/quarantine',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Quarantine: tool calls, memory writes and agent messages are blocked until resumed', params: AgentSlugParams, body: StopBody, response: { 200: AgentSchema } },
    },
    async (request) => agents.stop(caller(request), request.params.slug, 'quarantined', request.body.reason),
  );

  app.post(
    '/api/agents/:slug/resume',
    { config: { access: 'admin' }, schema: { tags, summary: 'Resume a killed or quarantined agent', params: AgentSlugParams, body: StopBody, response: { 200: AgentSchema } } },
    async (request) => agents.resume(caller(request), request.params.slug, request.body.reason),
  );

  app.get(
    '/api/agent-controls',
    { config: { access: 'viewer' }, schema: { tags, summary: 'Kill-switch and quarantine state per agent', response: { 200: AgentControlList } } },
    async () => agents.controls(),
  );
};
