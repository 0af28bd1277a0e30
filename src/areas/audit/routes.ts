// POST /api/audit/checkpoint, GET /api/audit/entries, POST /api/audit/verify (spec 02 "Traces,
// metrics, audit, export"), and GET /api/audit/head (the signed head to keep elsewhere).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { EmptyBody } from '../../infra/http/schemas.js';
import { AuditEntryList, AuditVerificationSchema, CheckpointSchema, ListAuditEntriesQuery, SignedHeadSchema, VerifyAuditBody, VerifyAuditQuery } from './schemas.js';
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
        description:
          'With a head exported earlier by GET /api/audit/head in the body ({"head": …}), also checks that the chain still holds it: a chain rewritten since is detected even when its checkpoint rows were removed with it.',
        querystring: VerifyAuditQuery,
        body: VerifyAuditBody,
        response: { 200: AuditVerificationSchema },
      },
    },
    async (request) => audit.verify(request.query, request.body),
  );

  app.get(
    '/api/audit/head',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'The latest signed checkpoint and the public key that checks it: export it and keep it outside the gateway',
        description:
          'Kept elsewhere (as transparency logs publish their signed heads), it lets POST /api/audit/verify and `parapet audit verify --head` detect a chain rewritten later by someone with write access to the database. 404 until the first checkpoint.',
        response: { 200: SignedHeadSchema },
      },
    },
    async () => audit.head(),
  );
};
