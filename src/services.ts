// The composition root: buildServices() makes every service of the gateway once, in one place, for
// the server (src/app.ts), `parapet worker` and the tests. It opens nothing but what the services
// themselves hold (the store is passed in) and starts no timer until start() is called.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { RegistryDirectory } from './areas/agents/directory.js';
import { AgentService } from './areas/agents/service.js';
import { DatabaseUsageCounter } from './areas/agents/usage.js';
import { AgentViewService } from './areas/agents/views/service.js';
import { AgentMessageService } from './areas/agent-messages/service.js';
import { SigningKeyService } from './areas/agent-messages/signing-keys.js';
import { ApprovalService } from './areas/approvals/service.js';
import { AuditCheckpoints } from './areas/audit/checkpoints.js';
import { AuditLog } from './areas/audit/log.js';
import { AuditService } from './areas/audit/service.js';
import { BusinessRuleService } from './areas/business/service.js';
import { ComplianceService } from './areas/compliance/service.js';
import { CredentialService } from './areas/credentials/service.js';
import { CUSTOM_RULES_DETECTOR_KEY, CustomRulesDetector } from './areas/custom-rules/detector.js';
import { CustomRuleService } from './areas/custom-rules/service.js';
import { DetectorService } from './areas/detectors/service.js';
import { createEvalServices, type EvalServices } from './areas/eval/index.js';
import { judgeAvailable, judgeWithTiers } from './engine/detectors/judgment/rubric.js';
import type { ScorerHelpers } from './areas/eval/types.js';
import { EvidenceService } from './areas/evidence/service.js';
import { FileEvidenceStorage, type EvidenceStorage } from './areas/evidence/storage.js';
import { AttentionService } from './areas/findings/attention.js';
import { FindingService } from './areas/findings/service.js';
import { SuppressionFilter } from './areas/guardrails/filter.js';
import { FeedbackService } from './areas/guardrails/service.js';
import { IdentityService } from './areas/identities/service.js';
import { JudgmentService } from './areas/judgment/service.js';
import { registerJobHandlers } from './areas/jobs/handlers.js';
import { JobService } from './areas/jobs/service.js';
import { McpService } from './areas/mcp/service.js';
import { MemoryService } from './areas/memory/service.js';
import { createPolicyServices, type PolicyServices } from './areas/policies/index.js';
import { RetentionService } from './areas/retention/service.js';
import { loadClassificationRules } from './areas/risk/classify.js';
import { RiskService } from './areas/risk/service.js';
import { ANSWERABILITY_DETECTOR_KEY, AnswerabilityDetector } from './areas/answerability/detector.js';
import { AnswerabilityService } from './areas/answerability/service.js';
import { EntitlementService } from './areas/entitlement/service.js';
import { AssessService } from './areas/sources/assess/service.js';
import { SourceService } from './areas/sources/service.js';
import { ProbeTargetService } from './areas/probes/service.js';
import { ShowcaseService } from './areas/public/service.js';
import { loadProbeLibrary } from './areas/redteam/library.js';
import { RedteamService } from './areas/redteam/service.js';
import { OnboardingService } from './areas/onboarding/service.js';
import { ProvidersService } from './areas/providers/service.js';
import { BoardService } from './areas/board/service.js';
import { CoverageService, loadThreats } from './areas/coverage/service.js';
import { loadObligations, ObligationsService } from './areas/obligations/service.js';
import { RuleExampleService } from './areas/rules/service.js';
import { HealthRegistry, migrationsProbe } from './areas/system/health.js';
import { GATEWAY_VERSION, VersionRegistry } from './areas/system/version.js';
import { TokenService } from './areas/tokens/service.js';
import { ChatAlertService } from './areas/alerts/service.js';
import { CodehostProvisionService } from './areas/auth/codehost/service.js';
import { DiscoveryService } from './areas/discovery/service.js';
import { CodehostService } from './areas/integrations/codehost/service.js';
import { HostedApiService } from './areas/integrations/hosted-api/service.js';
import { MonitorService } from './areas/monitors/service.js';
import { EscalationService } from './areas/escalation/service.js';
import { handoffNotice } from './areas/escalation/notice.js';
import { ImportService } from './areas/import/service.js';
import { WorkspaceService } from './areas/workspace/service.js';
import type { SandboxCore } from './areas/playground/sandbox.js';
import { PlaygroundService } from './areas/playground/service.js';
import { WaitlistService } from './areas/waitlist/service.js';
import { ToolService } from './areas/tools/service.js';
import { SpanService } from './areas/traces/spans/service.js';
import { TraceService } from './areas/traces/service.js';
import { ProxyService } from './areas/proxy/service.js';
import { RunGovernor } from './areas/usage/service.js';
import { ALL_DETECTORS } from './engine/detectors/index.js';
import { createJudgmentDetectors } from './engine/detectors/judgment/detectors.js';
import { bindRailsSettings } from './engine/detectors/rails/index.js';
import { bindClassifierSettings } from './engine/detectors/classifier/index.js';
import { bindSimilaritySettings } from './engine/detectors/similarity/index.js';
import { defaultPosture, JudgmentState } from './engine/detectors/judgment/posture.js';
import { DetectorRegistry } from './engine/detectors/registry.js';
import type { Detector } from './engine/detectors/types.js';
import { loadSqlParser } from './engine/pipeline/actions/index.js';
import { DetectionCache } from './engine/pipeline/cache.js';
import { Pipeline, type AgentDirectory } from './engine/pipeline/decide.js';
import { DecisionMetrics } from './engine/pipeline/metrics.js';
import { SHIPPED_PACKS } from './engine/policy/packs/index.js';
import { parsePack } from './engine/policy/parse.js';
import { PolicyRegistry } from './engine/policy/registry.js';
import { Recorder } from './engine/recording/recorder.js';
import { CredentialResolver } from './infra/auth/resolver.js';
import { ConfigError } from './infra/config/load.js';
import type { Config } from './infra/config/schema.js';
import { HttpMetrics } from './infra/http/metrics.js';
import { JobQueue } from './infra/jobs/queue.js';
import { Worker, type WorkerEvent } from './infra/jobs/worker.js';
import { systemClock, type Clock } from './infra/lib/clock.js';
import { packagePath } from './infra/lib/package-root.js';
import { Sealer } from './infra/lib/sealed.js';
import { createTracer, type GatewayTracer } from './infra/tracing.js';
import { createRedis, type SharedRedis } from './infra/redis.js';
import { SharedSessionState } from './engine/pipeline/shared-state.js';
import { Store } from './infra/store/db.js';
import { ChangeBus } from './infra/store/notify.js';
import { ReportReader } from './infra/store/reader.js';
import { REPORT_JOBS_MODULE, type REPORT_JOBS } from './report-jobs.js';

