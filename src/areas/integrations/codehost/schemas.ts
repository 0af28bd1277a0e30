// Wire shapes of /api/integrations/codehost/*: the connection, repositories, scans and their
// reports, the webhook secret (shown once) and the signed webhook.
import { Type, type Static } from 'typebox';
import { Body, EmptyBody, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../../infra/http/schemas.js';

export { EmptyBody };

/** `owner/name` as code hosts spell repository names: letters, digits, `.`, `-`, `_`. */
export const REPO_FULL_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$';
/** A branch, tag or commit: no whitespace, control characters or the characters git refuses in refs. */
export const REF_PATTERN = '^[^\\s\\x00-\\x1f\\x7f~^:?*\\[\\\\]{1,255}$';
/** The webhook takes bodies up to this size (a push of many commits is large). */
export const WEBHOOK_BODY_LIMIT = 1_048_576;
export const SCAN_TRIGGERS = ['manual', 'webhook', 'monitor', 'discovery'] as const;
export const SCAN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;

const RepoFullName = Type.String({ minLength: 3, maxLength: 201, pattern: REPO_FULL_NAME_PATTERN, description: "the repository as 'owner/name'" });

export const ConnectBody = Body({
  access_token: Type.String({
    minLength: 1,
    maxLength: 1000,
    pattern: '^[!-~]+$',
    description: 'a code-host access token (visible ASCII) that can read the repositories to scan; checked against the code host, stored sealed at once and never answered back',
  }),
});
export type ConnectBody = Static<typeof ConnectBody>;

export const ConnectionSchema = Type.Object({
  connected: Type.Literal(true),
  base_url: Type.String({ description: 'the code host API (setting codehost_api_url)' }),
  account_login: Nullable(Type.String({ description: 'the account the token belongs to, as the code host named it' })),
  token_hint: Type.String({ description: 'the first 4 characters of the token and an ellipsis' }),
  updated_at: Timestamp,
});
export type Connection = Static<typeof ConnectionSchema>;

export const RepoSchema = Type.Object({
  full_name: Type.String(),
  default_branch: Nullable(Type.String()),
  private: Type.Boolean(),
  updated_at: Nullable(Type.String()),
});
export type Repo = Static<typeof RepoSchema>;
export const RepoListSchema = Type.Object({ items: Type.Array(RepoSchema) });

export const ScanBody = Body({
  repo_full_name: RepoFullName,
  ref: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: REF_PATTERN, description: "a branch, tag or commit; default the repository's default branch" })),
});
export type ScanBody = Static<typeof ScanBody>;

export const ScanAcceptedSchema = Type.Object({
  scan_id: Type.String(),
  status: Type.Literal('queued'),
  job_id: Type.String({ description: 'the codehost.scan job (GET /api/jobs/{job_id})' }),
});

export const ScanParams = Type.Object({ scan_id: Type.String({ minLength: 1, maxLength: 100 }) });

const Located = { path: Type.String(), line: Type.Integer() };

export const ScanReportSchema = Type.Object({
  frameworks: Type.Array(Type.String()),
  model_clients: Type.Array(Type.String()),
  mcp_servers: Type.Array(
    Type.Object({ name: Type.String(), ...Located, transport: Nullable(Type.String()), command: Nullable(Type.String()), url: Nullable(Type.String()) }),
  ),
  tools: Type.Array(Type.Object({ name: Type.String(), ...Located, framework: Nullable(Type.String()) })),
  prompts: Type.Array(
    Type.Object({ ...Located, chars: Type.Integer(), risky: Type.Boolean(), entities: Type.Array(Type.String()), excerpt: Type.String({ description: 'at most 160 characters' }) }),
  ),
  secrets: Type.Array(
    Type.Object({ ...Located, entity: Type.String(), hint: Type.String({ description: 'the first 4 characters and an ellipsis; the value is never kept' }), length: Type.Integer() }),
  ),
  agents: Type.Array(Type.Object({ name: Type.String(), ...Located, framework: Nullable(Type.String()) })),
  languages: Type.Record(Type.String(), Type.Integer(), { description: 'files scanned per language' }),
  shadow_agents: Type.Array(Type.String(), { description: 'agent hints (slugs) found in the code that match no registered agent' }),
  signature: Type.Array(Type.String(), { description: 'sorted identifiers of what was found (framework:…, model_client:…, mcp_server:name@path, tool:…, secret:path:entity, prompt_risky:path, agent:…); monitors compare them' }),
  counts: Type.Object({
    tree_entries: Type.Integer(),
    tree_truncated: Type.Boolean({ description: 'the code host cut the tree short: files beyond it were not seen' }),
    files_selected: Type.Integer(),
    files_scanned: Type.Integer(),
    files_skipped: Type.Integer(),
    files_failed: Type.Integer({ description: 'selected files the code host did not hand out (gone, too large, not base64)' }),
    bytes_read: Type.Integer(),
    sites: Type.Integer({ description: 'discovery sites written for the repository (one per kind, name and path)' }),
  }),
});
export type ScanReport = Static<typeof ScanReportSchema>;

