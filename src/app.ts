// buildApp(deps): one Fastify instance with the cross-cutting plugins and every area's routes, over
// the services the composition root builds (src/services.ts). It never listens; main.ts and the
// tests do.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { destination, pino } from 'pino';
import { messageRoutes } from './areas/agent-messages/routes.js';
import { agentRoutes } from './areas/agents/routes.js';
import { agentViewRoutes } from './areas/agents/views/routes.js';
import { approvalRoutes } from './areas/approvals/routes.js';
import { auditRoutes } from './areas/audit/routes.js';
import { businessRoutes } from './areas/business/routes.js';
import { complianceRoutes } from './areas/compliance/routes.js';
import { credentialRoutes } from './areas/credentials/routes.js';
import { customRuleRoutes } from './areas/custom-rules/routes.js';
import { detectorRoutes } from './areas/detectors/routes.js';
import { evalRoutes } from './areas/eval/routes.js';
import { evidenceRoutes } from './areas/evidence/routes.js';
import { exportRoutes } from './areas/export/routes.js';
import { findingRoutes } from './areas/findings/routes.js';
import { guardRoutes } from './areas/guard/routes.js';
import { feedbackRoutes } from './areas/guardrails/routes.js';
import { identityRoutes } from './areas/identities/routes.js';
import { jobRoutes } from './areas/jobs/routes.js';
import { judgmentRoutes } from './areas/judgment/routes.js';
import { mcpRoutes } from './areas/mcp/routes.js';
import { consoleRoutes } from './areas/console/routes.js';
import { memoryRoutes } from './areas/memory/routes.js';
import { metricsRoutes } from './areas/metrics/routes.js';
import { policyRoutes } from './areas/policies/routes.js';
import { proxyRoutes } from './areas/proxy/routes.js';
import { retentionRoutes } from './areas/retention/routes.js';
import { riskRoutes } from './areas/risk/routes.js';
import { answerabilityRoutes } from './areas/answerability/routes.js';
import { entitlementRoutes } from './areas/entitlement/routes.js';
import { assessRoutes } from './areas/sources/assess/routes.js';
import { sourceRoutes } from './areas/sources/routes.js';
import { alertRoutes } from './areas/alerts/routes.js';
import { codehostProvisionRoutes } from './areas/auth/codehost/routes.js';
import { discoveryRoutes } from './areas/discovery/routes.js';
import { codehostRoutes } from './areas/integrations/codehost/routes.js';
import { hostedApiRoutes } from './areas/integrations/hosted-api/routes.js';
import { monitorRoutes } from './areas/monitors/routes.js';
import { escalationRoutes } from './areas/escalation/routes.js';
import { importRoutes } from './areas/import/routes.js';
import { workspaceRoutes } from './areas/workspace/routes.js';
import { playgroundRoutes } from './areas/playground/routes.js';
import { waitlistRoutes } from './areas/waitlist/routes.js';
import { probeRoutes } from './areas/probes/routes.js';
import { publicRoutes } from './areas/public/routes.js';
import { redteamRoutes } from './areas/redteam/routes.js';
import { onboardingRoutes } from './areas/onboarding/routes.js';
import { providerRoutes } from './areas/providers/routes.js';
import { boardRoutes } from './areas/board/routes.js';
import { coverageRoutes } from './areas/coverage/routes.js';
import { obligationRoutes } from './areas/obligations/routes.js';
import { ruleExampleRoutes } from './areas/rules/routes.js';
import { systemRoutes } from './areas/system/routes.js';
import { GATEWAY_VERSION } from './areas/system/version.js';
import { tokenRoutes } from './areas/tokens/routes.js';
import { toolRoutes } from './areas/tools/routes.js';
import { traceRoutes } from './areas/traces/routes.js';
import { otlpRoutes } from './areas/traces/spans/routes.js';
import { usageRoutes } from './areas/usage/routes.js';
import { authPlugin, createAuthenticator } from './infra/auth/access.js';
import { configHash } from './infra/config/load.js';
import type { Config } from './infra/config/schema.js';
import { edgePlugin } from './infra/http/edge.js';
import { clientErrorHandler, errorsPlugin, frameworkError } from './infra/http/errors.js';
import { jsonBodyPlugin } from './infra/http/json-body.js';
import { openApiPlugin } from './infra/http/openapi.js';
import { rateLimitPlugin } from './infra/http/rate-limit.js';
import { createValidatorCompiler } from './infra/http/validation.js';
import { buildServices, type ServiceDeps, type Services } from './services.js';

export type { Services } from './services.js';

export type AppDeps = Omit<ServiceDeps, 'log' | 'onJobEvent' | 'onJobError'> & {
  /** Defaults to pino writing JSON lines to stdout. */
  logger?: FastifyBaseLogger;
};

