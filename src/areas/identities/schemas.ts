// Wire shapes of identities and their credentials and capabilities (spec 02 "Identities").
import { Type, type Static } from 'typebox';
import { CapabilitySchema } from '../agents/schemas.js';
import { CredentialSchema } from '../credentials/schemas.js';
import { Body, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const IdentitySchema = Type.Object({
  id: Type.String(),
  agent: Type.String(),
  owner: Nullable(Type.String()),
  status: StringEnum(['active', 'orphaned', 'stale'], {
    description: 'orphaned: no owner, or its agent is rejected; stale: no credential used for 30 days',
  }),
  created_at: Timestamp,
  last_used_at: NullableTimestamp,
  credentials: Type.Array(CredentialSchema),
  capabilities: Type.Array(CapabilitySchema),
});
export type Identity = Static<typeof IdentitySchema>;
export const IdentityList = Type.Object({ items: Type.Array(IdentitySchema) });
export const IdentityIdParams = Type.Object({ identity_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const MintCredentialQuery = Type.Object({
  ttl_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'days until the credential expires; default: never' })),
});
export const RotateQuery = Type.Object({
  overlap_hours: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 720, default: 24, description: 'hours the old credentials keep working beside the new one' }),
  ),
  ttl_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
});

export const MintedCredentialSchema = Type.Object({
  ...CredentialSchema.properties,
  credential: Type.String({ description: 'the raw credential; shown this once and never again' }),
});
export const RotatedCredentialSchema = Type.Object({
  ...MintedCredentialSchema.properties,
  rotated: Type.Array(Type.Object({ id: Type.String(), expires_at: Timestamp }), {
    description: 'the credentials the new one replaces, with the end of their overlap',
  }),
});

export const CheckBody = Body({
  tool_key: Type.String({ minLength: 1, maxLength: 200 }),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'read, write, delete, execute, admin; inferred from the arguments when absent' })),
  arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  argument_taint: Type.Optional(
    Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 100 }), {
      description: 'argument name → origin label (user, retrieved, tool_result, …) or taint level (trusted, untrusted, hostile)',
    }),
  ),
});
export type CheckBody = Static<typeof CheckBody>;

export const CheckResultSchema = Type.Object({
  identity_id: Type.String(),
  agent: Type.String(),
  tool_key: Type.String(),
  allowed: Type.Boolean({ description: 'true when the call may run without a person' }),
  outcome: StringEnum(['allow', 'approval_required', 'deny']),
  capability: Type.Array(Type.String()),
  grant_id: Nullable(Type.String()),
  taint: StringEnum(['trusted', 'untrusted', 'hostile']),
  actions: Type.Array(Type.String()),
  reasons: Type.Array(Type.String()),
});