export interface ServiceDeps {
  config: Config;
  store: Store;
  /** Where the services report what goes wrong in the background (recording, jobs, sweeps). */
  log: FastifyBaseLogger;
  clock?: Clock;
  /** Defaults to every registered detector (tests pass slow or failing ones). */
  detectors?: readonly Detector[];
  /** Defaults to the agent registry in the database (tests may pass a fixed directory). */
  agents?: AgentDirectory;
  /** Defaults to files under `<data_dir>/evidence/` (tests wrap it with one that fails). */
  evidenceStorage?: EvidenceStorage;
  /** Job events; defaults to the log. `parapet worker` writes its own lines. */
  onJobEvent?: (event: WorkerEvent) => void;
  onJobError?: (error: unknown) => void;
}

export interface Services {
  config: Config;
  store: Store;
  clock: Clock;
  log: FastifyBaseLogger;
  metrics: HttpMetrics;
  /** Self-tracing: the OTLP exporter when otel_traces_endpoint is set, else off (no spans at all). */
  tracer: GatewayTracer;
  /** The Redis several gateway processes share (`redis_url`); null: each process keeps its own state. */
  redis: SharedRedis | null;
  audit: AuditLog;
  auditCheckpoints: AuditCheckpoints;
  auditService: AuditService;
  resolver: CredentialResolver;
  tokens: TokenService;
  credentials: CredentialService;
  health: HealthRegistry;
  versions: VersionRegistry;
  /** Announces changes to the other processes sharing the database and applies theirs as they happen. */
  changes: ChangeBus;
  /** The newest migration the database had when the services were built. */
  schemaMigration: string;
  detectorRegistry: DetectorRegistry;
  policyRegistry: PolicyRegistry;
  pipeline: Pipeline;
  recorder: Recorder;
  detectors: DetectorService;
  judgment: JudgmentService;
  policies: PolicyServices['policies'];
  policyServices: PolicyServices;
  customRules: CustomRuleService;
  businessRules: BusinessRuleService;
  ruleExamples: RuleExampleService;
  suppressions: SuppressionFilter;
  feedback: FeedbackService;
  sealer: Sealer;
  signingKeys: SigningKeyService;
  messages: AgentMessageService;
  memory: MemoryService;
  directory: RegistryDirectory;
  agents: AgentService;
  agentViews: AgentViewService;
  tools: ToolService;
  approvals: ApprovalService;
  identities: IdentityService;
  retention: RetentionService;
  runs: RunGovernor;
  /** The model proxies: upstreams, usage since start, the flow of each wire format; evaluations' model caller. */
  proxy: ProxyService;
  reports: ReportReader<typeof REPORT_JOBS>;
  traces: TraceService;
  spans: SpanService;
  findings: FindingService;
  attention: AttentionService;
  queue: JobQueue;
  jobs: JobService;
  /** This process's job worker; started by start() only when asked to run jobs. */
  worker: Worker;
  evidence: EvidenceService;
  compliance: ComplianceService;
  risk: RiskService;
  /** The knowledge-source registry and connections. */
  sources: SourceService;
  /** Answers assessed against retrieved chunks and their sources; context checks. */
  assess: AssessService;
  /** Entitlement principals and grants; filtering retrieved chunks. */
  entitlement: EntitlementService;
  /** Answerability boundaries and checks. */
  answerability: AnswerabilityService;
  /** Red-team campaigns against an agent's policy (or a probe target), from the probe library. */
  redteam: RedteamService;
  /** Probe targets: live agents probed after an opt-in, with hard caps; scheduled runs (job probes.run). */
  probeTargets: ProbeTargetService;
  /** The public showcase: the built-in demo agent probed on a schedule, and its feed (GET /api/public/showcase). */
  showcase: ShowcaseService;
  mcp: McpService;
  /** The code-host connection, repository scans (job codehost.scan) and the signed push webhook. */
  codehost: CodehostService;
  /** Hosted APIs' OpenAPI documents read and recorded. */
  hostedApi: HostedApiService;
  /** The chat alert channel: new findings posted (job alerts.chat). */
  alerts: ChatAlertService;
  /** Monitors with baselines (job monitors.run), scheduled once across processes. */
  monitors: MonitorService;
  /** Shadow agents from traffic, spans and code; external scanner submissions. */
  discovery: DiscoveryService;
  /** People provisioned from code-host identities. */
  codehostProvision: CodehostProvisionService;
  /** Conversational turns, escalation policies, hand-offs to people with SLAs, missed escalations. */
  escalation: EscalationService;
  /** Configuration of other guardrail tools mapped onto Parapet (plan, apply). */
  imports: ImportService;
  /** The whole workspace as code: export, plan, apply. */
  workspace: WorkspaceService;
  /** The public sandbox: sessions isolated from the real deployment. */
  playground: PlaygroundService;
  /** The public waitlist. */
  waitlist: WaitlistService;
  onboarding: OnboardingService;
  providers: ProvidersService;
  board: BoardService;
  coverage: CoverageService;
  obligations: ObligationsService;
  evaluations: EvalServices;
  /** Starts the background work: state sync, sweeps and, when `runJobs`, the job worker. */
  start(options: { runJobs: boolean; sweeps: boolean }): void;
  /** Stops the background work and closes what the services hold (not the store). */
  close(): Promise<void>;
}

