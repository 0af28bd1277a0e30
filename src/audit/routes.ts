// POST /api/audit/checkpoint, GET /api/audit/entries, POST /api/audit/verify (spec 02 "Traces,
// metrics, audit, export").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../auth/principal.js';
import { EmptyBody } from '../http/schemas.js';
import { AuditEntryList, AuditVerificationSchema, CheckpointSchema, ListAuditEntriesQuery, VerifyAuditQuery } from './schemas.js';
import type { AuditService } from './service.js';

const tags = ['audit'];

export const auditRoutes: FastifyPluginAsyncTypebox<{ audit: AuditService }> = async (app, { audit }) => {
  app.post(
    '/api/audit/checkpoint',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Seal the chain's head: an audit.checkpoint entry, and its seq and hash signed with the gateway's key",
        body: EmptyBody,
        response: { 201: CheckpointSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await audit.checkpoint(request.principal as Principal)),
  );

  app.get(
    '/api/audit/entries',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Audit entries, newest first (by seq)', querystring: ListAuditEntriesQuery, response: { 200: AuditEntryList } },
    },
    async (request) => audit.list(request.query),
  );

  app.post(
    '/api/audit/verify',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'Recompute the chain over a range of seq and check the checkpoints in it; names the first entry that does not verify',
        querystring: VerifyAuditQuery,
        body: EmptyBody,
        response: { 200: AuditVerificationSchema },
      },
    },
    async (request) => audit.verify(request.query),
  );
};
