// GET /api/sources, GET /api/sources/health (viewer); PUT /api/sources, DELETE /api/sources/{key},
// POST /api/sources/connections, POST /api/sources/{key}/validate (operator).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { EmptyBody } from '../../infra/http/schemas.js';
import {
  ConnectionSchema,
  DeletedSchema,
  DeleteSourceQuery,
  HealthSchema,
  KeyParams,
  ListSourcesQuery,
  PutSourceBody,
  SaveConnectionBody,
  SourceListSchema,
  SourceSchema,
  ValidateResultSchema,
} from './schemas.js';
import type { SourceService } from './service.js';

export const sourceRoutes: FastifyPluginAsyncTypebox<{ sources: SourceService }> = async (app, { sources }) => {
  const tags = ['sources'];
  app.get(
    '/api/sources',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'The registered knowledge sources by key, with freshness (stale), validation and connection (never its credential)',
        querystring: ListSourcesQuery,
        response: { 200: SourceListSchema },
      },
    },
    async (request) => sources.list(request.query),
  );
  app.put(
    '/api/sources',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Register a knowledge source (201) or update it (200; fields left out keep their value): tier, owner, domain, freshness SLA, deprecation, metadata',
        body: PutSourceBody,
        response: { 200: SourceSchema, 201: SourceSchema },
      },
    },
    async (request, reply) => {
      const { created, source } = await sources.put(request.principal as Principal, request.body);
      return reply.code(created ? 201 : 200).send(source);
    },
  );
  app.get(
    '/api/sources/health',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'Sources with problems: stale, deprecated yet cited, unvalidated, connection failing, validation failed; and counts',
        response: { 200: HealthSchema },
      },
    },
    async () => sources.health(),
  );
  app.delete(
    '/api/sources/:key',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Deprecate a source (answers the source); with hard=true delete it and its connection',
        params: KeyParams,
        querystring: DeleteSourceQuery,
        response: { 200: Type.Union([SourceSchema, DeletedSchema]) },
      },
    },
    async (request) => sources.remove(request.principal as Principal, request.params.key, request.query.hard === true),
  );
  app.post(
    '/api/sources/connections',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Connect a registered source to its real content (database or API); the credential is sealed at once and never answered (201 new, 200 replaced)",
        body: SaveConnectionBody,
        response: { 200: ConnectionSchema, 201: ConnectionSchema },
      },
    },
    async (request, reply) => {
      const { created, connection } = await sources.saveConnection(request.principal as Principal, request.body);
      return reply.code(created ? 201 : 200).send(connection);
    },
  );
  app.post(
    '/api/sources/:key/validate',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Read the source's real content through its connection (row count and freshest timestamp, or HTTP status) and record it; a failure is ok false, 409 without a connection",
        params: KeyParams,
        body: EmptyBody,
        response: { 200: ValidateResultSchema },
      },
    },
    async (request) => sources.validate(request.principal as Principal, request.params.key),
  );
};
