// Wire shapes of red-team campaigns: POST/GET /api/redteam/campaigns (GET /api/redteam/probes
// answers the library view, whose shape lives with the library in library.ts).
import { Type, type Static } from 'typebox';
import { Body, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const RUNNERS = ['pipeline', 'target'] as const;
export type Runner = (typeof RUNNERS)[number];
export const OUTCOMES = ['through', 'blocked', 'error'] as const;
export type Outcome = (typeof OUTCOMES)[number];
const VerdictSchema = StringEnum(['allow', 'escalate', 'block'] as const);

/** Hard ceiling on probe calls per campaign (spec: `budget`); the default fits the whole library once plus adaptive retries. */
export const MAX_BUDGET = 2000;
export const DEFAULT_BUDGET = 300;

export const CampaignBody = Body({
  agent: Type.String({ minLength: 1, maxLength: 200, description: 'the agent probed; an unregistered name is probed with what applies to unregistered traffic' }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'default `<agent> <date>`' })),
  probes: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 120 }), {
      maxItems: 500,
      description: 'probe ids and class names (GET /api/redteam/probes); absent or empty: the whole library; an unknown entry is refused (422)',
    }),
  ),
  runner: Type.Optional(StringEnum(RUNNERS, { default: 'pipeline', description: "pipeline: the gateway's own decision pipeline as the agent; target: a probe target (target_id)" })),
  target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'runner target: the probe target (GET /api/probes/targets)' })),
  adaptive: Type.Optional(Type.Boolean({ default: false, description: 'mutate attack probes that were blocked and retry them within the budget' })),
  budget: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_BUDGET, default: DEFAULT_BUDGET, description: 'the most probe calls (original, mutated and deployment probes; one call per text sent)' }),
  ),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 1, description: 'mutations are deterministic per seed: the same seed gives the same texts' })),
  include_deployment_probes: Type.Optional(
    Type.Boolean({ default: false, description: "add probes derived from the agent's grants, constraint hosts and declared data classes" }),
  ),
});
export type CampaignBody = Static<typeof CampaignBody>;

export const CampaignQuery = Type.Object({
  agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});
export type CampaignQuery = Static<typeof CampaignQuery>;

const Rate = Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'a share in [0, 1]; null when nothing was measured' }));

export const ClassSummarySchema = Type.Object({
  class: Type.String(),
  kind: StringEnum(['attack', 'benign'] as const),
  probes: Type.Integer({ description: 'original probes of the class sent (mutations not counted)' }),
  through_as_configured: Type.Integer(),
  through_if_enforced: Type.Integer(),
  attack_success_rate_as_configured: Rate,
  attack_success_rate_if_enforced: Rate,
  through_after_mutation: Type.Optional(Type.Integer({ description: 'probes blocked as written that got through once mutated (adaptive)' })),
  errors: Type.Optional(Type.Integer({ description: 'probes that could not be evaluated; not in the rates' })),
});

export const ThroughEntrySchema = Type.Object({
  probe_id: Type.String(),
  class: Type.String(),
  mutation: Nullable(Type.String()),
  text: Type.String(),
  verdict: Nullable(Type.String()),
  rules: Type.Array(Type.String()),
  reason: Type.String(),
});

export const SummarySchema = Type.Object({
  classes: Type.Array(ClassSummarySchema),
  benign: Type.Object({
    probes: Type.Integer(),
    blocked_as_configured: Type.Integer(),
    blocked_if_enforced: Type.Integer(),
    over_block_rate_as_configured: Rate,
    over_block_rate_if_enforced: Rate,
  }),
  attack_success_rate_as_configured: Rate,
  attack_success_rate_if_enforced: Rate,
  mutation_classes_through: Type.Array(Type.Object({ mutation: Type.String(), through: Type.Integer(), tried: Type.Integer() })),
  through: Type.Array(ThroughEntrySchema, { description: 'what got through (as configured), at most 100' }),
  probes_selected: Type.Optional(Type.Integer({ description: 'original and deployment probes chosen; more than were sent when the budget ran out' })),
  probes_sent: Type.Optional(Type.Integer()),
  probes_digest: Type.Optional(Type.String({ description: 'sha256 over the library and the probes sent as written: equal digests and seeds compare exactly' })),
});
export type Summary = Static<typeof SummarySchema>;

export const ComparisonSchema = Type.Object({
  previous_campaign_id: Type.String(),
  asr_before: Rate,
  asr_after: Rate,
  previous_asr_if_enforced: Type.Optional(Rate),
  over_block_before: Rate,
  over_block_after: Rate,
  worse_classes: Type.Array(Type.String(), { description: 'classes whose as-configured attack success rate went up' }),
  better_classes: Type.Optional(Type.Array(Type.String())),
  same_probes: Type.Boolean({ description: 'same library, probes and seed: the figures compare exactly' }),
  regression: Type.Boolean({ description: 'as-configured success up by 0.05 or more, or a class from 0 to above 0' }),
  note: Type.Optional(Type.String()),
});
export type Comparison = Static<typeof ComparisonSchema>;

export const CampaignSchema = Type.Object({
  id: Type.String(),
  agent: Type.String(),
  name: Type.String(),
  runner: StringEnum(RUNNERS),
  target_id: Nullable(Type.String()),
  adaptive: Type.Boolean(),
  budget: Type.Integer(),
  seed: Type.Integer(),
  include_deployment_probes: Type.Boolean(),
  probes: Type.Array(Type.String()),
  status: StringEnum(['completed', 'failed'] as const),
  error: Nullable(Type.String()),
  calls_used: Type.Integer(),
  summary: SummarySchema,
  comparison: Nullable(ComparisonSchema),
  previous_campaign_id: Nullable(Type.String()),
  library_version: Type.String(),
  created_by: Type.String(),
  created_at: Timestamp,
  finished_at: NullableTimestamp,
});
export type Campaign = Static<typeof CampaignSchema>;

export const ResultSchema = Type.Object({
  id: Type.String(),
  probe_id: Type.String(),
  class: Type.String(),
  kind: StringEnum(['attack', 'benign'] as const),
  mutation: Nullable(Type.String()),
  surface: Type.String(),
  text: Type.String(),
  outcome: StringEnum(OUTCOMES),
  as_configured: Nullable(VerdictSchema),
  if_enforced: Nullable(VerdictSchema),
  decision_id: Nullable(Type.String()),
  rules: Type.Array(Type.String()),
  detail: Type.Object({}, { additionalProperties: true }),
  at: Timestamp,
});
export type Result = Static<typeof ResultSchema>;

/** At most this many results of each list in the answer of POST (the rows are all stored). */
export const MAX_RESULTS_ANSWERED = 500;

export const CampaignCreatedSchema = Type.Object({
  ...CampaignSchema.properties,
  results_through: Type.Array(ResultSchema, { description: 'attack probes that got through as configured (original or mutated), at most 500' }),
  results_over_blocked: Type.Array(ResultSchema, { description: 'benign probes that were blocked as configured, at most 500' }),
});
export type CampaignCreated = Static<typeof CampaignCreatedSchema>;

export const CampaignListSchema = Type.Object({ items: Type.Array(CampaignSchema) });
