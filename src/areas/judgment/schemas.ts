// Wire shapes of GET and PUT /api/judgment/posture.
import { Type, type Static } from 'typebox';
import { Body, Nullable, StringEnum } from '../../infra/http/schemas.js';
import { BACKENDS, PII_EGRESS } from '../../engine/detectors/judgment/posture.js';

const TierString = Type.String({
  minLength: 1,
  maxLength: 500,
  description: "`<base-url>|<model>` or `<base-url>|<model>|<API_KEY_ENV>` of an OpenAI-compatible chat-completions endpoint; 'deterministic' is implicit",
});

export const PostureSchema = Type.Object({
  tiers: Type.Array(Type.String(), { description: 'tier strings in the order they are asked' }),
  pii_egress: StringEnum(PII_EGRESS),
  fail_closed: Type.Boolean(),
  backend: StringEnum(BACKENDS),
  source: StringEnum(['settings', 'operator'] as const, { description: 'settings: judgment_tiers, no posture stored yet' }),
  reason: Nullable(Type.String()),
  updated_by: Nullable(Type.String()),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  allow_egress: Type.Boolean({ description: 'the deployment setting: may payloads leave the machine' }),
  sends_off_machine: Type.Boolean({ description: 'a hosted tier would be asked' }),
  available: Type.Boolean({ description: 'injection.judgment and pii.judgment can run' }),
  unavailable_reason: Nullable(Type.String()),
  effective_tiers: Type.Array(
    Type.Object({
      name: Type.String(),
      kind: StringEnum(['local', 'hosted', 'deterministic'] as const),
      model: Nullable(Type.String()),
      used: Type.Boolean(),
      why_not: Nullable(Type.String()),
    }),
  ),
  stats: Type.Object({
    calls: Type.Integer(),
    answered: Type.Integer(),
    tier_failures: Type.Integer(),
    unanswered: Type.Integer(),
    last_error: Nullable(Type.String()),
  }),
});
export type PostureView = Static<typeof PostureSchema>;

export const PutPostureBody = Body({
  tiers: Type.Optional(Type.Array(TierString, { maxItems: 10 })),
  pii_egress: Type.Optional(StringEnum(PII_EGRESS)),
  fail_closed: Type.Optional(Type.Boolean()),
  backend: Type.Optional(StringEnum(BACKENDS)),
  reason: Type.Optional(Type.String({ maxLength: 500, description: 'required: why the posture changes' })),
  confirm_egress: Type.Optional(
    Type.Boolean({ description: 'needed when payloads start leaving the machine or personal-data handling loosens (block → redact → allow)' }),
  ),
});
export type PutPostureBody = Static<typeof PutPostureBody>;
