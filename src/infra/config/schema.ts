// Every setting of the gateway in one TypeBox schema: spec 01 §8 limits, the detector settings of
// spec 01 §2.4, and the outside details of CONTRACT.md. Defaults live here and nowhere else.
import { Type, type Static } from 'typebox';

/** Detectors that run when `enabled_detectors` is not set (spec 01 §2.4, "on by default"). */
export const DEFAULT_DETECTORS = [
  'injection.heuristic',
  'pii.native',
  'secrets.native',
  'safety.lexicon',
  'schema.json',
] as const;

/**
 * Published list prices (USD per million tokens, 2025) of common models, keyed by name prefix: a
 * starting point so that daily cost budgets mean something out of the box. Contracts differ and
 * prices change: set `model_prices` to your own (it replaces this table).
 */
export const DEFAULT_MODEL_PRICES: Record<string, { input_per_mtok: number; output_per_mtok: number }> = {
  'gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10 },
  'gpt-4o-mini': { input_per_mtok: 0.15, output_per_mtok: 0.6 },
  'gpt-4.1': { input_per_mtok: 2, output_per_mtok: 8 },
  'gpt-4.1-mini': { input_per_mtok: 0.4, output_per_mtok: 1.6 },
  'gpt-4.1-nano': { input_per_mtok: 0.1, output_per_mtok: 0.4 },
  'gpt-5': { input_per_mtok: 1.25, output_per_mtok: 10 },
  'gpt-5-mini': { input_per_mtok: 0.25, output_per_mtok: 2 },
  'gpt-5-nano': { input_per_mtok: 0.05, output_per_mtok: 0.4 },
  'o3': { input_per_mtok: 2, output_per_mtok: 8 },
  'o3-mini': { input_per_mtok: 1.1, output_per_mtok: 4.4 },
  'o4-mini': { input_per_mtok: 1.1, output_per_mtok: 4.4 },
  'claude-opus-4': { input_per_mtok: 15, output_per_mtok: 75 },
  'claude-opus-4-5': { input_per_mtok: 5, output_per_mtok: 25 },
  'claude-sonnet-4': { input_per_mtok: 3, output_per_mtok: 15 },
  'claude-haiku-4-5': { input_per_mtok: 1, output_per_mtok: 5 },
  'claude-3-7-sonnet': { input_per_mtok: 3, output_per_mtok: 15 },
  'claude-3-5-sonnet': { input_per_mtok: 3, output_per_mtok: 15 },
  'claude-3-5-haiku': { input_per_mtok: 0.8, output_per_mtok: 4 },
};

const StringList = (description: string, defaults: readonly string[]) =>
  Type.Array(Type.String({ minLength: 1 }), { default: [...defaults], description });

const Milliseconds = (description: string, defaultValue: number) =>
  Type.Integer({ minimum: 1, maximum: 600_000, default: defaultValue, description });

