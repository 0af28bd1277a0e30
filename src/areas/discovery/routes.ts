// PLACEHOLDER (helper fills in): /api/discovery/*.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DiscoveryService } from './service.js';

export const discoveryRoutes: FastifyPluginAsyncTypebox<{ discovery: DiscoveryService }> = async () => {};
