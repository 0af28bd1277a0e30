// Wire shapes of the platform routes: /, /health, /api/health, /api/me, /api/version.
import { Type, type Static } from 'typebox';
import { NullableTimestamp } from '../http/schemas.js';
import { TokenRole } from '../tokens/schemas.js';

export const RootSchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  version: Type.String(),
  links: Type.Record(Type.String(), Type.String()),
});

export const LivenessSchema = Type.Object({ status: Type.Union([Type.Literal('ok'), Type.Literal('down')]) });

export const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('down')]),
  version: Type.String(),
  uptime_seconds: Type.Number(),
  checks: Type.Array(
    Type.Object({
      name: Type.String(),
      status: Type.Union([Type.Literal('ok'), Type.Literal('down')]),
      latency_ms: Type.Number(),
      detail: Type.String(),
    }),
  ),
  unchecked: Type.Array(Type.Object({ what: Type.String(), why: Type.String() }), {
    description: 'what the gateway is not checking right now, and why',
  }),
});
export type Health = Static<typeof HealthSchema>;

export const MeSchema = Type.Object({
  kind: Type.Union([Type.Literal('operator'), Type.Literal('traffic'), Type.Literal('agent')]),
  role: Type.Union([TokenRole, Type.Null()]),
  name: Type.String(),
  owner: Type.Union([Type.String(), Type.Null()]),
  token_id: Type.Union([Type.String(), Type.Null()]),
  credential_id: Type.Union([Type.String(), Type.Null()]),
  identity_id: Type.Union([Type.String(), Type.Null()]),
  agent: Type.Union([Type.String(), Type.Null()]),
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
