// GET /api/eval/scorers (viewer): what a result can be judged by, with params and thresholds.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { JUDGE_UNAVAILABLE } from './judge.js';
import { scorerDefinitions } from './index.js';
import { ScorerListSchema, type ScorerList } from './schemas.js';

export interface ScorerRouteOptions {
  /** Whether a judgment tier is usable now; without it `judge` is listed as unavailable. */
  judgeAvailable?: () => boolean;
}

export function listScorers(judgeAvailable: (() => boolean) | undefined): ScorerList {
  return {
    items: scorerDefinitions().map((scorer) => {
      const available = scorer.name !== 'judge' || (judgeAvailable?.() ?? false);
      return {
        name: scorer.name,
        description: scorer.description,
        applies_to: [...scorer.appliesTo],
        threshold_kind: scorer.thresholdKind,
        default_threshold: scorer.defaultThreshold,
        params: scorer.params.map((param) => ({ ...param })),
        available,
        ...(available ? {} : { unavailable_reason: JUDGE_UNAVAILABLE }),
      };
    }),
  };
}

export const scorerRoutes: FastifyPluginAsyncTypebox<ScorerRouteOptions> = async (app, options) => {
  app.get(
    '/api/eval/scorers',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['evaluations'],
        summary: 'The scorers a run, the gate or online scoring may name: what each asserts, the targets it applies to, its params and threshold, and whether it is available (judge needs a judgment tier)',
        response: { 200: ScorerListSchema },
      },
    },
    async () => listScorers(options.judgeAvailable),
  );
};