export const ConfigSchema = Type.Object(
  {
    // Server
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'an integer from 0 to 65535' }),
    host: Type.String({ minLength: 1, default: '127.0.0.1', description: 'a host name or address to listen on' }),
    data_dir: Type.String({ minLength: 1, default: './data', description: 'a directory path' }),
    database_url: Type.Union([Type.String({ pattern: '^postgres(ql)?://' }), Type.Null()], {
      default: null,
      description: 'a postgres:// URL, or unset for the embedded SQLite database',
    }),
    body_limit_bytes: Type.Integer({
      minimum: 1024,
      maximum: 104_857_600,
      default: 1_048_576,
      description: 'an integer number of bytes from 1024 to 104857600',
    }),
    body_max_depth: Type.Integer({
      minimum: 8,
      maximum: 1000,
      default: 128,
      description: 'an integer from 8 to 1000: how deep arrays and objects may nest in a JSON body',
    }),
    log_level: Type.Union(
      [
        Type.Literal('fatal'),
        Type.Literal('error'),
        Type.Literal('warn'),
        Type.Literal('info'),
        Type.Literal('debug'),
        Type.Literal('trace'),
        Type.Literal('silent'),
      ],
      { default: 'info', description: 'one of fatal, error, warn, info, debug, trace, silent' },
    ),
    log_requests: Type.Boolean({
      default: false,
      description: 'true or false: an access-log line for every request (errors and slow requests are always logged)',
    }),
    slow_request_ms: Type.Integer({
      minimum: 1,
      maximum: 600_000,
      default: 1000,
      description: 'milliseconds after which a request is logged as slow',
    }),
    shutdown_timeout_ms: Milliseconds('milliseconds that SIGTERM waits for in-flight requests', 10_000),
    // Self-tracing (OpenTelemetry, src/infra/tracing.ts)
    otel_traces_endpoint: Type.Union([Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2048 }), Type.Null()], {
      default: null,
      description: "an http(s) OTLP/HTTP traces URL (e.g. http://collector:4318/v1/traces) the gateway sends its own spans to; null: no self-tracing",
    }),
    otel_service_name: Type.String({ minLength: 1, maxLength: 200, default: 'parapet', description: "the service.name of the gateway's own spans" }),
    otel_sample_ratio: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 1,
      description: "a number from 0 to 1: the share of traces the gateway starts itself that are sampled; a caller's traceparent decides for its own trace",
    }),
    trust_proxy: Type.Boolean({ default: false, description: 'true or false: honour X-Forwarded-* headers' }),
    // Credentials
    admin_token: Type.Union([Type.String({ minLength: 16 }), Type.Null()], {
      default: null,
      description: 'a token of at least 16 characters accepted as an admin operator token',
    }),
    secret_key: Type.Union([Type.String({ minLength: 32 }), Type.Null()], {
      default: null,
      description:
        'a string of at least 32 characters from which the key that encrypts stored secrets (signing keys) is derived; ' +
        'unset, a random key is kept in <data_dir>/secret-key. Gateways sharing one PostgreSQL database must share it',
    }),
    auth_cache_ms: Type.Integer({
      minimum: 0,
      maximum: 2000,
      default: 1000,
      description: 'milliseconds a verified credential is trusted before it is looked up again (0 to 2000)',
    }),
    // Limits (spec 01 §8)
    enforcement_budget_ms: Milliseconds('whole detector pipeline for one check, in milliseconds', 300),
    detector_timeout_ms: Milliseconds('per-detector timeout in milliseconds', 40),
    request_budget_ms: Milliseconds('all checks of one governed call together, in milliseconds', 350),
    // Large texts: budgets grow with the text (after padding is condensed) up to a ceiling.
    detector_timeout_per_kb_ms: Type.Number({
      minimum: 0,
      maximum: 1000,
      default: 1,
      description: 'milliseconds added to each detector timeout per 1024 characters scanned beyond the first 16384 (0 to 1000)',
    }),
    enforcement_budget_per_kb_ms: Type.Number({
      minimum: 0,
      maximum: 1000,
      default: 1,
      description: 'milliseconds added to the whole detector budget per 1024 characters scanned beyond the first 16384 (0 to 1000)',
    }),
    detection_ceiling_ms: Milliseconds('the most a scaled detector timeout or budget grows to, in milliseconds', 2000),
    detection_max_chars: Type.Integer({
      minimum: 16_384,
      maximum: 1_000_000_000,
      default: 2_000_000,
      description: 'characters of a text (after condensing padding) checked in full; of a longer one the head and the tail are checked and it counts as too large',
    }),
    detection_cache_chars: Type.Integer({
      minimum: 0,
      maximum: 1_000_000_000,
      default: 4_000_000,
      description: 'characters of checked text and its detections kept for identical later checks (0 turns the cache off)',
    }),
    fail_mode: Type.Union([Type.Literal('open'), Type.Literal('closed')], {
      default: 'open',
      description: 'open or closed',
    }),
    record_content: Type.Unsafe<'none' | 'redacted' | 'full'>({
      type: 'string',
      enum: ['none', 'redacted', 'full'],
      default: 'redacted',
      description: 'none, redacted or full: how much checked content a decision record keeps',
    }),
    // Signed agent messages (spec 01 §5 rule 4) and memory decay (spec 01 §3 "Memory entry")
    message_max_skew_seconds: Type.Integer({
      minimum: 1,
      maximum: 86_400,
      default: 300,
      description: 'seconds a signed agent message timestamp may differ from the gateway clock (1 to 86400)',
    }),
    memory_unverified_ttl_seconds: Type.Integer({
      minimum: 1,
      maximum: 315_360_000,
      default: 604_800,
      description: 'seconds after which an unverified memory entry decays (expires) unless it is verified',
    }),
    // Retention (src/retention): what a sweep removes, unless a legal hold keeps it
    retention_trace_content_days: Type.Integer({
      minimum: 0,
      maximum: 36_500,
      default: 30,
      description: 'days after which a decision record loses its content (the record stays); 0 keeps it (0 to 36500)',
    }),
    retention_traces_days: Type.Integer({
      minimum: 0,
      maximum: 36_500,
      default: 365,
      description: 'days after which a decision record is deleted; 0 keeps records forever (0 to 36500)',
    }),
    retention_memory_days: Type.Integer({
      minimum: 0,
      maximum: 36_500,
      default: 90,
      description: 'days after expiry or revocation that a memory entry is deleted; 0 keeps them (0 to 36500)',
    }),
    retention_sweep_ms: Type.Integer({
      minimum: 1000,
      maximum: 86_400_000,
      default: 3_600_000,
      description: 'milliseconds between retention sweeps (1000 to 86400000)',
    }),
    // Reports (metrics, guardrail reports, trace search, exports, usage) run in reader threads (src/store/reader.ts)
    report_timeout_ms: Type.Integer({
      minimum: 100,
      maximum: 600_000,
      default: 15_000,
      description: 'milliseconds a report may take, waiting included; past it the report is stopped and answered 503 (100 to 600000)',
    }),
    report_threads: Type.Integer({
      minimum: 1,
      maximum: 16,
      default: 2,
      description: 'reader threads, each with its own read-only database connection: reports that run at the same time (1 to 16)',
    }),
    // The durable job queue (src/jobs): retries with backoff, dead letters
    jobs_in_process: Type.Boolean({
      default: true,
      description: 'true or false: run a job worker inside every gateway process (false: only `parapet worker` runs jobs)',
    }),
    job_poll_ms: Milliseconds('milliseconds a worker waits before looking at an empty job queue again', 500),
    job_lease_ms: Type.Integer({
      minimum: 500,
      maximum: 3_600_000,
      default: 30_000,
      description: 'milliseconds a worker holds a job without renewing; a job whose worker died is taken over after this (500 to 3600000)',
    }),
    job_retry_base_ms: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 1000,
      description: 'milliseconds before the first retry of a failed job; each further retry waits twice as long, plus up to 20% jitter',
    }),
    // Detectors (spec 01 §2.4)
    enabled_detectors: StringList('a JSON list of detector keys', DEFAULT_DETECTORS),
    pii_packs: StringList('a JSON list of PII pattern packs (global, us, uk, eu, in)', ['global', 'us', 'uk', 'eu']),
    rails_config_path: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'path of a dialogue-rails configuration',
    }),
    rails_validators: StringList('a JSON list of validator names', []),
    similarity_model_path: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'local folder of an ONNX sentence-embedding model (model.onnx and vocab.txt) for injection.similarity, run by the optional package onnxruntime-node; unset: hashed character n-grams',
    }),
    injection_classifier_model_path: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'local folder of an ONNX sequence-classification model (model.onnx, vocab.txt, optional config.json) that injection.classifier runs in place of its shipped primary model, with the optional package onnxruntime-node; unset: the shipped model',
    }),
    eval_http_targets: StringList(
      "a JSON list of URL prefixes (http or https) of agents' own OpenAI-compatible endpoints that evaluation runs may call (target type http); empty: http targets are refused",
      [],
    ),
    eval_concurrency: Type.Integer({ minimum: 1, maximum: 64, default: 4, description: 'cases of one evaluation run answered at a time' }),
    probe_target_hosts: StringList(
      'a JSON list of host names (or IP addresses) probe targets may be on besides loopback; empty: loopback only',
      [],
    ),
    probe_min_run_gap_seconds: Type.Integer({ minimum: 0, maximum: 86_400, default: 300, description: 'seconds a manual probe run of a target is refused after its last run' }),
    showcase_enabled: Type.Boolean({ default: false, description: 'true or false: run the built-in demo agent, probe it on a schedule and serve the feed at GET /api/public/showcase' }),
    showcase_interval_seconds: Type.Integer({ minimum: 10, maximum: 86_400, default: 600, description: 'seconds between probe rounds of the showcase demo agent' }),
    showcase_rate_limit_per_minute: Type.Integer({ minimum: 1, maximum: 10_000, default: 60, description: 'requests per minute one client address may make to GET /api/public/showcase' }),
    redis_url: Type.Union([Type.String({ pattern: '^rediss?://' }), Type.Null()], {
      default: null,
      description: 'a redis:// URL: several gateway processes share rate limits, session taint, crescendo turns, loop windows and circuit breakers through it; null: each process keeps its own',
    }),
    redis_state_timeout_ms: Milliseconds('milliseconds a check waits for the shared state in Redis before it decides with its own process\'s view and is reported degraded (fail_mode closed then blocks where an enforcing pack applies)', 100),
    redis_key_prefix: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9:_.-]+$', default: 'parapet:', description: 'prefix of every key the gateway writes in Redis, so that deployments can share one Redis' }),
    rate_limit_public_per_minute: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 120, description: 'requests per minute one client address may make to the public routes (playground, waitlist); 0: no limit' }),
    rate_limit_api_per_minute: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'requests per minute one credential may make to /api/*; 0: no limit' }),
    rate_limit_agent_per_minute: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'requests per minute one credential may make to /v1/* (agent traffic); 0: no limit' }),
    playground_enabled: Type.Boolean({ default: true, description: 'true or false: serve the public sandbox (/api/playground/sessions)' }),
    playground_max_sessions: Type.Integer({ minimum: 1, maximum: 10_000, default: 50, description: 'live sandbox sessions at most (per gateway process)' }),
    playground_session_ttl_minutes: Type.Integer({ minimum: 1, maximum: 1440, default: 30, description: 'minutes a sandbox session lives' }),
    playground_max_calls_per_session: Type.Integer({ minimum: 1, maximum: 100_000, default: 200, description: 'chat and tool calls one sandbox session may make' }),
    playground_upstream: Type.Boolean({ default: false, description: "true or false: sandbox chats are answered by the proxy's configured upstream model instead of the built-in demo agent" }),
    codehost_api_url: Type.String({
      pattern: '^https?://',
      default: 'https://api.github.com',
      description: "the code host's REST API base URL (a self-hosted instance's API root, e.g. https://git.example.com/api/v3)",
    }),
    outbound_allow_private: Type.Boolean({
      default: false,
      description:
        'true or false: let integration calls (chat webhooks, the code host, hosted-API documents, monitors) use http:// and loopback or private addresses; for closed networks and tests',
    }),
    monitor_min_interval_seconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 60, description: 'the shortest interval_seconds a monitor may have' }),
    rails_banned_terms: StringList('a JSON list of words and phrases rails.catalog.banned_terms reports (whole words, ASCII letters in any case)', []),
    judgment_tiers: StringList(
      "a JSON list of judgment tiers, each `<base-url>|<model>` or `<base-url>|<model>|<API_KEY_ENV>` of an OpenAI-compatible chat-completions endpoint, asked in order ('deterministic' is implicit); a loopback or private host is local, any other host is hosted and needs allow_egress; PUT /api/judgment/posture overrides it",
      [],
    ),
    allow_egress: Type.Boolean({ default: false, description: 'true or false: may payloads leave the machine' }),
    accept_restricted_model_licences: Type.Boolean({
      default: false,
      description: 'true or false: allow detectors whose models carry restricted licences',
    }),
    // Model upstreams for the proxies (CONTRACT.md)
    upstream_openai_base_url: Type.String({
      pattern: '^https?://',
      default: 'https://api.openai.com/v1',
      description: 'an http(s) URL ending in /v1',
    }),
    upstream_openai_api_key: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'the provider key the gateway holds for chat completions',
    }),
    upstream_anthropic_base_url: Type.String({
      pattern: '^https?://',
      default: 'https://api.anthropic.com',
      description: 'an http(s) URL without /v1',
    }),
    upstream_anthropic_api_key: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'the provider key the gateway holds for messages',
    }),
    // Upstream reliability and streaming (src/proxy)
    upstream_timeout_ms: Milliseconds('milliseconds an upstream may take to send headers, and between body chunks', 60_000),
    upstream_retries: Type.Integer({
      minimum: 0,
      maximum: 10,
      default: 2,
      description: 'further attempts after a connection error or a 429/502/503/504 answer (0 to 10)',
    }),
    upstream_breaker_failures: Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 5,
      description: 'consecutive failed upstream attempts after which its circuit breaker opens (1 to 1000)',
    }),
    upstream_breaker_cooldown_ms: Milliseconds('milliseconds an open circuit breaker refuses calls before one trial', 30_000),
    // Model prices for usage and daily cost budgets (src/runs)
    model_prices: Type.Record(
      Type.String({ minLength: 1, maxLength: 200 }),
      Type.Object(
        {
          input_per_mtok: Type.Number({ minimum: 0, maximum: 1_000_000 }),
          output_per_mtok: Type.Number({ minimum: 0, maximum: 1_000_000 }),
        },
        { additionalProperties: false },
      ),
      {
        default: DEFAULT_MODEL_PRICES,
        description:
          'a JSON object: model name or prefix -> {"input_per_mtok": USD, "output_per_mtok": USD} per million tokens (the longest matching prefix wins; unknown models cost 0)',
      },
    ),
    stream_holdback_chars: Type.Integer({
      minimum: 16,
      maximum: 65_536,
      default: 256,
      description: 'characters of streamed model output held back until checked, so a match split across chunks is caught (16 to 65536)',
    }),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;
export type ConfigKey = keyof Config;

/** Settings whose values never appear in logs, `/api/version` hashes or answers. */
export const SECRET_KEYS: readonly ConfigKey[] = [
  'admin_token',
  'secret_key',
  'upstream_openai_api_key',
  'upstream_anthropic_api_key',
];

/** Settings that change what a decision is; `/api/version` hashes them so a verdict can be reproduced. */
export const DECISION_KEYS: readonly ConfigKey[] = [
  'enforcement_budget_ms',
  'detector_timeout_ms',
  'request_budget_ms',
  'detector_timeout_per_kb_ms',
  'enforcement_budget_per_kb_ms',
  'detection_ceiling_ms',
  'detection_max_chars',
  'fail_mode',
  'enabled_detectors',
  'pii_packs',
  'rails_config_path',
  'rails_validators',
  'similarity_model_path',
  'injection_classifier_model_path',
  'rails_banned_terms',
  'judgment_tiers',
  'allow_egress',
  'accept_restricted_model_licences',
];
