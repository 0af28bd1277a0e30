// PLACEHOLDER (helper fills in): POST /api/integrations/hosted-api/scan.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HostedApiService } from './service.js';

export const hostedApiRoutes: FastifyPluginAsyncTypebox<{ hostedApi: HostedApiService }> = async () => {};
