// POST /api/eval/online (operator); GET /api/eval/drift (viewer, read-only); GET /api/eval/slos
// (viewer) and POST /api/eval/slos (operator).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../../infra/auth/principal.js';
import { DriftQuery, DriftSchema, OnlineBody, OnlineStartedSchema, SloBody, SloListSchema, SloQuery, SloSchema } from './schemas.js';
import type { OnlineService } from './service.js';

export const onlineRoutes: FastifyPluginAsyncTypebox<{ online: OnlineService }> = async (app, { online }) => {
  const tags = ['evaluations'];
  app.post(
    '/api/eval/online',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary:
          "Score a deterministic sample (rate) of an agent's recorded requests of the last since_days in the background (job eval.online); results feed drift and SLOs, and a significant worsening raises drift / over_refusal findings",
        body: OnlineBody,
        response: { 202: OnlineStartedSchema },
      },
    },
    async (request, reply) => reply.code(202).send(await online.start(request.principal as Principal, request.body)),
  );
  app.get(
    '/api/eval/drift',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary:
          "Online pass rates of an agent's scorers, recent window against the baseline window before it: two-proportion z test (KS on graded scores); significant at p < alpha with enough samples and a large enough change. Records nothing",
        querystring: DriftQuery,
        response: { 200: DriftSchema },
      },
    },
    async (request) => online.drift(request.query),
  );
  app.get(
    '/api/eval/slos',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'SLOs over online results, newest first, with attainment over the window, error budget consumed and the last day’s burn rate',
        querystring: SloQuery,
        response: { 200: SloListSchema },
      },
    },
    async (request) => online.listSlos(request.query),
  );
  app.post(
    '/api/eval/slos',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Save an SLO (agent, scorer, objective, window): 201 when new, 200 when one with the same key was changed or already so',
        body: SloBody,
        response: { 200: SloSchema, 201: SloSchema },
      },
    },
    async (request, reply) => {
      const { created, slo } = await online.saveSlo(request.principal as Principal, request.body);
      return reply.code(created ? 201 : 200).send(slo);
    },
  );
};
