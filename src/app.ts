// buildApp(deps): one Fastify instance with the cross-cutting plugins and every area registered.
// It never listens; main.ts and the tests do.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { destination, pino } from 'pino';
import { agentRoutes } from './areas/agents/routes.js';
import { agentViewRoutes } from './areas/agents/views/routes.js';
import { AgentViewService } from './areas/agents/views/service.js';
import { RegistryDirectory } from './areas/agents/directory.js';
import { AgentService } from './areas/agents/service.js';
import { DatabaseUsageCounter } from './areas/agents/usage.js';
import { approvalRoutes } from './areas/approvals/routes.js';
import { ApprovalService } from './areas/approvals/service.js';
import { AttentionService } from './areas/findings/attention.js';
import { findingRoutes } from './areas/findings/routes.js';
import { FindingService } from './areas/findings/service.js';
import { AuditCheckpoints } from './areas/audit/checkpoints.js';
import { AuditLog } from './areas/audit/log.js';
import { auditRoutes } from './areas/audit/routes.js';
import { AuditService } from './areas/audit/service.js';
import { CredentialResolver } from './infra/auth/resolver.js';
import { ConfigError, configHash } from './infra/config/load.js';
import type { Config } from './infra/config/schema.js';
import { credentialRoutes } from './areas/credentials/routes.js';
import { ALL_DETECTORS } from './engine/detectors/index.js';
import { DetectorRegistry } from './engine/detectors/registry.js';
import { detectorRoutes } from './areas/detectors/routes.js';
import { DetectorService } from './areas/detectors/service.js';
import type { Detector } from './engine/detectors/types.js';
import { evidenceRoutes } from './areas/evidence/routes.js';
import { EvidenceService } from './areas/evidence/service.js';
import { FileEvidenceStorage, type EvidenceStorage } from './areas/evidence/storage.js';
import { guardRoutes } from './areas/guard/routes.js';
import { proxyRoutes } from './areas/proxy/routes.js';
import { usageRoutes } from './areas/usage/routes.js';
import { RunGovernor } from './areas/usage/service.js';
import { CredentialService } from './areas/credentials/service.js';
import { authPlugin, createAuthenticator } from './infra/auth/access.js';
import { clientErrorHandler, errorsPlugin, frameworkError } from './infra/http/errors.js';
import { edgePlugin } from './infra/http/edge.js';
import { jsonBodyPlugin } from './infra/http/json-body.js';
import { HttpMetrics } from './infra/http/metrics.js';
import { identityRoutes } from './areas/identities/routes.js';
import { registerJobHandlers } from './areas/jobs/handlers.js';
import { JobQueue } from './infra/jobs/queue.js';
import { jobRoutes } from './areas/jobs/routes.js';
import { JobService } from './areas/jobs/service.js';
import { Worker, type WorkerEvent } from './infra/jobs/worker.js';
import { IdentityService } from './areas/identities/service.js';
import { openApiPlugin } from './infra/http/openapi.js';
import { createValidatorCompiler } from './infra/http/validation.js';
import { systemClock, type Clock } from './infra/lib/clock.js';
import { Sealer } from './infra/lib/sealed.js';
import { McpService } from './areas/mcp/service.js';
import { mcpRoutes } from './areas/mcp/routes.js';
import { memoryRoutes } from './areas/memory/routes.js';
import { MemoryService } from './areas/memory/service.js';
import { messageRoutes } from './areas/agent-messages/routes.js';
import { AgentMessageService } from './areas/agent-messages/service.js';
import { SigningKeyService } from './areas/agent-messages/signing-keys.js';
import { DetectionCache } from './engine/pipeline/cache.js';
import { loadSqlParser } from './engine/pipeline/actions/index.js';
import { Pipeline, type AgentDirectory } from './engine/pipeline/decide.js';
import { DecisionMetrics } from './engine/pipeline/metrics.js';
import { policyRoutes } from './areas/policies/routes.js';
import { businessRoutes } from './areas/business/routes.js';
import { BusinessRuleService } from './areas/business/service.js';
import { CUSTOM_RULES_DETECTOR_KEY, CustomRulesDetector } from './areas/custom-rules/detector.js';
import { customRuleRoutes } from './areas/custom-rules/routes.js';
import { CustomRuleService } from './areas/custom-rules/service.js';
import { ruleExampleRoutes } from './areas/rules/routes.js';
import { RuleExampleService } from './areas/rules/service.js';
import { SuppressionFilter } from './areas/guardrails/filter.js';
import { feedbackRoutes } from './areas/guardrails/routes.js';
import { FeedbackService } from './areas/guardrails/service.js';
import { createPolicyServices, type PolicyServices } from './areas/policies/index.js';
import type { PolicyService } from './areas/policies/service.js';
import { SHIPPED_PACKS } from './engine/policy/packs/index.js';
import { parsePack } from './engine/policy/parse.js';
import { PolicyRegistry } from './engine/policy/registry.js';
import { Recorder } from './engine/recording/recorder.js';
import type { Store } from './infra/store/db.js';
import { ReportReader } from './infra/store/reader.js';
import { HealthRegistry } from './areas/system/health.js';
import { systemRoutes } from './areas/system/routes.js';
import { GATEWAY_VERSION, VersionRegistry } from './areas/system/version.js';
import { exportRoutes } from './areas/export/routes.js';
import { retentionRoutes } from './areas/retention/routes.js';
import { RetentionService } from './areas/retention/service.js';
import { otlpRoutes } from './areas/traces/spans/routes.js';
import { SpanService } from './areas/traces/spans/service.js';
import { traceRoutes } from './areas/traces/routes.js';
import { metricsRoutes } from './areas/metrics/routes.js';
import type { REPORT_JOBS} from './report-jobs.js';
import { REPORT_JOBS_MODULE } from './report-jobs.js';
import { TraceService } from './areas/traces/service.js';
import { tokenRoutes } from './areas/tokens/routes.js';
import { toolRoutes } from './areas/tools/routes.js';
import { ToolService } from './areas/tools/service.js';
import { TokenService } from './areas/tokens/service.js';

