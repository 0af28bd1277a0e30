// POST /api/credentials/{credential_id}/revoke.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { EmptyBody } from '../../infra/http/schemas.js';
import { CredentialIdParams, CredentialSchema } from './schemas.js';
import type { CredentialService } from './service.js';

export const credentialRoutes: FastifyPluginAsyncTypebox<{ credentials: CredentialService }> = async (
  app,
  { credentials },
) => {
  app.post(
    '/api/credentials/:credential_id/revoke',
    {
      config: { access: 'operator' },
      schema: {
        tags: ['credentials'],
        summary: 'Revoke an agent credential; it stops working at once',
        params: CredentialIdParams,
        body: EmptyBody,
        response: { 200: CredentialSchema },
      },
    },
    async (request) => credentials.revoke(request.principal as Principal, request.params.credential_id),
  );
};
