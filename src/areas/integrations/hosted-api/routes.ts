// POST /api/integrations/hosted-api/scan (operator).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../../infra/auth/principal.js';
import { ScanBody, ScanSchema } from './schemas.js';
import type { HostedApiService } from './service.js';

export const hostedApiRoutes: FastifyPluginAsyncTypebox<{ hostedApi: HostedApiService }> = async (app, { hostedApi }) => {
  app.post(
    '/api/integrations/hosted-api/scan',
    {
      config: { access: 'operator' },
      schema: {
        tags: ['integrations'],
        summary:
          "Read a hosted API's OpenAPI document (openapi_spec_url, else <endpoint_url>/openapi.json; JSON or YAML, 10 s, 5 MiB) and record its model-serving operations, authentication and exposed data; 201 completed or failed; 422 when the outbound policy forbids a URL",
        body: ScanBody,
        response: { 201: ScanSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await hostedApi.scan(request.principal as Principal, request.body)),
  );
};
