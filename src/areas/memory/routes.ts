// Routes for memory entries: GET /api/memory, POST /api/memory/{entry_id}/revoke, POST /api/memory/{entry_id}/verify.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { ListMemoryQuery, MemoryEntryIdParams, MemoryEntryList, MemoryEntrySchema, RevokeMemoryBody, VerifyMemoryBody } from './schemas.js';
import type { MemoryService } from './service.js';

const tags = ['memory'];

export const memoryRoutes: FastifyPluginAsyncTypebox<{ memory: MemoryService }> = async (app, { memory }) => {
  app.get(
    '/api/memory',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'Memory entries with their status (active, expired, revoked, blocked), newest first',
        querystring: ListMemoryQuery,
        response: { 200: MemoryEntryList },
      },
    },
    async (request) => memory.list(request.query),
  );

  app.post(
    '/api/memory/:entry_id/revoke',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Revoke a memory entry: it is pulled at once',
        params: MemoryEntryIdParams,
        body: RevokeMemoryBody,
        response: { 200: MemoryEntrySchema },
      },
    },
    async (request) => memory.revoke(request.principal as Principal, request.params.entry_id, request.body),
  );

  app.post(
    '/api/memory/:entry_id/verify',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Verify a memory entry: it stops decaying on the unverified time-to-live',
        params: MemoryEntryIdParams,
        body: VerifyMemoryBody,
        response: { 200: MemoryEntrySchema },
      },
    },
    async (request) => memory.verify(request.principal as Principal, request.params.entry_id, request.body),
  );
};
