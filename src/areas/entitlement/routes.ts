// GET/PUT /api/entitlement/principals, GET/POST /api/entitlement/grants (viewer / operator),
// POST /api/entitlement/filter (any valid credential: applications call it in their request path)
// and GET /api/entitlement/over-permission (viewer).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import {
  FILTER_BODY_LIMIT,
  FilterBody,
  FilterResultSchema,
  GrantBody,
  GrantSchema,
  GrantsSchema,
  OverPermissionQuery,
  OverPermissionSchema,
  PrincipalBody,
  PrincipalSchema,
  PrincipalsSchema,
} from './schemas.js';
import type { EntitlementService } from './service.js';

export const entitlementRoutes: FastifyPluginAsyncTypebox<{ entitlement: EntitlementService }> = async (app, { entitlement }) => {
  const tags = ['entitlement'];
  app.get(
    '/api/entitlement/principals',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Every principal (subject) with its agent, groups, clearances, purposes and residency, by subject', response: { 200: PrincipalsSchema } },
    },
    async () => entitlement.listPrincipals(),
  );
  app.put(
    '/api/entitlement/principals',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Create (201) or replace (200) a principal: a subject with its agent, groups, clearances (data classes it may see), purposes and residency',
        body: PrincipalBody,
        response: { 200: PrincipalSchema, 201: PrincipalSchema },
      },
    },
    async (request, reply) => {
      const { created, principal } = await entitlement.putPrincipal(request.principal as Principal, request.body);
      return reply.code(created ? 201 : 200).send(principal);
    },
  );
  app.get(
    '/api/entitlement/grants',
    { config: { access: 'viewer' }, schema: { tags, summary: 'Every grant of sources to a principal, oldest first, with its last use', response: { 200: GrantsSchema } } },
    async () => entitlement.listGrants(),
  );
  app.post(
    '/api/entitlement/grants',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Grant the sources a glob matches to a subject, group, agent or everyone (*), limited to data classes, purposes and a residency; a * grant raises over_privileged',
        body: GrantBody,
        response: { 201: GrantSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await entitlement.createGrant(request.principal as Principal, request.body)),
  );
  app.post(
    '/api/entitlement/filter',
    {
      config: { access: 'any' },
      bodyLimit: FILTER_BODY_LIMIT,
      schema: {
        tags,
        summary:
          'The retrieved chunks a subject may see (deny by default: a grant, the clearances, purposes and residency must all allow a chunk) and why each other one is withheld; any credential, an agent credential only for its own agent',
        body: FilterBody,
        response: { 200: FilterResultSchema },
      },
    },
    async (request) => {
      const header = request.headers['x-parapet-agent'];
      return entitlement.filter(request.principal as Principal, request.body, typeof header === 'string' ? header : undefined);
    },
  );
  app.get(
    '/api/entitlement/over-permission',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'Grants unused in the window, principals who can see far more sources than they retrieved, and * grants (each raises over_privileged)',
        querystring: OverPermissionQuery,
        response: { 200: OverPermissionSchema },
      },
    },
    async (request) => entitlement.overPermission(request.query.days ?? 30),
  );
};
