// PLACEHOLDER (helper fills in): /api/playground/sessions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PlaygroundService } from './service.js';

export const playgroundRoutes: FastifyPluginAsyncTypebox<{ playground: PlaygroundService }> = async () => {};
