// POST /api/workspace/plan (viewer: changes nothing), POST /api/workspace/apply (admin: it can
// change everything) and GET /api/workspace/export (operator: the whole configuration, no secrets).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { Type } from 'typebox';
import { ApplySchema, ExportedDocumentSchema, ExportQuery, PlanSchema, SourceBody, WORKSPACE_BODY_LIMIT } from './schemas.js';
import type { WorkspaceService } from './service.js';

const tags = ['workspace'];

export const workspaceRoutes: FastifyPluginAsyncTypebox<{ workspace: WorkspaceService }> = async (app, { workspace }) => {
  app.post(
    '/api/workspace/plan',
    {
      config: { access: 'viewer' },
      bodyLimit: WORKSPACE_BODY_LIMIT,
      schema: {
        tags,
        summary: 'What applying a workspace document would create, change and delete, field by field; changes nothing',
        body: SourceBody,
        response: { 200: PlanSchema },
      },
    },
    async (request) => workspace.plan(request.body.source),
  );

  app.post(
    '/api/workspace/apply',
    {
      config: { access: 'admin' },
      bodyLimit: WORKSPACE_BODY_LIMIT,
      schema: {
        tags,
        summary: "Apply a workspace document through each area's own service, kind by kind; audited",
        body: SourceBody,
        response: { 200: ApplySchema },
      },
    },
    async (request) => workspace.apply(request.principal as Principal, request.body.source),
  );

  app.get(
    '/api/workspace/export',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'The whole configuration as one workspace document (no secrets: credentials by environment variable name)',
        querystring: ExportQuery,
        response: {
          200: {
            description: 'a workspace document (schemas/workspace.v1.json), as JSON or, with format=yaml, as YAML text',
            content: {
              'application/json': { schema: ExportedDocumentSchema },
              'application/yaml': { schema: Type.String({ description: 'the document as YAML' }) },
            },
          },
        },
      },
    },
    async (request, reply) => {
      if (request.query.format === 'yaml') return reply.type('application/yaml; charset=utf-8').send(await workspace.exportYaml());
      return workspace.export();
    },
  );
};
