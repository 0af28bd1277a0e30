// POST /api/auth/codehost/provision (admin).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../../infra/auth/principal.js';
import { ProvisionBody, ProvisionedSchema } from './schemas.js';
import type { CodehostProvisionService } from './service.js';

export const codehostProvisionRoutes: FastifyPluginAsyncTypebox<{ provision: CodehostProvisionService }> = async (app, { provision }) => {
  app.post(
    '/api/auth/codehost/provision',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['auth'],
        summary:
          'Find or create the user behind a code-host identity (usr_<codehost_user_id>; login, email and name kept current) and mint them a viewer token, shown once; the same identity gives the same user (created false)',
        body: ProvisionBody,
        response: { 200: ProvisionedSchema, 201: ProvisionedSchema },
      },
    },
    async (request, reply) => {
      const provisioned = await provision.provision(request.principal as Principal, request.body);
      return reply.code(provisioned.created ? 201 : 200).send(provisioned);
    },
  );
};
