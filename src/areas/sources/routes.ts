import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { SourceService } from './service.js';

export const sourceRoutes: FastifyPluginAsyncTypebox<{ sources: SourceService }> = async () => {};
