// PLACEHOLDER (helper fills in): /api/alerts/chat and /api/alerts/chat/test.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ChatAlertService } from './service.js';

export const alertRoutes: FastifyPluginAsyncTypebox<{ alerts: ChatAlertService }> = async () => {};
