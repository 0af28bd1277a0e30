// Every /api/eval route, from the parts that own them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { annotationRoutes } from './annotations/routes.js';
import type { EvalServices } from './index.js';
import { onlineRoutes } from './online/routes.js';
import { runRoutes } from './runs/routes.js';
import { scorerRoutes } from './scorers/routes.js';
import { suiteRoutes } from './suites/routes.js';

export const evalRoutes: FastifyPluginAsyncTypebox<{ evaluations: EvalServices }> = async (app, { evaluations }) => {
  await app.register(suiteRoutes, { suites: evaluations.suites });
  await app.register(scorerRoutes, { judgeAvailable: evaluations.judgeAvailable });
  await app.register(runRoutes, { runs: evaluations.runs });
  await app.register(onlineRoutes, { online: evaluations.online });
  await app.register(annotationRoutes, { annotations: evaluations.annotations });
};
