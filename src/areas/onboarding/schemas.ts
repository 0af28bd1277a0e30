// Wire shape of GET /api/onboarding.
import { Type, type Static } from 'typebox';
import { Nullable, NullableTimestamp, StringEnum } from '../../infra/http/schemas.js';

export const ONBOARDING_KEYS = [
  'admin_token_rotated',
  'traffic_token_minted',
  'agent_registered',
  'decision_recorded',
  'baseline_enforced',
  'grant_approved',
  'audit_checkpoint_signed',
  'evidence_package_built',
  'controls_computed',
  'detectors_available',
] as const;
export type OnboardingKey = (typeof ONBOARDING_KEYS)[number];

export const OnboardingItemSchema = Type.Object({
  key: StringEnum(ONBOARDING_KEYS),
  title: Type.String(),
  done: Type.Boolean(),
  state: StringEnum(['done', 'todo', 'unknown'] as const, { description: 'unknown: the gateway cannot tell (see reason)' }),
  done_at: NullableTimestamp,
  reason: Nullable(Type.String({ description: 'why the item is not done, or cannot be told' })),
  how: Type.String({ description: 'the CLI command or route that completes it' }),
});
export type OnboardingItem = Static<typeof OnboardingItemSchema>;

export const OnboardingSchema = Type.Object({
  items: Type.Array(OnboardingItemSchema, { description: 'in the order an install usually goes' }),
  done_count: Type.Integer(),
  total: Type.Integer(),
  next: Nullable(OnboardingItemSchema),
});
export type Onboarding = Static<typeof OnboardingSchema>;