/** How often a process reads back the detector switches and pack modes other processes stored. */
const STATE_SYNC_MS = 1000;
/** With the change bus listening across processes, changes arrive as they happen: the read is a fallback every this many ticks. */
const STATE_SYNC_TICKS_WITH_BUS = 5;
/** How often orphaned and stale identities are looked for. */
const IDENTITY_SWEEP_MS = 3_600_000;
/** How often a process checks whether the daily control computation is due. */
const CONTROLS_CHECK_MS = 3_600_000;
/** How often due probe targets are looked for and their runs queued (job probes.run). */
const PROBE_SCHEDULE_MS = 60_000;
/** How often new findings are looked for to alert on, and due monitor runs queued. */
const ALERT_SWEEP_MS = 5_000;
const MONITOR_SCHEDULE_MS = 5_000;
const ESCALATION_SWEEP_MS = 30_000;
/** Texts longer than this are not kept in the detection cache: long texts rarely repeat exactly. */
const DETECTION_CACHE_MAX_TEXT = 65_536;

export async function buildServices(deps: ServiceDeps): Promise<Services> {
  const { config, store, log, clock = systemClock } = deps;
  const schemaMigration = await store.latestMigration();
  const audit = new AuditLog(store, clock);
  // Opens nothing yet: on PostgreSQL its listening connection is made by start().
  const changes = ChangeBus.open(store, { onError: (error, what) => log.warn({ err: error }, `change bus: ${what} failed`) });
  const resolver = new CredentialResolver(store, clock, config.auth_cache_ms, changes);
  // Operators' custom rules run as one more detector, enabled always: with no rule it serves no surface.
  const customRulesDetector = new CustomRulesDetector();
  // Answerability boundaries are checked by one more always-enabled detector; without a boundary it finds nothing.
  const answerabilityDetector = new AnswerabilityDetector();
  const detectorKeys = [...config.enabled_detectors, CUSTOM_RULES_DETECTOR_KEY, ANSWERABILITY_DETECTOR_KEY];
  // The judgment detectors read this process's posture (stored by PUT /api/judgment/posture, else the settings).
  const judgmentState = new JudgmentState(defaultPosture(config.judgment_tiers), { allowEgress: config.allow_egress }, (name) => process.env[name]);
  const judgmentDetectors = createJudgmentDetectors(judgmentState);
  const ownJudgment = new Map(Object.values(judgmentDetectors).map((detector) => [detector.key, detector]));
  const registered = bindRailsSettings(
    (deps.detectors ?? ALL_DETECTORS).map((detector) => ownJudgment.get(detector.key) ?? detector),
    { banned_terms: config.rails_banned_terms, validators: config.rails_validators },
  );
  const withSimilarity = await bindSimilaritySettings(registered, config.similarity_model_path);
  const withModels = await bindClassifierSettings(withSimilarity, config.injection_classifier_model_path);
  const detectorRegistry = new DetectorRegistry([...withModels, customRulesDetector, answerabilityDetector], detectorKeys, {
    acceptRestrictedModelLicences: config.accept_restricted_model_licences,
  });
  // The registry caches its per-surface lists (and the detection cache keys on them): a boundary change rebuilds them.
  answerabilityDetector.onChanged = () => detectorRegistry.setEnabled(ANSWERABILITY_DETECTOR_KEY, true);
  const unknown = config.enabled_detectors.filter((key) => detectorRegistry.get(key) === undefined);
  if (unknown.length > 0) {
    throw new ConfigError(
      `config: enabled_detectors names unknown detectors ${unknown.join(', ')}; known: ${detectorRegistry.detectors.map((d) => d.key).join(', ')}`,
    );
  }
  const policyRegistry = new PolicyRegistry(SHIPPED_PACKS);
  const metrics = new HttpMetrics();
  const tracer = createTracer(config, { onExportError: (error) => log.warn({ err: error }, 'exporting trace spans failed') });
  // One Redis connection for what several gateway processes share: rate limits, session state, breakers.
  const redis = config.redis_url === null ? null : createRedis(config.redis_url, log);
  const sharedState = redis === null ? undefined : new SharedSessionState(redis.client, { prefix: config.redis_key_prefix, timeoutMs: config.redis_state_timeout_ms });
  const decisionMetrics = new DecisionMetrics(metrics.registry);
  const recordingFailed = (error: unknown) => log.error({ err: error }, 'recording decisions failed');
  const writeFailed = (error: unknown) => log.error({ err: error }, 'recording agent messages or memory entries failed');
  const recorder = new Recorder(store, { registry: metrics.registry, onError: recordingFailed });
  const directory = new RegistryDirectory(store, clock, recordingFailed, changes);
  await directory.start();
  const agentDirectory = deps.agents ?? directory;
  // SQL action analysis needs the optional parser; without it SQL arguments fail closed.
  const sqlAnalysis = await loadSqlParser();
  const approvals = new ApprovalService(store, audit, clock);
  const suppressions = new SuppressionFilter(store, clock);
  // Built before the pipeline (issue 21): its open hand-offs make output checks escalate, and the proxy records turns into it.
  const queue = new JobQueue(store, clock, { retryBaseMs: config.job_retry_base_ms });
  const sealer = new Sealer({ secretKey: config.secret_key, dataDir: config.data_dir });
  const outbound = { allowPrivate: config.outbound_allow_private };
  const alerts = new ChatAlertService({ store, audit, clock, queue, sealer, outbound });
  const escalation = new EscalationService({
    store,
    audit,
    clock,
    queue,
    recorder,
    onError: (error) => log.warn({ err: error }, 'recording a proxied turn for escalation failed'),
    // A new hand-off is announced in the chat channel where one is configured.
    announce: async (handoff) => {
      await alerts.announce(`handoff:${handoff.id}`, handoffNotice(handoff)).catch((error: unknown) => log.warn({ err: error }, 'announcing a hand-off failed'));
    },
    changes,
  });
  await escalation.sync();
  const pipeline = new Pipeline({
    detectors: detectorRegistry,
    policies: policyRegistry,
    agents: agentDirectory,
    recorder,
    approvals,
    usage: new DatabaseUsageCounter(store),
    clock,
    cache: new DetectionCache({ maxChars: config.detection_cache_chars, maxTextChars: DETECTION_CACHE_MAX_TEXT, now: () => clock.now().getTime() }),
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
    handoffs: escalation,
    ...(sharedState === undefined ? {} : { sharedState }),
  });
  const signingKeys = new SigningKeyService(store, audit, sealer, clock);
  const credentials = new CredentialService(store, audit, resolver, clock);
  const tools = new ToolService(store, audit, clock, directory);
  const worker = new Worker({
    queue,
    pollMs: config.job_poll_ms,
    leaseMs: config.job_lease_ms,
    onEvent: deps.onJobEvent ?? ((event) => (event.event === 'dead' || event.event === 'lost' ? log.warn(event, `job ${event.event}`) : log.info(event, `job ${event.event}`))),
    onError: deps.onJobError ?? ((error) => log.error({ err: error }, 'job queue failed')),
  });
  const agents = new AgentService({ store, audit, clock, recorder, directory, credentials, toolImpact: async (key) => tools.impact(key) });
  const policyServices = createPolicyServices({
    registry: policyRegistry,
    store,
    audit,
    clock,
    directory,
    shipped: SHIPPED_PACKS.map((text) => parsePack(text)),
    knownEntities: () => detectorRegistry.detectors.flatMap((detector) => detector.entityTypes),
    changes,
  });
  const policies = policyServices.policies;
  const auditCheckpoints = new AuditCheckpoints(store, audit, sealer, clock);
  const identities = new IdentityService({ store, audit, clock, resolver, credentials, agents, directory, recorder });
  const retention = new RetentionService(store, audit, clock, {
    retention_trace_content_days: config.retention_trace_content_days,
    retention_traces_days: config.retention_traces_days,
    retention_memory_days: config.retention_memory_days,
    retention_sweep_ms: config.retention_sweep_ms,
  });
  const auditService = new AuditService(store, auditCheckpoints);
  const compliance = new ComplianceService({
    store,
    audit,
    clock,
    queue,
    verifyAudit: () => auditService.verify({}),
    retentionTracesDays: config.retention_traces_days,
  });
  const evidence = new EvidenceService({
    store,
    audit,
    clock,
    queue,
    storage: deps.evidenceStorage ?? new FileEvidenceStorage(path.join(config.data_dir, 'evidence')),
    policies: { sync: () => policies.sync(), list: () => policies.list() },
    checkpoints: auditCheckpoints,
    compliance,
  });
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
    onSkipped: (skipped) => log.warn({ skipped }, 'custom rules that no longer compile are not enforced'),
    changes,
  });
  const businessRules = new BusinessRuleService({ store, audit, clock, onChange: (pack) => policyRegistry.setExtraPack('business-rules', pack), changes });
  const messages = new AgentMessageService(store, signingKeys, clock, { maxSkewSeconds: config.message_max_skew_seconds, onError: writeFailed });
  const memory = new MemoryService(store, audit, clock, { unverifiedTtlSeconds: config.memory_unverified_ttl_seconds, onError: writeFailed });
  const mcp = new McpService({
    store,
    audit,
    clock,
    recorder,
    pipeline,
    gatewayVersion: GATEWAY_VERSION,
    requestBudgetMs: config.request_budget_ms,
    onError: (error, server) => log.warn({ err: error, server }, 'rescanning an MCP server after tools/list_changed failed'),
  });
  // Reports read in their own threads so that they never hold up agent traffic.
  const reports = new ReportReader<typeof REPORT_JOBS>({
    jobsModule: REPORT_JOBS_MODULE,
    store,
    databaseUrl: config.database_url,
    clock,
    timeoutMs: config.report_timeout_ms,
    threads: config.report_threads,
  });
  const detectors = new DetectorService(detectorRegistry, detectorKeys, store, audit, clock, changes);
  const judgment = new JudgmentService({
    store,
    audit,
    clock,
    state: judgmentState,
    configuredTiers: config.judgment_tiers,
    // Availability follows the posture: rebuilding the lists also keeps the detection cache from answering from before.
    onChange: () => {
      for (const key of ownJudgment.keys()) if (detectorRegistry.isEnabled(key)) detectorRegistry.setEnabled(key, true);
    },
    changes,
  });
  const health = new HealthRegistry(store);
  // A load balancer sends no traffic to a process that cannot reach the Redis it is configured with.
  if (redis !== null) health.addReadiness('redis', async () => `${await redis.client.ping()} from ${redis.target}`);
  health.addReadiness('migrations', migrationsProbe(store));
  health.addReadiness('detectors', () => {
    if (!detectors.warmedUp) throw new Error('not warmed up yet');
    return `${detectorRegistry.enabledKeys().length} enabled, warmed up`;
  });
  if (store.dialect === 'postgres') {
    health.addReadiness('change_bus', () => {
      const status = changes.status();
      if (!status.connected) throw new Error("not listening for changes: other processes' changes arrive by polling until it reconnects");
      return `listening on PostgreSQL (backend ${status.listenerPid})`;
    });
  }
  const versions = new VersionRegistry();

  await detectors.sync();
  await judgment.sync();
  await policies.seed();
  await policies.sync();
  await suppressions.sync();
  await customRules.sync();
  await businessRules.sync();
  // The catalogue tables are never empty: a start loads the shipped files (unaudited; a no-op when unchanged).
  await compliance.sync(null).catch((error: unknown) => log.warn({ err: error }, 'loading the control catalogue failed'));
  versions.add('policies', () => policyRegistry.versions());
  // 2: the mcp_tool condition; 3: agent, tool and argument conditions, on_block.
  versions.add('policy_language', () => '4');
  versions.add('detectors', () => `${detectorRegistry.enabledKeys().join(',')}@${GATEWAY_VERSION}`);
  // Which judgment tiers answer and how personal data leaves: both change what judgment detectors decide.
  versions.add('judgment_posture', () => {
    const { tiers, pii_egress, fail_closed, backend } = judgmentState.posture;
    return createHash('sha256').update(JSON.stringify([tiers, pii_egress, fail_closed, backend])).digest('hex').slice(0, 12);
  });
  health.addGaps(() => [
    ...detectorRegistry.unavailableEnabled().map(({ key, reason }) => ({ what: `detector ${key}`, why: reason })),
    ...policyRegistry
      .list()
      .filter(({ mode, level }) => mode === 'observe' && level === 'org')
      .map(({ key }) => ({ what: `policy pack ${key}`, why: 'in observe: what it detects is reported, not blocked' })),
  ]);
  health.addGaps(() => deploymentGaps(config));
  if (!sqlAnalysis) {
    health.addGaps(() => [
      { what: 'SQL action analysis', why: 'the optional package node-sql-parser is not installed: tool calls with SQL arguments are blocked (fail closed)' },
    ]);
  }
  const runs = new RunGovernor({
    store,
    agents: agentDirectory,
    recorder,
    clock,
    prices: config.model_prices,
    onError: (error) => log.error({ err: error }, 'counting model usage failed'),
    ...(sharedState === undefined ? {} : { sharedState }),
  });
  const proxy = new ProxyService({ config, clock, pipeline, runs, turns: escalation, tracer, redis });
  const entitlement = new EntitlementService({ store, audit, clock, recorder, changes });
  await entitlement.sync();
  const answerability = new AnswerabilityService({ store, audit, clock, recorder, detector: answerabilityDetector, changes });
  await answerability.sync();
  const probeLibrary = loadProbeLibrary();
  const probeTargets = new ProbeTargetService({
    store,
    audit,
    clock,
    queue,
    recorder,
    sealer,
    library: probeLibrary,
    settings: { allowedHosts: config.probe_target_hosts, minRunGapSeconds: config.probe_min_run_gap_seconds },
  });
  const redteam = new RedteamService({ store, audit, clock, pipeline, policies: policyRegistry, directory: agentDirectory, recorder, library: probeLibrary, probeTargets });
  const showcase = new ShowcaseService({
    store,
    clock,
    pipeline,
    policies: policyRegistry,
    library: probeLibrary,
    settings: { enabled: config.showcase_enabled, intervalSeconds: config.showcase_interval_seconds },
    onError: (error) => log.warn({ err: error }, 'a showcase probe round failed'),
  });
  // The eval judge follows the judgment posture live: a tier configured later makes `judge` available.
  const judge = judgeWithTiers(judgmentState, { piiPacks: config.pii_packs });
  const evalHelpers: ScorerHelpers = {
    get judge() {
      return judgeAvailable(judgmentState) ? judge : null;
    },
  };
  const evaluations = createEvalServices({
    store,
    audit,
    clock,
    queue,
    pipeline,
    policies: policyRegistry,
    recorder,
    config,
    model: proxy,
    helpers: evalHelpers,
  });
  const codehost = new CodehostService({ store, audit, clock, queue, sealer, recorder, pipeline, settings: { apiUrl: config.codehost_api_url, outbound } });
  const hostedApi = new HostedApiService({ store, audit, clock, outbound });
  const monitors = new MonitorService({ store, audit, clock, queue, recorder, mcp, codehost, hostedApi, settings: { minIntervalSeconds: config.monitor_min_interval_seconds, outbound } });
  const discovery = new DiscoveryService({ store, audit, clock, recorder, codehost });
  const tokens = new TokenService(store, audit, resolver, clock);
  const playground = new PlaygroundService({
    config,
    clock,
    openSandbox: () => buildSandboxCore({ config, log, clock }),
    onError: (error) => log.warn({ err: error }, 'closing a playground sandbox failed'),
  });
  const imports = new ImportService({ store, audit, clock, policies, customRules, suites: evaluations.suites });
  registerJobHandlers(worker, [evidence.jobHandlers(), compliance.jobHandlers(), evaluations.jobHandlers(), probeTargets.jobHandlers(), codehost.jobHandlers(), alerts.jobHandlers(), monitors.jobHandlers()]);

  const timers: NodeJS.Timeout[] = [];
  let sweeping = false;
  const services: Services = {
    config,
    store,
    clock,
    log,
    metrics,
    tracer,
    redis,
    audit,
    auditCheckpoints,
    auditService,
    resolver,
    tokens,
    codehost,
    hostedApi,
    alerts,
    monitors,
    discovery,
    codehostProvision: new CodehostProvisionService({ store, audit, clock, tokens }),
    escalation,
    imports,
    // The services a workspace applies through are built in this object: read them once it exists.
    workspace: new WorkspaceService({ store, audit, clock, targets: () => services }),
    playground,
    waitlist: new WaitlistService({ store, audit, clock }),
    credentials,
    health,
    versions,
    changes,
    schemaMigration,
    detectorRegistry,
    policyRegistry,
    pipeline,
    recorder,
    detectors,
    judgment,
    policies,
    policyServices,
    customRules,
    businessRules,
    ruleExamples: new RuleExampleService({ store, audit, clock, livePack: (key) => policyRegistry.pack(key) }),
    suppressions,
    feedback: new FeedbackService({
      store,
      audit,
      clock,
      onSuppressionsChanged: async () => {
        await suppressions.sync();
        changes.publish('suppressions');
      },
    }),
    sealer,
    signingKeys,
    messages,
    memory,
    directory,
    agents,
    agentViews: new AgentViewService({ store, audit, clock, recorder, directory }),
    tools,
    approvals,
    identities,
    retention,
    runs,
    proxy,
    reports,
    traces: new TraceService(store, clock),
    spans: new SpanService(store, clock),
    findings: new FindingService(store, audit, clock),
    attention: new AttentionService(store, clock),
    queue,
    jobs: new JobService(queue, audit),
    worker,
    evidence,
    compliance,
    risk: new RiskService({ store, audit, clock, rules: loadClassificationRules(packagePath('catalogue', 'risk-classification.yaml')) }),
    onboarding: new OnboardingService({ store, clock, unavailableDetectors: () => detectorRegistry.unavailableEnabled() }),
    providers: new ProvidersService({ config, posture: () => judgment.view(), detectors: () => detectors.list(), envSet: (name) => process.env[name] !== undefined && process.env[name] !== '' }),
    board: new BoardService({ reports, complianceStatus: () => compliance.status() }),
    coverage: new CoverageService({ threats: loadThreats(packagePath('catalogue', 'threats.yaml')), detectors: detectorRegistry, policies: policyRegistry, reports, clock }),
    obligations: new ObligationsService({ store, clock, catalogue: loadObligations(packagePath('catalogue', 'obligations.yaml')) }),
    evaluations,
    redteam,
    probeTargets,
    showcase,
    sources: new SourceService({ store, audit, clock, sealer }),
    assess: new AssessService({ store, clock, pipeline, judge: () => (judgeAvailable(judgmentState) ? judge : null) }),
    entitlement,
    answerability,
    mcp,
    start({ runJobs, sweeps }) {
      if (runJobs) worker.start();
      if (!sweeps) return;
      sweeping = true;
      playground.start();
      showcase.start();
      retention.start((error) => log.warn({ err: error }, 'retention sweep failed'));
      // Another process's change is read back as soon as it is announced; the periodic read below stays as the fallback.
      changes.subscribe({
        agents: () => directory.refresh(),
        credentials: (hashes) => (hashes === null ? resolver.evictAll() : hashes.forEach((hash) => resolver.evict(hash))),
        policies: () => policies.sync(),
        detectors: () => detectors.sync(),
        judgment: () => judgment.sync(),
        rules: async () => {
          await customRules.sync();
          await businessRules.sync();
        },
        suppressions: () => suppressions.sync(),
        answerability: () => answerability.sync(),
        entitlement: () => entitlement.sync(),
        escalation: () => escalation.sync(),
      });
      void changes.start();
      let syncTicks = 0;
      const sync = setInterval(() => {
        syncTicks += 1;
        if (changes.status().kind === 'postgres' && changes.connected() && syncTicks % STATE_SYNC_TICKS_WITH_BUS !== 0) return;
        Promise.all([escalation.sync(), detectors.sync(), judgment.sync(), policies.sync(), suppressions.sync(), customRules.sync(), businessRules.sync(), answerability.sync(), entitlement.sync()]).catch((error: unknown) =>
          log.warn({ err: error }, 'reading detector switches, policies, rules and suppressions failed'),
        );
      }, STATE_SYNC_MS);
      const sweep = setInterval(() => {
        identities.sweep().catch((error: unknown) => log.warn({ err: error }, 'looking for orphaned and stale identities failed'));
      }, IDENTITY_SWEEP_MS);
      // The daily control computation: the first check an interval after start, then every interval.
      const controls = setInterval(() => {
        compliance.scheduleDaily().catch((error: unknown) => log.warn({ err: error }, 'queuing the daily control computation failed'));
      }, CONTROLS_CHECK_MS);
      const probeSchedule = setInterval(() => {
        probeTargets.scheduleDue().catch((error: unknown) => log.warn({ err: error }, 'queuing due probe target runs failed'));
      }, PROBE_SCHEDULE_MS);
      const alertSweep = setInterval(() => {
        alerts.sweep().catch((error: unknown) => log.warn({ err: error }, 'queuing chat alerts for new findings failed'));
      }, ALERT_SWEEP_MS);
      const escalationSweep = setInterval(() => {
        escalation.sweep().catch((error: unknown) => log.warn({ err: error }, 'looking for hand-offs past their SLA failed'));
      }, ESCALATION_SWEEP_MS);
      escalationSweep.unref();
      timers.push(escalationSweep);
      const monitorSchedule = setInterval(() => {
        monitors.scheduleDue().catch((error: unknown) => log.warn({ err: error }, 'queuing due monitor runs failed'));
      }, MONITOR_SCHEDULE_MS);
      sync.unref();
      sweep.unref();
      controls.unref();
      probeSchedule.unref();
      alertSweep.unref();
      monitorSchedule.unref();
      timers.push(sync, sweep, controls, probeSchedule, alertSweep, monitorSchedule);
    },
    async close() {
      for (const timer of timers.splice(0)) clearInterval(timer);
      await changes.close();
      // A showcase round in hand finishes before the store closes; a probe run stops before its next send.
      await showcase.stop();
      await playground.close();
      probeTargets.close();
      // Stopped before the database closes: the job in hand finishes and is recorded first.
      await worker.stop();
      await reports.close();
      await Promise.all([messages.close(), memory.close(), mcp.close(), proxy.close()]);
      if (sweeping) await retention.stop();
      await directory.close();
      await entitlement.flushUsage().catch((error: unknown) => log.warn({ err: error }, 'writing entitlement grant use and retrievals failed'));
      await recorder.close();
      await resolver.close();
      // Last: the spans of everything above are ended; what waits for export is sent.
      await tracer.close();
      await redis?.close();
    },
  };
  return services;
}

