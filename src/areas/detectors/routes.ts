// GET /api/detectors, POST /api/detectors/{key}.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { DetectorKeyParams, DetectorList, DetectorViewSchema, SwitchDetectorBody } from './schemas.js';
import type { DetectorService } from './service.js';

export const detectorRoutes: FastifyPluginAsyncTypebox<{ detectors: DetectorService }> = async (app, { detectors }) => {
  const tags = ['detectors'];
  app.get(
    '/api/detectors',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Every registered detector: available, enabled, why not, run statistics', response: { 200: DetectorList } },
    },
    async () => ({ items: detectors.list(), next_cursor: null }),
  );
  app.post(
    '/api/detectors/:key',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Switch a detector on or off (refused for a detector that cannot run: not installed, or its model licence not accepted)',
        params: DetectorKeyParams,
        body: SwitchDetectorBody,
        response: { 200: DetectorViewSchema },
      },
    },
    async (request) =>
      detectors.setEnabled(request.principal as Principal, request.params.key, request.body.enabled, request.body.reason),
  );
};
