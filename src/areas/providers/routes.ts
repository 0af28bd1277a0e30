// GET /api/providers.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ProvidersSchema } from './schemas.js';
import type { ProvidersService } from './service.js';

export const providerRoutes: FastifyPluginAsyncTypebox<{ providers: ProvidersService }> = async (app, { providers }) => {
  app.get(
    '/api/providers',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['platform'],
        summary: 'The neutrality surface: upstreams, judgment tiers, where each sends payloads, egress posture and which detectors run locally; nothing secret',
        response: { 200: ProvidersSchema },
      },
    },
    async () => providers.view(),
  );
};
