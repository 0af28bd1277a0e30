// GET /api/eval/annotations/queue (viewer) and POST /api/eval/results/{result_id}/annotate (operator).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../../infra/auth/principal.js';
import { AnnotateBody, AnnotatedSchema, QueueQuery, QueueSchema, ResultIdParams } from './schemas.js';
import type { AnnotationService } from './service.js';

export const annotationRoutes: FastifyPluginAsyncTypebox<{ annotations: AnnotationService }> = async (app, { annotations }) => {
  const tags = ['evaluations'];
  app.get(
    '/api/eval/annotations/queue',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: "Results not yet annotated whose score is near the scorer's threshold, or whose output's scorers disagree; newest first",
        querystring: QueueQuery,
        response: { 200: QueueSchema },
      },
    },
    async (request) => annotations.queue(request.query),
  );
  app.post(
    '/api/eval/results/:result_id/annotate',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary:
          "Record a person's call (pass or fail, with a note) on a result, counted instead of the scorer's in pass rates; replaces an earlier annotation; optionally exports the case to a suite; audited",
        params: ResultIdParams,
        body: AnnotateBody,
        response: { 200: AnnotatedSchema },
      },
    },
    async (request) => annotations.annotate(request.principal as Principal, request.params.result_id, request.body),
  );
};
