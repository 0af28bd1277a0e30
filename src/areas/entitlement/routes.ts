import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { EntitlementService } from './service.js';

export const entitlementRoutes: FastifyPluginAsyncTypebox<{ entitlement: EntitlementService }> = async () => {};
