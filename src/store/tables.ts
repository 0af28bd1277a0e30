// The database as the application sees it: one interface per table, snake_case columns as in the
// spec. Timestamps are ISO 8601 UTC text on both engines so that they compare as strings.
import type { Insertable, Selectable, Updateable } from 'kysely';

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
}

export interface DetectorSettingsTable {
  key: string;
  /** 1 or 0. */
  enabled: number;
  reason: string | null;
  updated_at: string;
}

export interface PolicyStateTable {
  key: string;
  mode: string;
  updated_at: string;
}

export interface Database {
  traces: TracesTable;
  findings: FindingsTable;
  detector_settings: DetectorSettingsTable;
  policy_state: PolicyStateTable;
  api_tokens: ApiTokensTable;
  agent_credentials: AgentCredentialsTable;
  audit_entries: AuditEntriesTable;
  meta: MetaTable;
}

export type ApiTokenRow = Selectable<ApiTokensTable>;
export type NewApiToken = Insertable<ApiTokensTable>;
export type ApiTokenUpdate = Updateable<ApiTokensTable>;
export type AgentCredentialRow = Selectable<AgentCredentialsTable>;
export type AuditEntryRow = Selectable<AuditEntriesTable>;
export type TraceRow = Selectable<TracesTable>;
export type FindingRow = Selectable<FindingsTable>;
