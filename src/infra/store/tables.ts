// The database as the application sees it: one interface per table, snake_case columns as in the
// spec. Timestamps are ISO 8601 UTC text on both engines so that they compare as strings.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export type TokenKind = 'operator' | 'traffic';
export type OperatorRole = 'viewer' | 'operator' | 'admin';

export interface ApiTokensTable {
  id: string;
  name: string;
  kind: TokenKind;
  /** Null for traffic tokens, which carry no operator role. */
  role: OperatorRole | null;
  /** The person or system the token belongs to; tokens minted through the API inherit it. */
  owner: string;
  token_hash: string;
  /** The first characters of the raw token, so people can tell their tokens apart. */
  token_hint: string;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface AgentCredentialsTable {
  id: string;
  identity_id: string;
  agent_slug: string;
  secret_hash: string;
  secret_hint: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface AuditEntriesTable {
  seq: number;
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  /** Canonical JSON of the entry's details. */
  detail: string;
  prev_hash: string;
  hash: string;
}

export interface MetaTable {
  key: string;
  value: string;
  updated_at: string;
}

export interface TracesTable {
  id: string;
  at: string;
  agent: string;
  subject: string;
  surface: string;
  tool: string | null;
  verdict: string;
  effective_verdict: string;
  mode: string;
  /** JSON arrays. */
  rules: string;
  entities: string;
  degraded: string;
  detectors: string;
  latency_ms: number;
  content_sha256: string;
  content_length: number;
  /** Stored only as `record_content` allows. */
  content: string | null;
  session_id: string | null;
  trace_id: string | null;
  environment: string | null;
  /** JSON: the facts policy evaluated (src/policy/facts.ts), for simulation; null on older rows. */
  facts: string | null;
  /** `key@version` of the canary whose candidate decided this call; null outside a canary cohort. */
  canary: string | null;
}

export interface FindingsTable {
  id: string;
  fingerprint: string;
  type: string;
  severity: string;
  severity_rank: number;
  status: string;
  title: string;
  subject: string;
  agent: string | null;
  at: string;
  last_seen_at: string;
  occurrences: number;
  /** JSON object. */
  evidence: string;
  decision_id: string | null;
  suppression_reason: string | null;
  resolution_note: string | null;
  status_changed_at: string | null;
  status_changed_by: string | null;
  reopened_count: Generated<number>;
}

/** A recording the database refused for a reason of its own, kept whole (src/recording/recorder.ts). */
export interface DeadLettersTable {
  id: string;
  at: string;
  kind: string;
  error: string;
  /** JSON of what was to be written. */
  payload: string;
}

export interface DetectorSettingsTable {
  key: string;
  /** 1 or 0. */
  enabled: number;
  reason: string | null;
  updated_at: string;
}

export interface JudgmentPostureTable {
  /** Always `current`: one row. */
  id: string;
  /** JSON list of tier strings. */
  tiers: string;
  pii_egress: string;
  /** 1 or 0. */
  fail_closed: number;
  backend: string;
  reason: string;
  updated_by: string;
  updated_at: string;
}

export interface PolicyStateTable {
  key: string;
  mode: string;
  updated_at: string;
}

export type AgentStatus = 'approved' | 'pending' | 'rejected';
export type AgentControl = 'active' | 'quarantined' | 'killed';

export interface AgentsTable {
  id: string;
  slug: string;
  name: string;
  purpose: string | null;
  owner_email: string | null;
  owner_team: string | null;
  environment: string | null;
  risk_tier: string | null;
  /** JSON arrays of strings. */
  declared_models: string;
  declared_tools: string;
  data_classes: string;
  framework: string | null;
  status: AgentStatus;
  identity_id: string | null;
  /** JSON object: the agent's protections (limits, words, messages). */
  protections: string;
  control: AgentControl;
  control_reason: string | null;
  control_by: string | null;
  control_at: string | null;
  /** JSON arrays: models and tools seen in traffic (registry drift). */
  seen_models: string;
  seen_tools: string;
  first_seen_at: string | null;
  last_seen_at: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface IdentitiesTable {
  id: string;
  agent_slug: string;
  owner: string | null;
  created_at: string;
  updated_at: string;
}

export interface CapabilitiesTable {
  id: string;
  identity_id: string;
  agent_slug: string;
  tool_key: string;
  /** 1 or 0. */
  requires_approval: number;
  max_taint: string | null;
  /** JSON object and JSON array. */
  constraints: string;
  actions: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface ToolsTable {
  key: string;
  name: string;
  kind: string | null;
  impact: string | null;
  description: string | null;
  /** JSON Schema text. */
  json_schema: string | null;
  output_trust: string;
  created_at: string;
  updated_at: string;
}

export interface ApprovalsTable {
  id: string;
  agent: string;
  tool: string;
  arguments_sha256: string;
  /** JSON of the arguments with detected sensitive values redacted. */
  arguments: string;
  decision_id: string;
  rules: string;
  reason: string;
  status: 'pending' | 'approved' | 'denied' | 'used' | 'expired';
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  rationale: string | null;
  used_at: string | null;
  used_decision_id: string | null;
  /** Set while pending (unique): a hash of agent, tool and arguments_sha256, so that a call has one pending approval. */
  pending_key: string | null;
}

export interface SigningKeysTable {
  id: string;
  agent_slug: string;
  key_sealed: string;
  key_hint: string;
  created_by: string;
  created_at: string;
  valid_until: string | null;
}

export interface AgentMessagesTable {
  id: string;
  at: string;
  sender: string;
  recipient: string | null;
  nonce: string | null;
  timestamp: number | null;
  signature_status: string;
  verdict: string;
  effective_verdict: string;
  decision_id: string;
  content_sha256: string;
  session_id: string | null;
}

export interface MessageNoncesTable {
  sender: string;
  nonce: string;
  at: string;
}

export interface MemoryEntriesTable {
  id: string;
  agent: string;
  subject: string | null;
  content: string | null;
  content_sha256: string;
  provenance: string;
  taint_source: string | null;
  verified_by: string | null;
  verified_at: string | null;
  ttl_seconds: number | null;
  verdict: string;
  decision_id: string;
  session_id: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  revoked_by: string | null;
}

export interface AgentUsageTable {
  agent: string;
  window: string;
  calls: number;
  cost_usd: number;
}

export interface AuditCheckpointsTable {
  id: string;
  seq: number;
  hash: string;
  at: string;
  key_id: string;
  signature: string;
  created_by: string;
  /** ed25519, or hmac-sha256 for checkpoints made before migration 10. */
  algorithm: Generated<string>;
}

export type JobStatus = 'queued' | 'running' | 'done' | 'dead';

export interface JobsTable {
  id: string;
  kind: string;
  /** JSON. */
  payload: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_after: string;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  result: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface EvidencePackagesTable {
  id: string;
  status: string;
  /** JSON: agents, controls, period. */
  scope: string;
  manifest: string | null;
  manifest_sha256: string | null;
  file_name: string | null;
  size_bytes: number | null;
  checkpoint_id: string | null;
  job_id: string | null;
  error: string | null;
  created_by: string;
  created_at: string;
  completed_at: string | null;
}

export interface LegalHoldsTable {
  id: string;
  name: string;
  reason: string;
  /** JSON: { agents?: string[], from?: string, to?: string }; empty covers everything. */
  scope: string;
  created_by: string;
  created_at: string;
  released_at: string | null;
  released_by: string | null;
}

export interface McpServersTable {
  name: string;
  url: string | null;
  /** streamable_http | stdio | sse */
  transport: string;
  command: string | null;
  /** JSON array of strings. */
  args: string;
  /** trusted | untrusted: whether the server's results are trusted content. */
  trust_level: string;
  pinned_version: string | null;
  server_version: string | null;
  last_scanned_at: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface McpToolsTable {
  server: string;
  name: string;
  title: string | null;
  description: string | null;
  /** JSON. */
  input_schema: string;
  output_schema: string | null;
  /** JSON. */
  annotations: string;
  impact: string;
  current_hash: string;
  pin_hash: string | null;
  /** JSON of the definition accepted at review. */
  pinned_definition: string | null;
  reviewed_at: string | null;
  reviewed_by: string | null;
  review_note: string | null;
  /** pinned | changed | new | removed */
  status: string;
  poisoned: number;
  first_seen_at: string;
  last_seen_at: string;
}

export interface SpansTable {
  /** Lower-case hex, as OTLP/JSON writes ids. */
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  /** unspecified | internal | server | client | producer | consumer */
  kind: string;
  start_time: string;
  end_time: string | null;
  duration_ms: number | null;
  /** unset | ok | error */
  status_code: string;
  status_message: string | null;
  scope_name: string | null;
  /** JSON objects, bounded (src/otlp/normalize.ts). */
  attributes: string;
  resource_attributes: string;
  dropped_attributes: number;
  agent: string | null;
  external_system: string;
  external_id: string;
  decision_id: string | null;
  received_at: string;
}

/** Proxied model calls per agent, model and UTC day (src/runs). */
export interface ModelUsageTable {
  agent: string;
  model: string;
  day: string;
  calls: number;
  blocked: number;
  unpriced: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
}

export interface PoliciesTable {
  key: string;
  level: string;
  scope_id: string;
  compose: string;
  mode: string;
  live_version: number | null;
  origin: string;
  bound: number;
  created_at: string;
  updated_at: string;
}

export interface PolicyVersionsTable {
  key: string;
  version: number;
  text: string;
  mode: string;
  notes: string | null;
  status: string;
  source: string;
  created_by: string;
  created_at: string;
}

export interface PolicyCanariesTable {
  id: string;
  key: string;
  baseline_version: number;
  candidate_version: number;
  steps: string;
  step_index: number;
  max_block_rate_delta: number;
  max_block_rate_drop: number;
  min_dwell_seconds: number;
  min_sample: number;
  state: string;
  proposal_id: string | null;
  started_at: string;
  step_started_at: string;
  ended_at: string | null;
  last_check: string | null;
  created_by: string;
}

export interface ProposalsTable {
  id: string;
  kind: string;
  status: string;
  scope_level: string;
  scope_id: string;
  policy_key: string;
  from_version: number | null;
  to_version: number;
  loosening: number;
  approvals_needed: number;
  title: string;
  diff: string;
  evidence: string;
  proof: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  applied_at: string | null;
  verified_note: string | null;
  rollback_reason: string | null;
}

export interface ProposalDecisionsTable {
  id: string;
  proposal_id: string;
  actor: string;
  approve: number;
  note: string;
  at: string;
}

export interface SimulationsTable {
  id: string;
  policy_key: string;
  result: string;
  created_by: string;
  created_at: string;
}

export interface CustomRulesTable {
  key: string;
  definition: string;
  enabled: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface BusinessRulesTable {
  key: string;
  definition: string;
  agent: string | null;
  mode: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface RuleExamplesTable {
  id: string;
  rule_id: string;
  decision_id: string;
  fires: number;
  sample: string | null;
  facts: string;
  created_by: string;
  created_at: string;
}

export interface GuardrailFeedbackTable {
  id: string;
  decision_id: string;
  label: string;
  detector_key: string | null;
  entity_type: string | null;
  note: string | null;
  agent: string;
  surface: string;
  content_sha256: string;
  status: string;
  created_by: string;
  created_at: string;
}

export interface GuardrailSuppressionsTable {
  id: string;
  feedback_id: string;
  scope: string;
  agent: string | null;
  detector_key: string | null;
  entity_type: string | null;
  content_sha256: string | null;
  reason: string | null;
  expires_at: string | null;
  created_by: string;
  created_at: string;
  deleted_at: string | null;
}

export interface ControlCatalogueTable {
  version: number;
  sha256: string;
  loaded_at: string;
  loaded_by: string;
}

export interface ControlsTable {
  key: string;
  version: number;
  title: string;
  /** JSON. */
  definition: string;
}

export interface ControlResultsTable {
  id: string;
  key: string;
  computed_at: string;
  window_days: number;
  status: string;
  value: number | null;
  /** JSON. */
  evidence: string;
}

export interface FrameworkReviewsTable {
  id: string;
  framework: string;
  control_key: string;
  reference: string | null;
  reviewer: string;
  reviewed_at: string;
  note: string | null;
}

export interface ObligationsTable {
  key: string;
  title: string;
  due_at: string;
  source: string;
  recurring: number;
  /** JSON. */
  detail: string;
}

/** Evaluations (migration 2026-11-26-15-evaluations; src/areas/eval). JSON columns are text. */
export interface EvalSuitesTable {
  key: string;
  name: string;
  description: string | null;
  tags: string;
  version: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface EvalCasesTable {
  id: string;
  suite: string;
  case_key: string | null;
  position: number;
  input: string;
  expected: string;
  context: string;
  labels: string;
  split: string;
  /** api, file, trace or annotation. */
  source: string;
  source_ref: string | null;
  created_by: string;
  created_at: string;
}

export interface EvalRunsTable {
  id: string;
  /** offline or online. */
  kind: string;
  suite: string | null;
  suite_version: number | null;
  agent: string | null;
  target: string;
  scorers: string;
  baseline_run_id: string | null;
  runner: string;
  /** queued, running, completed or failed. */
  status: string;
  job_id: string | null;
  total: number;
  done: number;
  error: string | null;
  options: string;
  created_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface EvalOutputsTable {
  id: string;
  run_id: string;
  case_id: string | null;
  decision_id: string | null;
  agent: string | null;
  at: string;
  output: string | null;
  verdict: string | null;
  entities: string;
  latency_ms: number | null;
  cost_usd: number | null;
  error: string | null;
  detail: string;
}

export interface EvalResultsTable {
  id: string;
  run_id: string;
  output_id: string;
  case_id: string | null;
  decision_id: string | null;
  agent: string | null;
  at: string;
  scorer: string;
  score: number | null;
  /** 1 or 0. */
  passed: number;
  threshold: number | null;
  reason: string;
  /** pass or fail: a person's call, counted instead of `passed`. */
  annotation: string | null;
  annotation_note: string | null;
  annotated_by: string | null;
  annotated_at: string | null;
}

export interface EvalSlosTable {
  id: string;
  agent: string;
  scorer: string;
  objective: string;
  window_days: number;
  target: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** The red team (migration 2026-11-26-16-redteam; src/areas/redteam, src/areas/probes, src/areas/public). */
export interface RedteamCampaignsTable {
  id: string;
  agent: string;
  name: string;
  /** pipeline or target. */
  runner: string;
  target_id: string | null;
  adaptive: number;
  budget: number;
  seed: number;
  include_deployment_probes: number;
  probes: string;
  /** completed or failed. */
  status: string;
  error: string | null;
  calls_used: number;
  summary: string;
  comparison: string | null;
  previous_campaign_id: string | null;
  library_version: string;
  created_by: string;
  created_at: string;
  finished_at: string | null;
}

export interface RedteamResultsTable {
  id: string;
  campaign_id: string;
  probe_id: string;
  class: string;
  /** attack or benign. */
  kind: string;
  mutation: string | null;
  surface: string;
  text: string;
  /** through, blocked or error. */
  outcome: string;
  as_configured: string | null;
  if_enforced: string | null;
  decision_id: string | null;
  rules: string;
  detail: string;
  at: string;
}

export interface ProbeTargetsTable {
  id: string;
  agent: string;
  name: string;
  /** openai_chat, messages or http_json. */
  adapter: string;
  url: string;
  model: string | null;
  /** Sealed; never answered back. */
  auth_header: string | null;
  forbidden_tools: string;
  leak_markers: string;
  probes: string;
  interval_seconds: number;
  max_probes_per_run: number;
  rate_limit_per_minute: number;
  timeout_seconds: number;
  enabled: number;
  acknowledgement: string | null;
  opted_in_by: string | null;
  opted_in_at: string | null;
  opted_out_at: string | null;
  last_run_at: string | null;
  next_run_at: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface ShowcaseEventsTable {
  id: string;
  at: string;
  probe_id: string;
  class: string;
  kind: string;
  mutation: string | null;
  verdict: string;
  outcome: string;
  rules: string;
}

/** Knowledge governance (migration 2026-11-26-17-knowledge; src/areas/sources, entitlement, answerability). */
export interface KnowledgeSourcesTable {
  key: string;
  title: string;
  /** system_of_record, approved, unverified or external. */
  tier: string;
  owner: string | null;
  domain: string | null;
  updated_at_source: string | null;
  freshness_sla_hours: number | null;
  deprecated: number;
  metadata: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  last_cited_at: string | null;
  validated_at: string | null;
  validation: string | null;
  validation_ok: number | null;
}

export interface SourceConnectionsTable {
  key: string;
  /** database or api. */
  kind: string;
  config: string;
  /** Sealed; never answered back. */
  credential: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  last_error: string | null;
}

export interface EntitlementPrincipalsTable {
  subject: string;
  agent: string | null;
  display: string | null;
  groups: string;
  clearances: string;
  purposes: string;
  residency: string | null;
  created_at: string;
  updated_at: string;
}

export interface EntitlementGrantsTable {
  id: string;
  resource: string;
  principal: string;
  /** subject, group, agent or *. */
  principal_kind: string;
  classes: string;
  purposes: string;
  residency: string | null;
  created_by: string;
  created_at: string;
  last_used_at: string | null;
}

export interface EntitlementWithholdingsTable {
  id: string;
  trace_id: string | null;
  subject: string;
  agent: string | null;
  chunk_source: string;
  chunk_id: string | null;
  reason: string;
  at: string;
}

/** Migration 2026-11-26-18-entitlement-retrievals. */
export interface EntitlementRetrievalsTable {
  subject: string;
  source: string;
  last_at: string;
}

export interface AnswerabilityBoundariesTable {
  agent: string;
  systems_of_record: string;
  coverage_months: number | null;
  coverage_start: string | null;
  entity_types: string;
  answerable_types: string;
  out_of_scope_topics: string;
  freshness_hours: number | null;
  /** observe or enforce. */
  mode: string;
  updated_by: string;
  updated_at: string;
}

export interface AnswerabilityChecksTable {
  id: string;
  agent: string;
  at: string;
  question_sha256: string;
  /** answerable, not_answerable or partial. */
  outcome: string;
  reasons: string;
  trace_id: string | null;
}

/** Integrations and monitoring (migration 2026-11-26-19-integrations; src/areas/integrations, alerts, monitors, discovery, auth). */
export interface CodehostConnectionsTable {
  id: string;
  base_url: string;
  token_sealed: string;
  token_hint: string;
  account_login: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface CodehostWebhookSecretsTable {
  id: string;
  secret_sealed: string;
  created_by: string;
  created_at: string;
}

export interface CodehostDeliveriesTable {
  delivery_id: string;
  event: string;
  repo_full_name: string | null;
  scan_id: string | null;
  received_at: string;
}

export interface CodehostScansTable {
  id: string;
  repo_full_name: string;
  ref: string | null;
  trigger: string;
  status: string;
  job_id: string | null;
  commit_sha: string | null;
  files_scanned: number;
  files_skipped: number;
  report: string | null;
  error: string | null;
  requested_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface DiscoverySitesTable {
  id: string;
  origin: string;
  location: string;
  path: string | null;
  line: number | null;
  kind: string;
  name: string;
  agent_hint: string | null;
  detail: string;
  scan_id: string | null;
  submission_id: string | null;
  first_seen_at: string;
  last_seen_at: string;
}

export interface DiscoverySubmissionsTable {
  id: string;
  source: string;
  label: string | null;
  files_scanned: number | null;
  frameworks: string;
  coverage: number | null;
  counts: string;
  sites: number;
  submitted_by: string;
  created_at: string;
}

export interface HostedApiScansTable {
  id: string;
  endpoint_url: string;
  docs_url: string | null;
  openapi_spec_url: string | null;
  purpose: string | null;
  status: string;
  document_sha256: string | null;
  result: string | null;
  error: string | null;
  created_by: string;
  created_at: string;
}

export interface ChatAlertChannelsTable {
  id: string;
  url_sealed: string;
  url_masked: string;
  min_severity: string;
  updated_by: string;
  updated_at: string;
}

export interface ChatAlertsSentTable {
  fingerprint: string;
  finding_id: string | null;
  kind: string;
  job_id: string | null;
  created_at: string;
}

export interface MonitorsTable {
  id: string;
  kind: string;
  target: string;
  name: string;
  interval_seconds: number;
  config: string;
  enabled: number;
  baseline: string | null;
  baseline_at: string | null;
  next_run_at: string | null;
  last_run_at: string | null;
  last_status: string | null;
  last_error: string | null;
  last_change_at: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface MonitorRunsTable {
  id: string;
  monitor_id: string;
  trigger: string;
  slot: string;
  status: string;
  job_id: string | null;
  changes: string;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface CodehostIdentitiesTable {
  codehost_user_id: string;
  user_id: string;
  login: string;
  email: string;
  name: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** Escalation (migration 2026-11-26-20-escalation; src/areas/escalation). */
export interface EscalationTurnsTable {
  id: string;
  session_id: string;
  agent: string;
  trace_id: string | null;
  origin: string;
  user_text: string | null;
  agent_text: string | null;
  escalated: number | null;
  failed: number | null;
  confidence: number | null;
  conditions: string;
  handoff_id: string | null;
  at: string;
}

export interface EscalationPoliciesTable {
  agent: string;
  conditions: string;
  owner_role: string;
  sla_minutes: number;
  mode: string;
  updated_by: string;
  updated_at: string;
}

export interface EscalationHandoffsTable {
  id: string;
  session_id: string;
  agent: string;
  status: string;
  reasons: string;
  owner_role: string;
  mode: string;
  retroactive: number;
  conversation: string;
  created_at: string;
  due_at: string;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  note: string | null;
  closed_at: string | null;
  breached: number;
}

/** The public waitlist (migration 2026-11-26-21-public; src/areas/waitlist). */
export interface WaitlistEntriesTable {
  id: string;
  email_normalized: string;
  email: string;
  source: string | null;
  company: string | null;
  note: string | null;
  signups: number;
  created_at: string;
  updated_at: string;
}

export interface RiskAssessmentsTable {
  id: string;
  /** The agent's slug. */
  agent: string;
  eu_ai_act_class: string;
  inherent_risk: string;
  residual_risk: string;
  /** JSON object. */
  answers: string;
  review_months: number;
  /** 1 or 0. */
  signed_off: number;
  signed_off_by: string | null;
  signed_off_at: string | null;
  assessed_by: string;
  assessed_at: string;
  next_review_at: string;
}

export interface Database {
  traces: TracesTable;
  findings: FindingsTable;
  dead_letters: DeadLettersTable;
  detector_settings: DetectorSettingsTable;
  judgment_posture: JudgmentPostureTable;
  policy_state: PolicyStateTable;
  api_tokens: ApiTokensTable;
  agent_credentials: AgentCredentialsTable;
  audit_entries: AuditEntriesTable;
  meta: MetaTable;
  agents: AgentsTable;
  identities: IdentitiesTable;
  capabilities: CapabilitiesTable;
  tools: ToolsTable;
  approvals: ApprovalsTable;
  signing_keys: SigningKeysTable;
  agent_messages: AgentMessagesTable;
  message_nonces: MessageNoncesTable;
  memory_entries: MemoryEntriesTable;
  agent_usage: AgentUsageTable;
  audit_checkpoints: AuditCheckpointsTable;
  jobs: JobsTable;
  evidence_packages: EvidencePackagesTable;
  legal_holds: LegalHoldsTable;
  spans: SpansTable;
  mcp_servers: McpServersTable;
  mcp_tools: McpToolsTable;
  model_usage: ModelUsageTable;
  policies: PoliciesTable;
  policy_versions: PolicyVersionsTable;
  policy_canaries: PolicyCanariesTable;
  proposals: ProposalsTable;
  proposal_decisions: ProposalDecisionsTable;
  simulations: SimulationsTable;
  custom_rules: CustomRulesTable;
  business_rules: BusinessRulesTable;
  rule_examples: RuleExamplesTable;
  guardrail_feedback: GuardrailFeedbackTable;
  guardrail_suppressions: GuardrailSuppressionsTable;
  control_catalogue: ControlCatalogueTable;
  controls: ControlsTable;
  control_results: ControlResultsTable;
  framework_reviews: FrameworkReviewsTable;
  obligations: ObligationsTable;
  risk_assessments: RiskAssessmentsTable;
  eval_suites: EvalSuitesTable;
  eval_cases: EvalCasesTable;
  eval_runs: EvalRunsTable;
  eval_outputs: EvalOutputsTable;
  eval_results: EvalResultsTable;
  eval_slos: EvalSlosTable;
  redteam_campaigns: RedteamCampaignsTable;
  redteam_results: RedteamResultsTable;
  probe_targets: ProbeTargetsTable;
  showcase_events: ShowcaseEventsTable;
  knowledge_sources: KnowledgeSourcesTable;
  source_connections: SourceConnectionsTable;
  entitlement_principals: EntitlementPrincipalsTable;
  entitlement_grants: EntitlementGrantsTable;
  entitlement_withholdings: EntitlementWithholdingsTable;
  entitlement_retrievals: EntitlementRetrievalsTable;
  codehost_connections: CodehostConnectionsTable;
  codehost_webhook_secrets: CodehostWebhookSecretsTable;
  codehost_deliveries: CodehostDeliveriesTable;
  codehost_scans: CodehostScansTable;
  discovery_sites: DiscoverySitesTable;
  discovery_submissions: DiscoverySubmissionsTable;
  hosted_api_scans: HostedApiScansTable;
  chat_alert_channels: ChatAlertChannelsTable;
  chat_alerts_sent: ChatAlertsSentTable;
  monitors: MonitorsTable;
  monitor_runs: MonitorRunsTable;
  codehost_identities: CodehostIdentitiesTable;
  escalation_turns: EscalationTurnsTable;
  escalation_policies: EscalationPoliciesTable;
  escalation_handoffs: EscalationHandoffsTable;
  waitlist_entries: WaitlistEntriesTable;
  answerability_boundaries: AnswerabilityBoundariesTable;
  answerability_checks: AnswerabilityChecksTable;
}

export type ApiTokenRow = Selectable<ApiTokensTable>;
export type NewApiToken = Insertable<ApiTokensTable>;
export type ApiTokenUpdate = Updateable<ApiTokensTable>;
export type AgentCredentialRow = Selectable<AgentCredentialsTable>;
export type AuditEntryRow = Selectable<AuditEntriesTable>;
export type TraceRow = Selectable<TracesTable>;
export type FindingRow = Selectable<FindingsTable>;
export type AgentRow = Selectable<AgentsTable>;
export type IdentityRow = Selectable<IdentitiesTable>;
export type CapabilityRow = Selectable<CapabilitiesTable>;
export type ToolRow = Selectable<ToolsTable>;
export type ApprovalRow = Selectable<ApprovalsTable>;
export type SigningKeyRow = Selectable<SigningKeysTable>;
export type AgentMessageRow = Selectable<AgentMessagesTable>;
export type MemoryEntryRow = Selectable<MemoryEntriesTable>;
export type AuditCheckpointRow = Selectable<AuditCheckpointsTable>;
export type JobRow = Selectable<JobsTable>;
export type EvidencePackageRow = Selectable<EvidencePackagesTable>;
export type LegalHoldRow = Selectable<LegalHoldsTable>;
export type SpanRow = Selectable<SpansTable>;
export type NewSpan = Insertable<SpansTable>;
export type McpServerRow = Selectable<McpServersTable>;
export type McpToolRow = Selectable<McpToolsTable>;
export type RiskAssessmentRow = Selectable<RiskAssessmentsTable>;
export type EvalSuiteRow = Selectable<EvalSuitesTable>;
export type EvalCaseRow = Selectable<EvalCasesTable>;
export type EvalRunRow = Selectable<EvalRunsTable>;
export type EvalOutputRow = Selectable<EvalOutputsTable>;
export type EvalResultRow = Selectable<EvalResultsTable>;
export type EvalSloRow = Selectable<EvalSlosTable>;
export type RedteamCampaignRow = Selectable<RedteamCampaignsTable>;
export type RedteamResultRow = Selectable<RedteamResultsTable>;
export type ProbeTargetRow = Selectable<ProbeTargetsTable>;
export type ShowcaseEventRow = Selectable<ShowcaseEventsTable>;
export type KnowledgeSourceRow = Selectable<KnowledgeSourcesTable>;
export type SourceConnectionRow = Selectable<SourceConnectionsTable>;
export type EntitlementPrincipalRow = Selectable<EntitlementPrincipalsTable>;
export type EntitlementGrantRow = Selectable<EntitlementGrantsTable>;
export type EntitlementWithholdingRow = Selectable<EntitlementWithholdingsTable>;
export type AnswerabilityBoundaryRow = Selectable<AnswerabilityBoundariesTable>;
export type AnswerabilityCheckRow = Selectable<AnswerabilityChecksTable>;

export type CodehostScanRow = Selectable<CodehostScansTable>;
export type DiscoverySiteRow = Selectable<DiscoverySitesTable>;
export type HostedApiScanRow = Selectable<HostedApiScansTable>;
export type MonitorRow = Selectable<MonitorsTable>;
export type MonitorRunRow = Selectable<MonitorRunsTable>;
