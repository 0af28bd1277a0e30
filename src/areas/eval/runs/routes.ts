import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RunService } from './service.js';

export const runRoutes: FastifyPluginAsyncTypebox<{ runs: RunService }> = async () => {};
