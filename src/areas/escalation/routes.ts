// PLACEHOLDER (helper fills in): /api/escalation/*.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { EscalationService } from './service.js';

export const escalationRoutes: FastifyPluginAsyncTypebox<{ escalation: EscalationService }> = async () => {};
