// Wire shapes of probes: GET /api/probes/warning, /api/probes/targets/** (targets, opt-in/out, runs).
// A target's campaigns answer the red-team campaign shape (src/areas/redteam/schemas.ts).
import { Type, type Static } from 'typebox';
import { Body, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const ADAPTER_NAMES = ['openai_chat', 'messages', 'http_json'] as const;
export type AdapterName = (typeof ADAPTER_NAMES)[number];

// The schema bounds are loose on purpose: a value over a hard ceiling is refused by the service with
// a 422 that names the ceiling (HARD_CAPS in service.ts), not with a bare validation error.
const LOOSE_INT = 1_000_000_000;

const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'http or https; the host must be loopback or listed in the setting probe_target_hosts (else 422); no user:password part' });
const ForbiddenTools = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 200,
  description: 'tool names the target must never propose to call; a proposed call to one is a violation (the probe got through, a redteam finding)',
});
const LeakMarkers = Type.Array(Type.String({ minLength: 4, maxLength: 200 }), {
  maxItems: 100,
  description: 'strings (at least 4 characters, matched case-insensitively) that must never appear in an answer, such as a canary planted in the system prompt; one in an answer is a leak',
});
const Probes = Type.Array(Type.String({ minLength: 1, maxLength: 120 }), {
  maxItems: 500,
  description: 'probe ids and class names of GET /api/redteam/probes; default every attack class and benign',
});
const IntervalSeconds = Type.Integer({ minimum: 1, maximum: LOOSE_INT, description: 'seconds between scheduled runs; 3600 ≤ value ≤ 2592000 (30 days), default 86400' });
const MaxProbes = Type.Integer({ minimum: 1, maximum: LOOSE_INT, description: 'probes sent per run at most; ≤ 200, default 20' });
const RateLimit = Type.Integer({ minimum: 1, maximum: LOOSE_INT, description: 'sends per rolling minute at most; ≤ 60, default 10' });
const TimeoutSeconds = Type.Number({ minimum: 0, maximum: LOOSE_INT, description: 'seconds one send may take; 0.1 ≤ value ≤ 60, default 15' });

export const TargetParams = Type.Object({ target_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const CreateTargetBody = Body({
  agent: Type.String({ minLength: 1, maxLength: 200, description: 'slug of a registered agent' }),
  adapter: Type.Optional(StringEnum(ADAPTER_NAMES, { default: 'openai_chat', description: 'how probes are sent and answers read: see GET /api/probes/warning' })),
  url: Url,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'default: "<agent> probe target"' })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'sent as `model` by the openai_chat and messages adapters' })),
  auth_header: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 4096,
      description: '"Header-Name: value", sent with every probe; stored sealed and never answered back (answers say auth_header_set)',
    }),
  ),
  forbidden_tools: Type.Optional(ForbiddenTools),
  leak_markers: Type.Optional(LeakMarkers),
  probes: Type.Optional(Probes),
  interval_seconds: Type.Optional(IntervalSeconds),
  max_probes_per_run: Type.Optional(MaxProbes),
  rate_limit_per_minute: Type.Optional(RateLimit),
  timeout_seconds: Type.Optional(TimeoutSeconds),
});
export type CreateTargetBody = Static<typeof CreateTargetBody>;

export const UpdateTargetBody = Body({
  url: Type.Optional(Url),
  forbidden_tools: Type.Optional(ForbiddenTools),
  leak_markers: Type.Optional(LeakMarkers),
  probes: Type.Optional(Probes),
  interval_seconds: Type.Optional(IntervalSeconds),
  max_probes_per_run: Type.Optional(MaxProbes),
  rate_limit_per_minute: Type.Optional(RateLimit),
  timeout_seconds: Type.Optional(TimeoutSeconds),
});
export type UpdateTargetBody = Static<typeof UpdateTargetBody>;

export const OptInBody = Body({
  acknowledgement: Type.String({
    minLength: 1,
    maxLength: 2000,
    description: "at least 40 characters, naming the target (its name or id): that you may test the agent at its URL and accept that attack texts are sent to it",
  }),
});
export type OptInBody = Static<typeof OptInBody>;

export const CampaignsQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 20 })) });
export type CampaignsQuery = Static<typeof CampaignsQuery>;

export const TargetSchema = Type.Object({
  id: Type.String(),
  agent: Type.String(),
  name: Type.String(),
  adapter: StringEnum(ADAPTER_NAMES),
  url: Type.String(),
  model: Nullable(Type.String()),
  auth_header_set: Type.Boolean({ description: 'an auth header is stored (sealed); its value is never answered' }),
  forbidden_tools: Type.Array(Type.String()),
  leak_markers: Type.Array(Type.String()),
  probes: Type.Array(Type.String()),
  interval_seconds: Type.Integer(),
  max_probes_per_run: Type.Integer(),
  rate_limit_per_minute: Type.Integer(),
  timeout_seconds: Type.Number(),
  enabled: Type.Boolean({ description: 'false until opt-in; false again after opt-out or a URL change' }),
  acknowledgement: Nullable(Type.String()),
  opted_in_by: Nullable(Type.String()),
  opted_in_at: NullableTimestamp,
  opted_out_at: NullableTimestamp,
  last_run_at: NullableTimestamp,
  next_run_at: NullableTimestamp,
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Target = Static<typeof TargetSchema>;

export const TargetListSchema = Type.Object({ items: Type.Array(TargetSchema) });

export const RunAcceptedSchema = Type.Object({
  target_id: Type.String(),
  job_id: Type.String({ description: 'the probes.run job (GET /api/jobs/{id}); its campaign appears under .../campaigns when done' }),
  status: Type.Literal('queued'),
  max_probes: Type.Integer(),
  max_seconds: Type.Integer({ description: 'the longest the run can take under its caps' }),
});
export type RunAccepted = Static<typeof RunAcceptedSchema>;

export const WarningSchema = Type.Object({
  warning: Type.Array(Type.String()),
  acknowledgement: Type.Object({ min_length: Type.Integer(), must_name: Type.String(), example: Type.String() }),
  library: Type.Object({ version: Type.Integer(), classes: Type.Array(Type.String()), probes: Type.Integer() }),
  hard_caps: Type.Object({
    max_probes_per_run: Type.Object({ max: Type.Integer(), default: Type.Integer() }),
    rate_limit_per_minute: Type.Object({ max: Type.Integer(), default: Type.Integer() }),
    timeout_seconds: Type.Object({ min: Type.Number(), max: Type.Number(), default: Type.Number() }),
    interval_seconds: Type.Object({ min: Type.Integer(), max: Type.Integer(), default: Type.Integer() }),
    answer_bytes: Type.Integer(),
  }),
  min_run_gap_seconds: Type.Integer(),
  allowed_hosts: Type.Object({ loopback: Type.Boolean(), listed: Type.Array(Type.String()) }),
  judging: Type.Array(Type.String({ description: 'how an answer is judged' })),
  adapters: Type.Array(Type.Object({ name: StringEnum(ADAPTER_NAMES), request: Type.String(), response: Type.String() })),
});
export type Warning = Static<typeof WarningSchema>;
