import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { SuiteService } from './service.js';

export const suiteRoutes: FastifyPluginAsyncTypebox<{ suites: SuiteService }> = async () => {};
