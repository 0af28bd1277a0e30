// Wire shapes of /api/monitors: monitors, their runs, the run request.
import { Type, type Static } from 'typebox';
import { Body, ListOf, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';
import { CHANGE_KINDS, MONITOR_KINDS } from './kinds.js';

export const RUN_STATUSES = ['queued', 'baseline', 'unchanged', 'changed', 'failed'] as const;
export const LAST_STATUSES = ['ok', 'changed', 'failed'] as const;
export const RUN_TRIGGERS = ['schedule', 'manual'] as const;

// Loose on purpose: the service refuses an interval outside [monitor_min_interval_seconds, 30 days]
// with a 422 that names the bound.
const LOOSE_INT = 1_000_000_000;
const IntervalSeconds = Type.Integer({ minimum: 1, maximum: LOOSE_INT, description: 'seconds between scheduled runs: at least the setting monitor_min_interval_seconds, at most 2592000 (30 days); default 3600' });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const CONFIG_KEYS_TEXT =
  'per kind (≤ 8 KiB as JSON; other keys are refused): mcp_server `check_pins` (boolean, default true: report tools that differ from their review pin); codehost_repo `ref` (branch, tag or commit; default the default branch); hosted_api and source_freshness none';
const Config = (description: string) => Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), { maxProperties: 20, description });

export const MonitorParams = Type.Object({ monitor_id: Type.String({ minLength: 1, maxLength: 100 }) });
export type MonitorParams = Static<typeof MonitorParams>;

export const ListMonitorsQuery = Type.Object({
  kind: Type.Optional(StringEnum(MONITOR_KINDS)),
  enabled: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'next_cursor of the previous page' })),
});
export type ListMonitorsQuery = Static<typeof ListMonitorsQuery>;

export const CreateMonitorBody = Body({
  kind: StringEnum(MONITOR_KINDS),
  target: Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'mcp_server: a registered MCP server name; hosted_api: the OpenAPI document URL (https, under the outbound policy); codehost_repo: owner/name; source_freshness: a registered knowledge source key',
  }),
  name: Type.Optional(Name),
  interval_seconds: Type.Optional(IntervalSeconds),
  config: Type.Optional(Config(CONFIG_KEYS_TEXT)),
  enabled: Type.Optional(Type.Boolean({ default: true })),
});
export type CreateMonitorBody = Static<typeof CreateMonitorBody>;

export const UpdateMonitorBody = Body({
  name: Type.Optional(Name),
  interval_seconds: Type.Optional(IntervalSeconds),
  enabled: Type.Optional(Type.Boolean({ description: 'false pauses, true resumes (due now)' })),
  config: Type.Optional(Config(`replaces the config, ${CONFIG_KEYS_TEXT}; a different config clears the baseline (the next run takes a new one)`)),
});
export type UpdateMonitorBody = Static<typeof UpdateMonitorBody>;

export const RunBody = Body({
  rebaseline: Type.Optional(Type.Boolean({ description: "the run's observation becomes the new baseline (run status baseline): accepts the changes seen so far" })),
});
export type RunBody = Static<typeof RunBody>;

export const ChangeSchema = Type.Object({ kind: StringEnum(CHANGE_KINDS), item: Type.String(), detail: Type.String() });

export const MonitorSchema = Type.Object({
  id: Type.String(),
  kind: StringEnum(MONITOR_KINDS),
  target: Type.String(),
  name: Type.String(),
  interval_seconds: Type.Integer(),
  config: Type.Record(Type.String(), Type.Unknown()),
  enabled: Type.Boolean(),
  baseline: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'what the baseline run saw; later runs are compared with it' })),
  baseline_at: NullableTimestamp,
  next_run_at: NullableTimestamp,
  last_run_at: NullableTimestamp,
  last_status: Nullable(StringEnum(LAST_STATUSES)),
  last_error: Nullable(Type.String()),
  last_change_at: NullableTimestamp,
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Monitor = Static<typeof MonitorSchema>;

export const RunSchema = Type.Object({
  id: Type.String(),
  monitor_id: Type.String(),
  trigger: StringEnum(RUN_TRIGGERS),
  slot: Type.String({ description: 'the schedule slot claimed (a timestamp), or manual:<run id>' }),
  status: StringEnum(RUN_STATUSES),
  job_id: Nullable(Type.String()),
  changes: Type.Array(ChangeSchema),
  error: Nullable(Type.String()),
  created_at: Timestamp,
  finished_at: NullableTimestamp,
});
export type Run = Static<typeof RunSchema>;

export const MonitorDetailSchema = Type.Object({ ...MonitorSchema.properties, runs: Type.Array(RunSchema, { description: 'the last runs (≤ 20), newest first' }) });
export type MonitorDetail = Static<typeof MonitorDetailSchema>;

export const MonitorListSchema = ListOf(MonitorSchema);
export type MonitorList = Static<typeof MonitorListSchema>;

export const RunAcceptedSchema = Type.Object({
  monitor_id: Type.String(),
  run_id: Type.String(),
  job_id: Type.String({ description: 'the monitors.run job (GET /api/jobs/{id}); the run shows under GET /api/monitors/{id} when done' }),
  status: Type.Literal('queued'),
  rebaseline: Type.Boolean(),
});
export type RunAccepted = Static<typeof RunAcceptedSchema>;

export const DeletedSchema = Type.Object({ id: Type.String(), deleted: Type.Literal(true), runs_deleted: Type.Integer() });
export type Deleted = Static<typeof DeletedSchema>;