export interface AppDeps {
  config: Config;
  store: Store;
  clock?: Clock;
  /** Defaults to pino writing JSON lines to stdout. */
  logger?: FastifyBaseLogger;
  /** Defaults to every registered detector (tests pass slow or failing ones). */
  detectors?: readonly Detector[];
  /** Defaults to the agent registry in the database (tests may pass a fixed directory). */
  agents?: AgentDirectory;
  /** Defaults to files under `<data_dir>/evidence/` (tests wrap it with one that fails). */
  evidenceStorage?: EvidenceStorage;
}

export interface Services {
  clock: Clock;
  audit: AuditLog;
  auditCheckpoints: AuditCheckpoints;
  resolver: CredentialResolver;
  tokens: TokenService;
  credentials: CredentialService;
  health: HealthRegistry;
  versions: VersionRegistry;
  pipeline: Pipeline;
  recorder: Recorder;
  detectors: DetectorService;
  policies: PolicyService;
  sealer: Sealer;
  signingKeys: SigningKeyService;
  messages: AgentMessageService;
  memory: MemoryService;
  directory: RegistryDirectory;
  agents: AgentService;
  tools: ToolService;
  approvals: ApprovalService;
  identities: IdentityService;
  retention: RetentionService;
  queue: JobQueue;
  jobs: JobService;
  /** This process's job worker; started only when `jobs_in_process` is true. */
  worker: Worker;
  evidence: EvidenceService;
  findings: FindingService;
  mcp: McpService;
}

