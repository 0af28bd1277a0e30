import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AnswerabilityService } from './service.js';

export const answerabilityRoutes: FastifyPluginAsyncTypebox<{ answerability: AnswerabilityService }> = async () => {};
