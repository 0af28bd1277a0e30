import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AnnotationService } from './service.js';

export const annotationRoutes: FastifyPluginAsyncTypebox<{ annotations: AnnotationService }> = async () => {};
