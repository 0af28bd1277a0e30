// GET /api/evidence, POST /api/evidence, GET /api/evidence/{package_id}/download (spec 02
// "Compliance, controls, evidence, risk").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../infra/auth/principal.js';
import {
  CreateEvidenceBody,
  EvidenceIdParams,
  EvidenceList,
  EvidencePackageSchema,
  ListEvidenceQuery,
  QueuedEvidenceSchema,
} from './schemas.js';
import type { EvidenceService } from './service.js';

const tags = ['evidence'];

export const evidenceRoutes: FastifyPluginAsyncTypebox<{ evidence: EvidenceService }> = async (app, { evidence }) => {
  app.get(
    '/api/evidence',
    { config: { access: 'viewer' }, schema: { tags, summary: 'Evidence packages, newest first', querystring: ListEvidenceQuery, response: { 200: EvidenceList } } },
    async (request) => evidence.list(request.query),
  );

  app.post(
    '/api/evidence',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary:
          'Build an evidence package in the request (201). A transient failure answers 202 queued_for_retry and a job retries it; ' +
          'a permanent one answers 503 naming the dead job',
        body: CreateEvidenceBody,
        response: { 201: EvidencePackageSchema, 202: QueuedEvidenceSchema },
      },
    },
    async (request, reply) => {
      const outcome = await evidence.create(request.principal as Principal, request.body);
      return outcome.status === 'ready' ? reply.code(201).send(outcome.package) : reply.code(202).send(outcome.queued);
    },
  );

  app.get(
    '/api/evidence/:package_id/download',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'The zip of a ready package (409 while it is not ready). Verify it: unzip pkg.zip -d pkg && (cd pkg && sha256sum -c SHA256SUMS)',
        params: EvidenceIdParams,
        response: { 200: { description: 'The package as a zip file', content: { 'application/zip': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) } } } },
      },
    },
    async (request, reply) => {
      const { fileName, bytes } = await evidence.download(request.params.package_id);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    },
  );
};
