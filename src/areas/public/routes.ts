// GET /api/public/showcase (public: no credential, and a presented one is not looked at),
// limited per client address with @fastify/rate-limit; over the limit a 429 problem with Retry-After.
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Problem } from '../../infra/http/problems.js';
import { ShowcaseFeedSchema } from './schemas.js';
import type { ShowcaseService } from './service.js';

export interface PublicRouteOptions {
  showcase: ShowcaseService;
  /** Requests per minute one client address may make (showcase_rate_limit_per_minute). */
  rateLimitPerMinute: number;
}

const MINUTE_MS = 60_000;

export const publicRoutes: FastifyPluginAsyncTypebox<PublicRouteOptions> = async (app, { showcase, rateLimitPerMinute }) => {
  // Registered inside this plugin and not global: only the routes here that ask for a limit get one.
  await app.register(rateLimit, {
    global: false,
    // request.ip follows the gateway's trust_proxy setting.
    keyGenerator: (request) => request.ip,
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return new Problem('rate-limited', `at most ${context.max} requests per minute from one address; retry in ${seconds} s`, undefined, { 'retry-after': String(seconds) });
    },
  });

  app.get(
    '/api/public/showcase',
    {
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
