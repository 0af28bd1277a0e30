// Wire shapes of the platform routes: /, /health, /ready, /api/health, /api/me, /api/version.
import { Type, type Static } from 'typebox';
import { Nullable, NullableTimestamp, StringEnum } from '../../infra/http/schemas.js';
import { TokenRole } from '../tokens/schemas.js';

export const RootSchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  version: Type.String(),
  links: Type.Record(Type.String(), Type.String()),
});

const Status = StringEnum(['ok', 'down']);

export const HealthSchema = Type.Object({
  status: Status,
  version: Type.String(),
  uptime_seconds: Type.Number(),
  checks: Type.Array(
    Type.Object({
      name: Type.String(),
      status: Status,
      latency_ms: Type.Number(),
      detail: Type.String(),
    }),
  ),
  unchecked: Type.Array(Type.Object({ what: Type.String(), why: Type.String() }), {
    description: 'what the gateway is not checking right now, and why',
  }),
});
export type Health = Static<typeof HealthSchema>;

/** GET /health answers liveness alone without a credential, the full payload with one. */
export const HealthOrLivenessSchema = Type.Object(
  {
    status: Status,
    version: Type.Optional(HealthSchema.properties.version),
    uptime_seconds: Type.Optional(HealthSchema.properties.uptime_seconds),
    checks: Type.Optional(HealthSchema.properties.checks),
    unchecked: Type.Optional(HealthSchema.properties.unchecked),
  },
  { description: 'liveness ({"status"}) without a credential; with one, the GET /api/health payload' },
);

/** GET /ready when every readiness check passes; otherwise a 503 problem names the failing ones. */
export const ReadySchema = Type.Object({
  status: Type.Literal('ready'),
  checks: Type.Array(
    Type.Object({
      name: Type.String({ description: 'database, migrations, detectors, change_bus (PostgreSQL), redis (when configured), draining' }),
      status: Status,
      detail: Type.String(),
    }),
  ),
});

export const MeSchema = Type.Object({
  kind: StringEnum(['operator', 'traffic', 'agent']),
  role: Nullable(TokenRole),
  name: Type.String(),
  owner: Nullable(Type.String()),
  token_id: Nullable(Type.String()),
  credential_id: Nullable(Type.String()),
  identity_id: Nullable(Type.String()),
  agent: Nullable(Type.String()),
  expires_at: NullableTimestamp,
});
export type Me = Static<typeof MeSchema>;

export const VersionSchema = Type.Object({
  gateway: Type.String(),
  schema_migration: Type.String(),
  config_hash: Type.String(),
  node: Type.String(),
  components: Type.Record(Type.String(), Type.String(), {
    description: 'further versions that take part in a decision (policy packs, detectors)',
  }),
});
export type Version = Static<typeof VersionSchema>;
