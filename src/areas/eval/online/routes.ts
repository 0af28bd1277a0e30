import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { OnlineService } from './service.js';

export const onlineRoutes: FastifyPluginAsyncTypebox<{ online: OnlineService }> = async () => {};
