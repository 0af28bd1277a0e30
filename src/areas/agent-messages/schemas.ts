// Wire shapes of agent signing keys (POST|GET /api/agents/{slug}/signing-key) and the agent
// message log (GET /api/agent-messages).
import { Type, type Static } from 'typebox';
import { Body, ListOf, ListQuery, Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const SIGNATURE_STATUSES = ['valid', 'unsigned', 'no_key', 'bad_signature', 'stale', 'replayed', 'incomplete'] as const;
export type SignatureStatus = (typeof SIGNATURE_STATUSES)[number];

export const AgentSlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
export type AgentSlugParams = Static<typeof AgentSlugParams>;

export const CreateSigningKeyBody = Body({
  overlap_hours: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 720,
      description: 'hours the replaced key keeps verifying after a rotation; default 24',
    }),
  ),
});
export type CreateSigningKeyBody = Static<typeof CreateSigningKeyBody>;

export const CreatedSigningKeySchema = Type.Object({
  id: Type.String(),
  agent: Type.String({ description: 'slug of the agent the key signs for' }),
  signing_key: Type.String({ description: 'the raw HMAC key; shown this once and never again' }),
  key_hint: Type.String({ description: 'the first characters of the key, never the whole' }),
  created_at: Timestamp,
  rotated_key: Type.Optional(
    Type.Object({
      id: Type.String(),
      valid_until: Timestamp,
    }),
  ),
});
export type CreatedSigningKey = Static<typeof CreatedSigningKeySchema>;

export const SigningKeyStatusSchema = Type.Object({
  agent: Type.String(),
  configured: Type.Boolean({ description: 'whether the agent has a current signing key' }),
  current: Nullable(
    Type.Object({
      id: Type.String(),
      key_hint: Type.String(),
      created_at: Timestamp,
    }),
  ),
  previous: Type.Array(
    Type.Object({
      id: Type.String(),
      key_hint: Type.String(),
      valid_until: Timestamp,
    }),
    { description: 'replaced keys still inside their overlap (they still verify)' },
  ),
});
export type SigningKeyStatus = Static<typeof SigningKeyStatusSchema>;

export const AgentMessageSchema = Type.Object({
  id: Type.String(),
  at: Timestamp,
  sender: Type.String(),
  recipient: Nullable(Type.String()),
  nonce: Nullable(Type.String()),
  timestamp: Nullable(Type.Number({ description: 'seconds since the epoch, as the sender signed it' })),
  signature_status: StringEnum(SIGNATURE_STATUSES),
  verdict: Type.String(),
  effective_verdict: Type.String(),
  decision_id: Type.String(),
  content_sha256: Type.String(),
  session_id: Nullable(Type.String()),
});
export type AgentMessage = Static<typeof AgentMessageSchema>;

export const ListAgentMessagesQuery = Type.Object({
  sender: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  ...ListQuery.properties,
});
export type ListAgentMessagesQuery = Static<typeof ListAgentMessagesQuery>;
export const AgentMessageList = ListOf(AgentMessageSchema);
