// PLACEHOLDER (helper fills in): /api/waitlist.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { WaitlistService } from './service.js';

export const waitlistRoutes: FastifyPluginAsyncTypebox<{ waitlist: WaitlistService }> = async () => {};
