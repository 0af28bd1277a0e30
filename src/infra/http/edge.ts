// The per-request edge: request id, authentication, metrics and the access log. The hooks are
// attached to each route when it is registered, with its access level and metric labels already
// worked out, so a request never rebuilds them (Fastify's `request.routeOptions` is a getter that
// builds a new object on every read). Unmatched requests get the same treatment in the
// not-found handler.
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, onResponseHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { sendProblem } from './errors.js';
import type { HttpMetrics } from './metrics.js';
import { problem } from './problems.js';

/**
 * Checks a request's credential against its route's access level (infra/auth/access.ts builds it);
 * passed in so that the HTTP edge does not depend on how credentials are resolved.
 */
export type Authenticate = (
  request: FastifyRequest,
  access: NonNullable<FastifyContextConfig['access']>,
  acceptApiKeyHeader: boolean,
  done: (error?: Error) => void,
) => void;

export interface EdgeOptions {
  authenticate: Authenticate;
  metrics: HttpMetrics;
  /** Log every request (the access log); off, only 5xx answers and slow requests are logged. */
  logRequests: boolean;
  slowRequestMs: number;
}

const asList = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export const edgePlugin = fp<EdgeOptions>(
  async (app: FastifyInstance, { authenticate, metrics, logRequests, slowRequestMs }) => {

    const logLine = (request: FastifyRequest, reply: FastifyReply) => {
      const ms = reply.elapsedTime;
      const notable = reply.statusCode >= 500 || ms >= slowRequestMs;
      if (!notable && !logRequests) return;
      const line = { reqId: request.id, method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(ms * 10) / 10 };
      if (notable) request.log.warn(line, ms >= slowRequestMs ? 'slow request' : 'request failed');
      else request.log.info(line, 'request');
    };

    app.addHook('onRoute', (route) => {
      const access = route.config?.access ?? 'public';
      const acceptApiKeyHeader = route.config?.acceptApiKeyHeader === true;
      const observe = metrics.observerFor([route.method].flat().join(','), route.url);

      const onRequest: onRequestHookHandler = (request, reply, done) => {
        reply.header('x-request-id', request.id);
        authenticate(request, access, acceptApiKeyHeader, done);
      };
      const onResponse: onResponseHookHandler = (request, reply, done) => {
        observe(reply.statusCode, reply.elapsedTime);
        logLine(request, reply);
        done();
      };
      route.onRequest = [onRequest, ...asList(route.onRequest)];
      route.onResponse = [...asList(route.onResponse), onResponse];

      // A POST without a body means "no fields": routes with a body schema read it as {}, so
      // optional-only bodies need none.
      if (route.schema?.body !== undefined) {
        route.preValidation = [
          (request, _reply, next) => {
            if (request.body === undefined) request.body = {};
            next();
          },
          ...asList(route.preValidation),
        ];
      }
    });

    const observeUnmatched = metrics.observerFor('ANY', 'unmatched');
    app.setNotFoundHandler((request, reply) => {
      reply.header('x-request-id', request.id);
      sendProblem(reply, request, problem('unknown-route', `no route ${request.method} ${request.url.split('?')[0]}`));
      observeUnmatched(reply.statusCode, reply.elapsedTime);
      logLine(request, reply);
    });
  },
  { name: 'parapet-edge' },
);
