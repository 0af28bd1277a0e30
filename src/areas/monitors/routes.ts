// PLACEHOLDER (helper fills in): /api/monitors.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { MonitorService } from './service.js';

export const monitorRoutes: FastifyPluginAsyncTypebox<{ monitors: MonitorService }> = async () => {};
