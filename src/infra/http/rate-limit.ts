// Rate limits for the whole gateway, with @fastify/rate-limit registered once at the root. Every
// route counts against one of three budgets, worked out when the route is registered:
// - public: routes anyone may call (`access: 'public'`), per client address;
// - api: the operator API (/api/*), per credential;
// - agent: agent traffic (/v1/*), per credential.
// Requests without a credential count per address. A budget of 0 is off (those routes get no hook
// at all). Health and metrics are never limited. A route may carry its own limit in
// `config.rateLimit` (the showcase does); it then has its own bucket, keyed as its class says.
//
// Store: in-process by default; with Redis, every gateway process sharing it shares one count. If
// Redis fails, a request is let through (skipOnError): availability over the limit, and the Redis
// client logs the outage once.
import { createHash } from 'node:crypto';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { SharedRedis } from '../redis.js';
import { Problem } from './problems.js';

export type RateLimitClass = 'public' | 'api' | 'agent';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The budget a route counts against; worked out from its access level and URL unless given. */
    rateLimitClass?: RateLimitClass;
  }
}

export interface RateLimitOptions {
  /** Requests per minute per class (rate_limit_public/api/agent_per_minute); 0: not limited. */
  perMinute: Record<RateLimitClass, number>;
  /**
   * A stable, non-secret name of the credential a request was authenticated with (a token or
   * credential id), or null without one. Passed in so that the HTTP edge does not depend on how
   * credentials are resolved; it is hashed before it becomes part of a key.
   */
  credentialOf: (request: FastifyRequest) => string | null;
  /** Shared counts across processes; null: this process counts alone. */
  redis: SharedRedis | null;
  /** Prefix of every Redis key (tests use one of their own). */
  nameSpace?: string;
  /** How long start-up waits for Redis before it goes on without it (failing open). */
  redisStartupWaitMs?: number;
}

/** Never limited: monitoring must see the gateway even when a client is being refused. */
export const NEVER_LIMITED: ReadonlySet<string> = new Set(['/health', '/ready', '/api/health', '/metrics']);

const MINUTE_MS = 60_000;
export const DEFAULT_NAMESPACE = 'parapet:rate-limit:';
const DEFAULT_REDIS_WAIT_MS = 2_000;
/** Addresses (or credentials) the in-process store remembers; the least recently seen go first. */
const LOCAL_KEYS = 20_000;
/** The longest IPv6 text form is 45 characters; anything longer (a spoofed header) is hashed. */
const MAX_ADDRESS_CHARS = 64;
/** IPv6 clients are counted per /64, the smallest block one subscriber usually holds. */
const IPV6_BLOCK = 64;

/** The class a route belongs to, or null when it is never limited. */
export function routeClass(url: string, access: string | undefined): RateLimitClass | null {
  if (NEVER_LIMITED.has(url)) return null;
  if (access === 'public') return 'public';
  if (url === '/v1' || url.startsWith('/v1/')) return 'agent';
  return 'api';
}

const digest = (value: string): string => createHash('sha256').update(value).digest('hex').slice(0, 16);

/** The client address as the bucket names it: IPv6 by /64, IPv4-mapped as IPv4, junk hashed. */
export function addressKey(ip: string | undefined): string {
  const address = ip ?? 'unknown';
  if (address.length > MAX_ADDRESS_CHARS) return `h${digest(address)}`;
  try {
    return normalizeIP(address, IPV6_BLOCK);
  } catch {
    return address.toLowerCase();
  }
}

/** The bucket of one credential in a class: a hash, never the credential (keys are visible to whoever reads Redis). */
export const credentialBucket = (cls: RateLimitClass, credential: string): string => `${cls}:cred:${digest(credential)}`;

/** The bucket of one client address in a class. */
export const addressBucket = (cls: RateLimitClass, ip: string | undefined): string => `${cls}:addr:${addressKey(ip)}`;

const classOf = (request: FastifyRequest): RateLimitClass => request.routeOptions.config.rateLimitClass ?? 'public';

/** Keys start with the class, so classes never share a bucket. */
const classOfKey = (key: string): RateLimitClass => key.slice(0, key.indexOf(':')) as RateLimitClass;

export const rateLimitPlugin = fp<RateLimitOptions>(
  async (app: FastifyInstance, options) => {
    const { perMinute, credentialOf, redis } = options;

    app.addHook('onRoute', (route) => {
      const config = route.config ?? {};
      const cls = config.rateLimitClass ?? routeClass(route.url, config.access);
      // A copy, never the route's own object: several routes may share one config object.
      if (config.rateLimit !== undefined) {
        // A route with its own limit (an object) or none (false) keeps it; the key needs its class.
        if (cls !== null) route.config = { ...config, rateLimitClass: cls };
      } else if (cls === null || perMinute[cls] === 0) {
        route.config = { ...config, rateLimit: false };
      } else {
        route.config = { ...config, rateLimitClass: cls };
      }
    });

    const keyOf = (request: FastifyRequest): string => {
      const cls = classOf(request);
      if (cls !== 'public') {
        const credential = credentialOf(request);
        if (credential !== null) return credentialBucket(cls, credential);
      }
      return addressBucket(cls, request.ip);
    };

    if (redis !== null) {
      const waitMs = options.redisStartupWaitMs ?? DEFAULT_REDIS_WAIT_MS;
      if (!(await redis.ready(waitMs))) {
        app.log.warn({ redis: redis.target, waitedMs: waitMs }, 'rate limits: redis not reachable at start; requests are let through until it is');
      }
    }

    await app.register(rateLimit, {
      global: true,
      hook: 'onRequest',
      timeWindow: MINUTE_MS,
      max: (_request, key) => perMinute[classOfKey(key)],
      keyGenerator: keyOf,
      cache: LOCAL_KEYS,
      skipOnError: true,
      ...(redis === null ? {} : { redis: redis.client, nameSpace: options.nameSpace ?? DEFAULT_NAMESPACE }),
      errorResponseBuilder: (request, context) => {
        const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
        const perCredential = classOf(request) !== 'public' && credentialOf(request) !== null;
        const scope = perCredential ? 'with one credential' : 'from one address';
        return new Problem('rate-limited', `at most ${context.max} requests per minute ${scope}; retry in ${seconds} s`, undefined, {
          'retry-after': String(seconds),
        });
      },
    });
  },
  { name: 'parapet-rate-limit' },
);
