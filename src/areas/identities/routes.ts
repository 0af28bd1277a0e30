// Routes of identities (spec 02 "Identities").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { CapabilitySchema, GrantBody } from '../agents/schemas.js';
import {
  CheckBody,
  CheckResultSchema,
  IdentityIdParams,
  IdentityList,
  MintCredentialQuery,
  MintedCredentialSchema,
  RotateQuery,
  RotatedCredentialSchema,
} from './schemas.js';
import type { IdentityService } from './service.js';
import { EmptyBody } from '../../infra/http/schemas.js';

const tags = ['identities'];

export const identityRoutes: FastifyPluginAsyncTypebox<{ identities: IdentityService }> = async (app, { identities }) => {
  app.get(
    '/api/identities',
    { config: { access: 'viewer' }, schema: { tags, summary: 'Identities with their credentials (never the secrets) and capabilities', response: { 200: IdentityList } } },
    async () => identities.list(),
  );

  app.post(
    '/api/identities/:identity_id/capabilities',
    {
      config: { access: 'operator' },
      schema: { tags, summary: "Grant a tool to the identity's agent, or change the grant", params: IdentityIdParams, body: GrantBody, response: { 200: CapabilitySchema, 201: CapabilitySchema } },
    },
    async (request, reply) => {
      const { created, capability } = await identities.grant(request.principal as Principal, request.params.identity_id, request.body);
      return reply.code(created ? 201 : 200).send(capability);
    },
  );

  app.post(
    '/api/identities/:identity_id/check',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Would this identity be allowed this tool call? Records nothing', params: IdentityIdParams, body: CheckBody, response: { 200: CheckResultSchema } },
    },
    async (request) => identities.check(request.params.identity_id, request.body),
  );

  app.post(
    '/api/identities/:identity_id/credentials',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Mint an agent credential for the identity; the raw value is returned once',
        params: IdentityIdParams,
        querystring: MintCredentialQuery,
        body: EmptyBody,
        response: { 201: MintedCredentialSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await identities.mintCredential(request.principal as Principal, request.params.identity_id, request.query.ttl_days ?? null)),
  );

  app.post(
    '/api/identities/:identity_id/rotate',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Mint a new credential; the old ones keep working for overlap_hours, then stop',
        params: IdentityIdParams,
        querystring: RotateQuery,
        body: EmptyBody,
        response: { 201: RotatedCredentialSchema },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await identities.rotate(request.principal as Principal, request.params.identity_id, request.query.overlap_hours ?? 24, request.query.ttl_days ?? null)),
  );
};
