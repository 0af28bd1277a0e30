// GET /api/public/showcase (public: no credential, and a presented one is not looked at),
// limited per client address by its own route limit (the gateway's rate-limit plugin,
// src/infra/http/rate-limit.ts, applies it); over the limit a 429 problem with Retry-After.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ShowcaseFeedSchema } from './schemas.js';
import type { ShowcaseService } from './service.js';

export interface PublicRouteOptions {
  showcase: ShowcaseService;
  /** Requests per minute one client address may make (showcase_rate_limit_per_minute). */
  rateLimitPerMinute: number;
}

const MINUTE_MS = 60_000;

export const publicRoutes: FastifyPluginAsyncTypebox<PublicRouteOptions> = async (app, { showcase, rateLimitPerMinute }) => {
  app.get(
    '/api/public/showcase',
    {
      // Its own bucket, apart from the other public routes' budget (rate_limit_public_per_minute).
      config: { access: 'public', rateLimit: { max: rateLimitPerMinute, timeWindow: MINUTE_MS } },
      schema: {
        tags: ['public'],
        summary:
          'Read-only feed of the gateway probing its own demo agent (showcase-demo) with every shipped pack enforcing: recent probes with their verdicts (ids and classes, never the probe texts), posture per day and totals; `{ enabled: false }` where the showcase is not run. Rate-limited per client address',
        response: { 200: ShowcaseFeedSchema },
      },
    },
    async () => showcase.feed(),
  );
};
