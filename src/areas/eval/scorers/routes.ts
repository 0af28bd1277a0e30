import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const scorerRoutes: FastifyPluginAsyncTypebox = async () => {};