export const ScanSchema = Type.Object({
  id: Type.String(),
  repo_full_name: Type.String(),
  ref: Nullable(Type.String()),
  trigger: StringEnum(SCAN_TRIGGERS),
  status: StringEnum(SCAN_STATUSES),
  job_id: Nullable(Type.String()),
  commit_sha: Nullable(Type.String()),
  files_scanned: Type.Integer(),
  files_skipped: Type.Integer(),
  report: Nullable(ScanReportSchema),
  error: Nullable(Type.String({ description: 'why the scan failed' })),
  requested_by: Type.String(),
  created_at: Timestamp,
  started_at: NullableTimestamp,
  finished_at: NullableTimestamp,
});
export type Scan = Static<typeof ScanSchema>;

export const WebhookSecretSchema = Type.Object({
  secret: Type.String({ description: 'shown once: 32 random bytes, base64url; configure it as the webhook secret on the code host' }),
  created_at: Timestamp,
  replaced: Type.Boolean({ description: 'an earlier secret existed and no longer verifies anything' }),
  header: Type.Literal('X-Hub-Signature-256'),
  algorithm: Type.Literal('sha256'),
});
export type WebhookSecret = Static<typeof WebhookSecretSchema>;

/**
 * The webhook body is the code host's event payload, verified against the raw bytes before it is
 * read: any JSON object (its fields are read only for push and ping).
 */
export const WebhookBody = Type.Object(
  {
    ref: Type.Optional(Type.String({ maxLength: 1000, description: 'push: the ref pushed (refs/heads/…)' })),
    after: Type.Optional(Type.String({ maxLength: 100, description: 'push: the commit the ref points to now' })),
    repository: Type.Optional(Type.Object({ full_name: Type.Optional(Type.String({ maxLength: 300 })) }, { additionalProperties: true })),
  },
  { additionalProperties: true, 'x-body-limit': WEBHOOK_BODY_LIMIT, description: "the code host's event payload; X-Hub-Signature-256 signs its raw bytes" },
);
export type WebhookBody = Static<typeof WebhookBody>;

export const WebhookHeaders = Type.Object({
  'x-hub-signature-256': Type.Optional(Type.String({ maxLength: 200, description: 'sha256=<hex HMAC-SHA256 of the raw body under the webhook secret>' })),
  'x-github-delivery': Type.Optional(Type.String({ maxLength: 200, description: 'the delivery id; a delivery seen before is refused (409)' })),
  'x-github-event': Type.Optional(Type.String({ maxLength: 100, description: 'push, ping or another event (ignored)' })),
});

export const WebhookAnswerSchema = Type.Object({
  delivery_id: Type.String(),
  event: Type.String(),
  ok: Type.Optional(Type.Literal(true)),
  scan_id: Type.Optional(Type.String()),
  job_id: Type.Optional(Type.String()),
  ignored: Type.Optional(Type.String({ description: 'why nothing was queued' })),
});
export type WebhookAnswer = Static<typeof WebhookAnswerSchema>;
