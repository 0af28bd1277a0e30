// GET /api/judgment/posture, PUT /api/judgment/posture.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { PostureSchema, PutPostureBody } from './schemas.js';
import type { JudgmentService } from './service.js';

export const judgmentRoutes: FastifyPluginAsyncTypebox<{ judgment: JudgmentService }> = async (app, { judgment }) => {
  const tags = ['detectors'];
  app.get(
    '/api/judgment/posture',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'The judgment posture: tiers asked, personal-data egress, fail-closed, backend, and what is usable', response: { 200: PostureSchema } },
    },
    async () => judgment.view(),
  );
  app.put(
    '/api/judgment/posture',
    {
      // Admin: the posture decides whether payloads leave the machine.
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          'Change the judgment posture (reason required; refused when the deployment does not permit it, and without confirm_egress when payloads start leaving the machine or personal-data handling loosens)',
        body: PutPostureBody,
        response: { 200: PostureSchema },
      },
    },
    async (request) => judgment.put(request.principal as Principal, request.body),
  );
};
