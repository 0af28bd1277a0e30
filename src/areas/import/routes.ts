// PLACEHOLDER (helper fills in): /api/import/{tool}.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ImportService } from './service.js';

export const importRoutes: FastifyPluginAsyncTypebox<{ imports: ImportService }> = async () => {};
