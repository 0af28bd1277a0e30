import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AssessService } from './service.js';

export const assessRoutes: FastifyPluginAsyncTypebox<{ assess: AssessService }> = async () => {};