export type App = FastifyInstance & { services: Services };

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config } = deps;
  const log = deps.logger ?? stdoutLogger(config);
  const services = await buildServices({ ...deps, log });
  const app = Fastify({
    loggerInstance: log,
    frameworkErrors: frameworkError,
    clientErrorHandler,
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
  app.addHook('onClose', async () => services.close());
  // The Redis several gateway processes share (closed with the services).
  const { redis } = services;
  app.setValidatorCompiler(createValidatorCompiler());
  // Only JSON bodies are accepted; anything else is a 415 rather than a string to validate.
  app.removeContentTypeParser('text/plain');

  await app.register(errorsPlugin);
  await app.register(jsonBodyPlugin, { maxDepth: config.body_max_depth });
  await app.register(authPlugin);
  await app.register(edgePlugin, {
    authenticate: createAuthenticator(services.resolver),
    metrics: services.metrics,
    logRequests: config.log_requests,
    slowRequestMs: config.slow_request_ms,
  });
  // Before any route: it classifies each route as it is registered.
  await app.register(rateLimitPlugin, {
    perMinute: { public: config.rate_limit_public_per_minute, api: config.rate_limit_api_per_minute, agent: config.rate_limit_agent_per_minute },
    credentialOf: credentialName,
    redis,
  });
  await app.register(openApiPlugin, { version: GATEWAY_VERSION });

  const { pipeline, reports, clock } = services;
  await app.register(systemRoutes, {
    health: services.health,
    versions: services.versions,
    metrics: services.metrics.registry,
    schemaMigration: () => services.schemaMigration,
    configHash: configHash(config),
  });
  await app.register(tokenRoutes, { tokens: services.tokens, credentials: services.credentials });
  await app.register(credentialRoutes, { credentials: services.credentials });
  await app.register(guardRoutes, { pipeline, messages: services.messages, memory: services.memory, tracer: services.tracer });
  await app.register(proxyRoutes, { proxy: services.proxy });
  await app.register(usageRoutes, { clock, runs: services.runs, reports });
  await app.register(agentRoutes, { agents: services.agents });
  await app.register(agentViewRoutes, { views: services.agentViews });
  await app.register(identityRoutes, { identities: services.identities });
  await app.register(toolRoutes, { tools: services.tools });
  await app.register(mcpRoutes, { mcp: services.mcp, tracer: services.tracer });
  await app.register(consoleRoutes);
  await app.register(approvalRoutes, { approvals: services.approvals });
  await app.register(auditRoutes, { audit: services.auditService });
  await app.register(findingRoutes, { findings: services.findings, attention: services.attention });
  await app.register(detectorRoutes, { detectors: services.detectors });
  await app.register(judgmentRoutes, { judgment: services.judgment });
  await app.register(policyRoutes, services.policyServices);
  await app.register(customRuleRoutes, { customRules: services.customRules });
  await app.register(businessRoutes, { businessRules: services.businessRules });
  await app.register(ruleExampleRoutes, { ruleExamples: services.ruleExamples });
  await app.register(feedbackRoutes, { feedback: services.feedback, reports });
  await app.register(messageRoutes, { signingKeys: services.signingKeys, messages: services.messages });
  await app.register(memoryRoutes, { memory: services.memory });
  await app.register(otlpRoutes, { spans: services.spans });
  await app.register(traceRoutes, { traces: services.traces, reports });
  await app.register(metricsRoutes, { reports });
  await app.register(exportRoutes, { reports });
  await app.register(retentionRoutes, { retention: services.retention });
  await app.register(jobRoutes, { jobs: services.jobs });
  await app.register(evidenceRoutes, { evidence: services.evidence });
  await app.register(complianceRoutes, { compliance: services.compliance });
  await app.register(riskRoutes, { risk: services.risk });
  await app.register(sourceRoutes, { sources: services.sources });
  await app.register(assessRoutes, { assess: services.assess });
  await app.register(entitlementRoutes, { entitlement: services.entitlement });
  await app.register(answerabilityRoutes, { answerability: services.answerability });
  await app.register(redteamRoutes, { redteam: services.redteam });
  await app.register(probeRoutes, { probeTargets: services.probeTargets });
  await app.register(codehostRoutes, { codehost: services.codehost });
  await app.register(hostedApiRoutes, { hostedApi: services.hostedApi });
  await app.register(alertRoutes, { alerts: services.alerts });
  await app.register(monitorRoutes, { monitors: services.monitors });
  await app.register(discoveryRoutes, { discovery: services.discovery });
  await app.register(codehostProvisionRoutes, { provision: services.codehostProvision });
  await app.register(escalationRoutes, { escalation: services.escalation });
  await app.register(importRoutes, { imports: services.imports });
  await app.register(workspaceRoutes, { workspace: services.workspace });
  await app.register(playgroundRoutes, { playground: services.playground });
  await app.register(waitlistRoutes, { waitlist: services.waitlist });
  await app.register(publicRoutes, { showcase: services.showcase, rateLimitPerMinute: config.showcase_rate_limit_per_minute });
  await app.register(onboardingRoutes, { onboarding: services.onboarding });
  await app.register(providerRoutes, { providers: services.providers });
  await app.register(boardRoutes, { board: services.board });
  await app.register(coverageRoutes, { coverage: services.coverage });
  await app.register(obligationRoutes, { obligations: services.obligations });
  await app.register(evalRoutes, { evaluations: services.evaluations });

  services.start({ runJobs: config.jobs_in_process, sweeps: true });
  return Object.assign(app as unknown as FastifyInstance, { services });
}

/** The credential a request was authenticated with, by its id (rate limits count per credential). */
function credentialName({ principal }: FastifyRequest): string | null {
  if (principal === null) return null;
  return principal.kind === 'agent' ? `agent:${principal.credentialId}` : `${principal.kind}:${principal.tokenId}`;
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