export type App = FastifyInstance & { services: Services };

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** How often a process reads back the detector switches and pack modes other processes stored. */
const STATE_SYNC_MS = 1000;
/** How often orphaned and stale identities are looked for. */
const IDENTITY_SWEEP_MS = 3_600_000;
/** Texts longer than this are not kept in the detection cache: long texts rarely repeat exactly. */
const DETECTION_CACHE_MAX_TEXT = 65_536;

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, store, clock = systemClock, logger } = deps;
  const schemaMigration = await store.latestMigration();
  const audit = new AuditLog(store, clock);
  const resolver = new CredentialResolver(store, clock, config.auth_cache_ms);
  // Operators' custom rules run as one more detector, enabled always: with no rule it serves no surface.
  const customRulesDetector = new CustomRulesDetector();
  const detectorKeys = [...config.enabled_detectors, CUSTOM_RULES_DETECTOR_KEY];
  const detectorRegistry = new DetectorRegistry([...(deps.detectors ?? ALL_DETECTORS), customRulesDetector], detectorKeys, {
    acceptRestrictedModelLicences: config.accept_restricted_model_licences,
  });
  const unknown = config.enabled_detectors.filter((key) => detectorRegistry.get(key) === undefined);
  if (unknown.length > 0) {
    throw new ConfigError(
      `config: enabled_detectors names unknown detectors ${unknown.join(', ')}; known: ${detectorRegistry.detectors.map((d) => d.key).join(', ')}`,
    );
  }
  const policyRegistry = new PolicyRegistry(SHIPPED_PACKS);
  const metrics = new HttpMetrics();
  const decisionMetrics = new DecisionMetrics(metrics.registry);
  let recordingErrors: (error: unknown) => void = () => undefined;
  const recorder = new Recorder(store, { registry: metrics.registry, onError: (error) => recordingErrors(error) });
  const directory = new RegistryDirectory(store, clock, (error) => recordingErrors(error));
  await directory.start();
  // SQL action analysis needs the optional parser; without it SQL arguments fail closed.
  const sqlAnalysis = await loadSqlParser();
  const approvals = new ApprovalService(store, audit, clock);
  const suppressions = new SuppressionFilter(store, clock);
  const pipeline = new Pipeline({
    detectors: detectorRegistry,
    policies: policyRegistry,
    agents: deps.agents ?? directory,
    recorder,
    approvals,
    usage: new DatabaseUsageCounter(store),
    clock,
    cache: new DetectionCache({ maxChars: config.detection_cache_chars, maxTextChars: DETECTION_CACHE_MAX_TEXT }),
    settings: {
      enforcementBudgetMs: config.enforcement_budget_ms,
      detectorTimeoutMs: config.detector_timeout_ms,
      scaling: {
        timeoutPerKbMs: config.detector_timeout_per_kb_ms,
        budgetPerKbMs: config.enforcement_budget_per_kb_ms,
        ceilingMs: config.detection_ceiling_ms,
        maxChars: config.detection_max_chars,
      },
      failMode: config.fail_mode,
      detectorSettings: { pii_packs: config.pii_packs },
      recordContent: config.record_content,
    },
    observe: decisionMetrics.observe,
    suppressions,
  });
  // Signed agent messages and memory entries are written in batches off the request path; their
  // write errors go to the app's log once it exists.
  let writeErrors: (error: unknown) => void = () => undefined;
  let mcpErrors: (error: unknown, server: string) => void = () => undefined;
  const sealer = new Sealer({ secretKey: config.secret_key, dataDir: config.data_dir });
  const signingKeys = new SigningKeyService(store, audit, sealer, clock);
  const credentials = new CredentialService(store, audit, resolver, clock);
  const tools = new ToolService(store, audit, clock, directory);
  const queue = new JobQueue(store, clock, { retryBaseMs: config.job_retry_base_ms });
  let jobEvents: (event: WorkerEvent) => void = () => undefined;
  let jobErrors: (error: unknown) => void = () => undefined;
  const worker = new Worker({
    queue,
    pollMs: config.job_poll_ms,
    leaseMs: config.job_lease_ms,
    onEvent: (event) => jobEvents(event),
    onError: (error) => jobErrors(error),
  });
  const agents = new AgentService({ store, audit, clock, recorder, directory, credentials, toolImpact: async (key) => tools.impact(key) });
  const policyServices: PolicyServices = createPolicyServices({
    registry: policyRegistry,
    store,
    audit,
    clock,
    directory,
    shipped: SHIPPED_PACKS.map((text) => parsePack(text)),
    knownEntities: () => detectorRegistry.detectors.flatMap((detector) => detector.entityTypes),
  });
  const services: Services = {
    clock,
    audit,
    resolver,
    tokens: new TokenService(store, audit, resolver, clock),
    credentials,
    health: new HealthRegistry(store),
    versions: new VersionRegistry(),
    pipeline,
    recorder,
    detectors: new DetectorService(detectorRegistry, detectorKeys, store, audit, clock),
    policies: policyServices.policies,
    sealer,
    auditCheckpoints: new AuditCheckpoints(store, audit, sealer, clock),
    signingKeys,
    messages: new AgentMessageService(store, signingKeys, clock, {
      maxSkewSeconds: config.message_max_skew_seconds,
      onError: (error) => writeErrors(error),
    }),
    memory: new MemoryService(store, audit, clock, {
      unverifiedTtlSeconds: config.memory_unverified_ttl_seconds,
      onError: (error) => writeErrors(error),
    }),
    directory,
    agents,
    tools,
    approvals,
    identities: new IdentityService({ store, audit, clock, resolver, credentials, agents, directory, recorder }),
    retention: new RetentionService(store, audit, clock, {
      retention_trace_content_days: config.retention_trace_content_days,
      retention_traces_days: config.retention_traces_days,
      retention_memory_days: config.retention_memory_days,
      retention_sweep_ms: config.retention_sweep_ms,
    }),
    queue,
    jobs: new JobService(queue, audit),
    worker,
    evidence: new EvidenceService({
      store,
      audit,
      clock,
      queue,
      storage: deps.evidenceStorage ?? new FileEvidenceStorage(path.join(config.data_dir, 'evidence')),
      // Read when a package is built: both services are made in this same object.
      policies: { sync: () => services.policies.sync(), list: () => services.policies.list() },
      checkpoints: {
        create: (actor) => services.auditCheckpoints.create(actor),
        publicKey: () => services.auditCheckpoints.publicKey(),
        inRange: (startSeq, endSeq) => services.auditCheckpoints.inRange(startSeq, endSeq),
      },
    }),
    findings: new FindingService(store, audit, clock),
    mcp: new McpService({
      store,
      audit,
      clock,
      recorder,
      pipeline,
      gatewayVersion: GATEWAY_VERSION,
      requestBudgetMs: config.request_budget_ms,
      onError: (error, server) => mcpErrors(error, server),
    }),
  };
  await services.detectors.sync();
  await services.policies.seed();
  await services.policies.sync();
  await suppressions.sync();
  services.versions.add('policies', () => policyRegistry.versions());
  // 2: the mcp_tool condition; 3: agent, tool and argument conditions, on_block.
  services.versions.add('policy_language', () => '4');
  services.versions.add('detectors', () => `${detectorRegistry.enabledKeys().join(',')}@${GATEWAY_VERSION}`);
  services.health.addGaps(() => [
    ...detectorRegistry.unavailableEnabled().map(({ key, reason }) => ({ what: `detector ${key}`, why: reason })),
    ...policyRegistry
      .list()
      .filter(({ mode, level }) => mode === 'observe' && level === 'org')
      .map(({ key }) => ({ what: `policy pack ${key}`, why: 'in observe: what it detects is reported, not blocked' })),
  ]);
  services.health.addGaps(() => deploymentGaps(config));
  if (!sqlAnalysis) {
    services.health.addGaps(() => [
      { what: 'SQL action analysis', why: 'the optional package node-sql-parser is not installed: tool calls with SQL arguments are blocked (fail closed)' },
    ]);
  }

  const app = Fastify({
    loggerInstance: logger ?? stdoutLogger(config),
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
  recordingErrors = (error) => app.log.error({ err: error }, 'recording decisions failed');
  const customRules = new CustomRuleService({
    store,
    audit,
    clock,
    detector: customRulesDetector,
    onChange: (pack) => {
      policyRegistry.setExtraPack('custom-rules', pack);
      // The detector's surfaces changed: rebuilding its lists also keeps the detection cache from answering from before.
      if (detectorRegistry.isEnabled(CUSTOM_RULES_DETECTOR_KEY)) detectorRegistry.setEnabled(CUSTOM_RULES_DETECTOR_KEY, true);
    },
    onSkipped: (skipped) => app.log.warn({ skipped }, 'custom rules that no longer compile are not enforced'),
  });
  const businessRules = new BusinessRuleService({ store, audit, clock, onChange: (pack) => policyRegistry.setExtraPack('business-rules', pack) });
  await customRules.sync();
  await businessRules.sync();
  writeErrors = (error) => app.log.error({ err: error }, 'recording agent messages or memory entries failed');
  mcpErrors = (error, server) => app.log.warn({ err: error, server }, 'rescanning an MCP server after tools/list_changed failed');
  app.setValidatorCompiler(createValidatorCompiler());
  // Only JSON bodies are accepted; anything else is a 415 rather than a string to validate.
  app.removeContentTypeParser('text/plain');

  await app.register(errorsPlugin);
  await app.register(jsonBodyPlugin, { maxDepth: config.body_max_depth });
  await app.register(authPlugin);
  await app.register(edgePlugin, {
    authenticate: createAuthenticator(resolver),
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
  await app.register(guardRoutes, { pipeline, messages: services.messages, memory: services.memory });
  const runs = new RunGovernor({
    store,
    agents: deps.agents ?? directory,
    recorder,
    clock,
    prices: config.model_prices,
    onError: (error) => app.log.error({ err: error }, 'counting model usage failed'),
  });
  await app.register(proxyRoutes, { pipeline, config, clock, runs });
  // Reports read in their own threads so that they never hold up agent traffic.
  const reports = new ReportReader<typeof REPORT_JOBS>({ jobsModule: REPORT_JOBS_MODULE, store, databaseUrl: config.database_url, clock, timeoutMs: config.report_timeout_ms, threads: config.report_threads });
  app.addHook('onClose', async () => reports.close());
  await app.register(usageRoutes, { clock, runs, reports });
  await app.register(agentRoutes, { agents });
  await app.register(agentViewRoutes, { views: new AgentViewService({ store, audit, clock, recorder, directory }) });
  await app.register(identityRoutes, { identities: services.identities });
  await app.register(toolRoutes, { tools });
  await app.register(mcpRoutes, { mcp: services.mcp });
  await app.register(approvalRoutes, { approvals });
  await app.register(auditRoutes, { audit: new AuditService(store, services.auditCheckpoints) });
  await app.register(findingRoutes, { findings: services.findings, attention: new AttentionService(store, clock) });
  await app.register(detectorRoutes, { detectors: services.detectors });
  await app.register(policyRoutes, policyServices);
  await app.register(customRuleRoutes, { customRules });
  await app.register(businessRoutes, { businessRules });
  await app.register(ruleExampleRoutes, { ruleExamples: new RuleExampleService({ store, audit, clock, livePack: (key) => policyRegistry.pack(key) }) });
  await app.register(feedbackRoutes, {
    feedback: new FeedbackService({ store, audit, clock, onSuppressionsChanged: () => suppressions.sync() }),
    reports,
  });
  await app.register(messageRoutes, { signingKeys: services.signingKeys, messages: services.messages });
  await app.register(memoryRoutes, { memory: services.memory });
  await app.register(otlpRoutes, { spans: new SpanService(store, clock) });
  await app.register(traceRoutes, { traces: new TraceService(store, clock), reports });
  await app.register(metricsRoutes, { reports });
  await app.register(exportRoutes, { reports });
  await app.register(retentionRoutes, { retention: services.retention });
  services.retention.start((error) => app.log.warn({ err: error }, 'retention sweep failed'));
  await app.register(jobRoutes, { jobs: services.jobs });
  await app.register(evidenceRoutes, { evidence: services.evidence });
  app.addHook('onClose', async () => {
    await Promise.all([services.messages.close(), services.memory.close(), services.mcp.close()]);
  });

  registerJobHandlers(worker, { evidenceBuild: services.evidence.handleJob });
  jobEvents = (event) => (event.event === 'dead' || event.event === 'lost' ? app.log.warn(event, `job ${event.event}`) : app.log.info(event, `job ${event.event}`));
  jobErrors = (error) => app.log.error({ err: error }, 'job queue failed');
  if (config.jobs_in_process) worker.start();
  // Stopped before the database closes: the job in hand finishes and is recorded first.
  app.addHook('onClose', async () => worker.stop());

  const syncTimer = setInterval(() => {
    Promise.all([services.detectors.sync(), services.policies.sync(), suppressions.sync(), customRules.sync(), businessRules.sync()]).catch((error: unknown) =>
      app.log.warn({ err: error }, 'reading detector switches, policies, rules and suppressions failed'),
    );
  }, STATE_SYNC_MS);
  syncTimer.unref();
  const sweepTimer = setInterval(() => {
    services.identities.sweep().catch((error: unknown) => app.log.warn({ err: error }, 'looking for orphaned and stale identities failed'));
  }, IDENTITY_SWEEP_MS);
  sweepTimer.unref();

  app.addHook('onClose', async () => {
    clearInterval(syncTimer);
    clearInterval(sweepTimer);
    await services.retention.stop();
    await directory.close();
    await recorder.close();
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
