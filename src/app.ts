// buildApp(deps): one Fastify instance with the cross-cutting plugins and every area registered.
// It never listens; main.ts and the tests do.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { destination, pino } from 'pino';
import { AuditLog } from './audit/log.js';
import { CredentialResolver } from './auth/resolver.js';
import { configHash } from './config/load.js';
import type { Config } from './config/schema.js';
import { credentialRoutes } from './credentials/routes.js';
import { CredentialService } from './credentials/service.js';
import { authPlugin } from './http/auth.js';
import { errorsPlugin, frameworkError } from './http/errors.js';
import { edgePlugin } from './http/edge.js';
import { HttpMetrics } from './http/metrics.js';
import { openApiPlugin } from './http/openapi.js';
import { createValidatorCompiler } from './http/validation.js';
import { systemClock, type Clock } from './lib/clock.js';
import type { Store } from './store/db.js';
import { HealthRegistry } from './system/health.js';
import { systemRoutes } from './system/routes.js';
import { GATEWAY_VERSION, VersionRegistry } from './system/version.js';
import { tokenRoutes } from './tokens/routes.js';
import { TokenService } from './tokens/service.js';

export interface AppDeps {
  config: Config;
  store: Store;
  clock?: Clock;
  /** Defaults to pino writing JSON lines to stdout. */
  logger?: FastifyBaseLogger;
}

export interface Services {
  clock: Clock;
  audit: AuditLog;
  resolver: CredentialResolver;
  tokens: TokenService;
  credentials: CredentialService;
  health: HealthRegistry;
  versions: VersionRegistry;
}

export type App = FastifyInstance & { services: Services };

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export async function buildApp({ config, store, clock = systemClock, logger }: AppDeps): Promise<App> {
  const schemaMigration = await store.latestMigration();
  const audit = new AuditLog(store, clock);
  const resolver = new CredentialResolver(store, clock, config.auth_cache_ms);
  const services: Services = {
    clock,
    audit,
    resolver,
    tokens: new TokenService(store, audit, resolver, clock),
    credentials: new CredentialService(store, audit, resolver, clock),
    health: new HealthRegistry(store),
    versions: new VersionRegistry(),
  };
  services.health.addGaps(() => deploymentGaps(config));
  const metrics = new HttpMetrics();

  const app = Fastify({
    loggerInstance: logger ?? stdoutLogger(config),
    frameworkErrors: frameworkError,
    bodyLimit: config.body_limit_bytes,
    trustProxy: config.trust_proxy,
    // One line per request, written by the onResponse hook below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    // No child logger per request (it costs the hot path microseconds): lines that belong to a
    // request carry `reqId` themselves.
    childLoggerFactory: (logger) => logger,
    // A caller's X-Request-Id is kept when it is well formed, so ids join up across services.
    genReqId: (request: IncomingMessage) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(createValidatorCompiler());
  // Only JSON bodies are accepted; anything else is a 415 rather than a string to validate.
  app.removeContentTypeParser('text/plain');

  await app.register(errorsPlugin);
  await app.register(authPlugin);
  await app.register(edgePlugin, {
    resolver,
    metrics,
    logRequests: config.log_requests,
    slowRequestMs: config.slow_request_ms,
  });
  await app.register(openApiPlugin, { version: GATEWAY_VERSION });

  await app.register(systemRoutes, {
    health: services.health,
    versions: services.versions,
    metrics: metrics.registry,
    schemaMigration: () => schemaMigration,
    configHash: configHash(config),
  });
  await app.register(tokenRoutes, { tokens: services.tokens, credentials: services.credentials });
  await app.register(credentialRoutes, { credentials: services.credentials });

  app.addHook('onClose', async () => {
    await resolver.close();
  });

  return Object.assign(app as unknown as FastifyInstance, { services });
}

const LOG_FLUSH_MS = 250;

/**
 * JSON lines on stdout, written in batches: a write per request line would cost the hot path a
 * system call. Lines wait at most LOG_FLUSH_MS; pino writes what is left when the process exits.
 */
function stdoutLogger(config: Config): FastifyBaseLogger {
  const stream = destination({ dest: 1, sync: false, minLength: 8192 });
  const timer = setInterval(() => stream.flush(), LOG_FLUSH_MS);
  timer.unref();
  return pino({ level: config.log_level }, stream);
}

/** Gaps that follow from the deployment's own settings. */
function deploymentGaps(config: Config): Array<{ what: string; why: string }> {
  const gaps: Array<{ what: string; why: string }> = [];
  if (config.fail_mode === 'open') {
    gaps.push({
      what: 'degraded checks',
      why: 'fail_mode is open: a call whose detector times out or errors goes through and is recorded',
    });
  }
  if (config.upstream_openai_api_key === null) {
    gaps.push({ what: 'chat-completions upstream', why: 'upstream_openai_api_key is not set' });
  }
  if (config.upstream_anthropic_api_key === null) {
    gaps.push({ what: 'messages upstream', why: 'upstream_anthropic_api_key is not set' });
  }
  return gaps;
}
