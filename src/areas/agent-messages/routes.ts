// Routes for agent signing keys (POST|GET /api/agents/{slug}/signing-key) and the agent message
// log (GET /api/agent-messages).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import {
  AgentMessageList,
  AgentSlugParams,
  CreatedSigningKeySchema,
  CreateSigningKeyBody,
  ListAgentMessagesQuery,
  SigningKeyStatusSchema,
} from './schemas.js';
import type { AgentMessageService } from './service.js';
import type { SigningKeyService } from './signing-keys.js';

export interface MessageRoutesOptions {
  signingKeys: SigningKeyService;
  messages: AgentMessageService;
}

export const messageRoutes: FastifyPluginAsyncTypebox<MessageRoutesOptions> = async (app, { signingKeys, messages }) => {
  app.post(
    '/api/agents/:slug/signing-key',
    {
      config: { access: 'operator' },
      schema: {
        tags: ['agents'],
        summary: 'Mint or rotate the agent’s HMAC signing key; the raw value is returned once',
        params: AgentSlugParams,
        body: CreateSigningKeyBody,
        response: { 201: CreatedSigningKeySchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await signingKeys.mint(request.principal as Principal, request.params.slug, request.body)),
  );

  app.get(
    '/api/agents/:slug/signing-key',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['agents'],
        summary: 'Whether the agent has a signing key, and which replaced keys still verify; never the keys',
        params: AgentSlugParams,
        response: { 200: SigningKeyStatusSchema },
      },
    },
    async (request) => signingKeys.status(request.params.slug),
  );

  app.get(
    '/api/agent-messages',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['agent-messages'],
        summary: 'Inter-agent messages with their signature status and verdict, newest first',
        querystring: ListAgentMessagesQuery,
        response: { 200: AgentMessageList },
      },
    },
    async (request) => messages.list(request.query),
  );
};