/**
 * A playground sandbox (src/areas/playground): a fresh SQLite database in its own temporary
 * directory and every service built on it, from a copy of the settings that shares nothing with
 * the deployment's store, keys or credentials, runs no judgment tier, showcase, playground or job
 * worker, and is never started (no sweeps). close() stops it and removes the directory.
 */
export async function buildSandboxCore(deps: { config: Config; log: FastifyBaseLogger; clock: Clock }): Promise<SandboxCore> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'parapet-sandbox-'));
  const config: Config = {
    ...deps.config,
    data_dir: dataDir,
    database_url: null,
    jobs_in_process: false,
    judgment_tiers: [],
    showcase_enabled: false,
    playground_enabled: false,
    secret_key: null,
    admin_token: null,
    redis_url: null,
    // A visitor's sandbox never sends spans to the operator's collector.
    otel_traces_endpoint: null,
    report_threads: 1,
  };
  let store: Store | undefined;
  try {
    store = Store.open({ databaseUrl: null, dataDir });
    await store.migrate();
    const services = await buildServices({ config, store, log: deps.log.child({ sandbox: true }), clock: deps.clock });
    const opened = store;
    return {
      pipeline: services.pipeline,
      recorder: services.recorder,
      agents: services.agents,
      tools: services.tools,
      policies: services.policies,
      traces: services.traces,
      auditService: services.auditService,
      compliance: services.compliance,
      proxy: services.proxy,
      async close() {
        try {
          await services.close();
          await opened.close();
        } finally {
          await rm(dataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await store?.close().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
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
