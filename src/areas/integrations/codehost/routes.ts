// PLACEHOLDER (helper fills in): /api/integrations/codehost/*.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CodehostService } from './service.js';

export const codehostRoutes: FastifyPluginAsyncTypebox<{ codehost: CodehostService }> = async () => {};
