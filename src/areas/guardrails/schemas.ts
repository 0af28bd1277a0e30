// Wire shapes of the guardrail feedback loop (spec 02 "Detectors and guardrail feedback"): labels on
// recorded decisions, suppressions made from them, and the precision, latency and recommendation
// reports computed from labels and recorded traffic.
import { Type, type Static } from 'typebox';
import { Body, ListOf, ListQuery, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const FEEDBACK_LABELS = ['false_positive', 'true_positive', 'false_negative'] as const;
export type FeedbackLabel = (typeof FEEDBACK_LABELS)[number];
export const FEEDBACK_STATUSES = ['open', 'suppressed'] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];
export const SUPPRESSION_SCOPES = ['agent', 'global'] as const;
export type SuppressionScope = (typeof SUPPRESSION_SCOPES)[number];

/** Detector keys are `family.name`; entity types `FAMILY.TYPE` (STYLE.md "Naming"). */
const DETECTOR_KEY = Type.String({ minLength: 3, maxLength: 100, pattern: '^[a-z0-9_]+(\\.[a-z0-9_]+)+$', description: 'family.name' });
const ENTITY_TYPE = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Z0-9_]+(\\.[A-Z0-9_]+)*$', description: 'FAMILY.TYPE, e.g. PII.EMAIL' });
/** PostgreSQL text cannot hold NUL: refused at the edge (400) rather than failing in the database. */
const NO_NUL = '^[^\\u0000]*$';
/** Agents in traffic may be unregistered, so this is any short name rather than a registry slug. */
const AGENT = Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL });
/** Ids this gateway issues: a prefix, an underscore and a ULID; anything else cannot match. */
const ID = (description: string) => Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$', description });

export const FeedbackSchema = Type.Object({
  id: Type.String({ description: 'gfb_ followed by an identifier' }),
  decision_id: Type.String(),
  label: StringEnum(FEEDBACK_LABELS),
  detector_key: Nullable(Type.String()),
  entity_type: Nullable(Type.String()),
  note: Nullable(Type.String()),
  agent: Type.String({ description: 'copied from the decision' }),
  surface: Type.String({ description: 'copied from the decision' }),
  content_sha256: Type.String({ description: 'copied from the decision: what an exact suppression matches' }),
  status: StringEnum(FEEDBACK_STATUSES, { description: 'suppressed once an active suppression was made from it' }),
  created_by: Type.String(),
  created_at: Timestamp,
});
export type Feedback = Static<typeof FeedbackSchema>;

export const CreateFeedbackBody = Body({
  decision_id: ID('the decision_id a guard check answered'),
  label: StringEnum(FEEDBACK_LABELS),
  detector_key: Type.Optional(DETECTOR_KEY),
  entity_type: Type.Optional(ENTITY_TYPE),
  note: Type.Optional(Type.String({ minLength: 1, maxLength: 5000, pattern: NO_NUL })),
});
export type CreateFeedbackBody = Static<typeof CreateFeedbackBody>;

export const ListFeedbackQuery = Type.Object({
  ...ListQuery.properties,
  label: Type.Optional(StringEnum(FEEDBACK_LABELS)),
  status: Type.Optional(StringEnum(FEEDBACK_STATUSES)),
});
export type ListFeedbackQuery = Static<typeof ListFeedbackQuery>;
export const FeedbackList = ListOf(FeedbackSchema);

export const SuppressionSchema = Type.Object({
  id: Type.String({ description: 'gsp_ followed by an identifier' }),
  feedback_id: Type.String(),
  scope: StringEnum(SUPPRESSION_SCOPES),
  agent: Nullable(Type.String({ description: 'the agent it applies to; null for global' })),
  detector_key: Nullable(Type.String({ description: 'null: any detector that found the entity type' })),
  entity_type: Nullable(Type.String()),
  content_sha256: Nullable(Type.String({ description: 'set when exact: only this content is suppressed' })),
  exact: Type.Boolean(),
  reason: Nullable(Type.String()),
  expires_at: NullableTimestamp,
  active: Type.Boolean({ description: 'false once expired or deleted' }),
  created_by: Type.String(),
  created_at: Timestamp,
  deleted_at: NullableTimestamp,
});
export type Suppression = Static<typeof SuppressionSchema>;

export const CreateSuppressionBody = Body({
  feedback_id: ID('a false_positive label'),
  scope: Type.Optional(StringEnum(SUPPRESSION_SCOPES, { description: "default agent: the feedback's agent" })),
  ttl_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'absent: until deleted' })),
  exact: Type.Optional(Type.Boolean({ description: 'true: only the same content (by digest); default false' })),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, pattern: NO_NUL })),
});
export type CreateSuppressionBody = Static<typeof CreateSuppressionBody>;

export const ListSuppressionsQuery = Type.Object({
  ...ListQuery.properties,
  agent: Type.Optional(Type.String({ ...AGENT, description: "suppressions that apply to this agent: its own and the global ones" })),
});
export type ListSuppressionsQuery = Static<typeof ListSuppressionsQuery>;
export const SuppressionList = ListOf(SuppressionSchema);
export const SuppressionIdParams = Type.Object({ suppression_id: ID('gsp_ followed by an identifier') });

/** Counts of labels and the precision they give; precision is null without TP or FP labels. */
const Precision = {
  tp: Type.Integer(),
  fp: Type.Integer(),
  fn: Type.Integer(),
  precision: Nullable(Type.Number({ description: 'tp / (tp + fp), rounded to 4 places' })),
};
export const PrecisionQuery = Type.Object({
  agent: Type.Optional(AGENT),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30 })),
});
export type PrecisionQuery = Static<typeof PrecisionQuery>;
export const PrecisionReport = Type.Object({
  days: Type.Integer(),
  agent: Nullable(Type.String()),
  from: Timestamp,
  to: Timestamp,
  total: Type.Object(Precision),
  detectors: Type.Array(Type.Object({ detector_key: Nullable(Type.String({ description: 'null: labels that name no detector' })), ...Precision })),
  entities: Type.Array(Type.Object({ detector_key: Nullable(Type.String()), entity_type: Nullable(Type.String()), ...Precision })),
  agents: Type.Array(Type.Object({ agent: Type.String(), ...Precision })),
});
export type PrecisionReport = Static<typeof PrecisionReport>;

const Latency = {
  runs: Type.Integer({ description: 'detector runs read (answers from the detection cache are not runs)' }),
  p50_ms: Nullable(Type.Number()),
  p95_ms: Nullable(Type.Number()),
  max_ms: Nullable(Type.Number()),
  degraded: Type.Integer({ description: 'runs whose status was not ok' }),
  degraded_rate: Type.Number({ description: 'degraded / runs' }),
  statuses: Type.Record(Type.String(), Type.Integer(), { description: 'runs by status: ok, timeout, error, skipped_budget' }),
};
export const LatencyQuery = Type.Object({
  agent: Type.Optional(AGENT),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 7 })),
});
export type LatencyQuery = Static<typeof LatencyQuery>;
export const LatencyReport = Type.Object({
  days: Type.Integer(),
  agent: Nullable(Type.String()),
  from: Timestamp,
  to: Timestamp,
  decisions: Type.Integer({ description: 'decisions read' }),
  sampled: Type.Boolean({ description: 'true when the window held more decisions than were read (the newest are read)' }),
  detectors: Type.Array(Type.Object({ detector_key: Type.String(), ...Latency })),
  agents: Type.Array(Type.Object({ agent: Type.String(), decisions: Type.Integer(), degraded_decisions: Type.Integer(), ...Latency })),
});
export type LatencyReport = Static<typeof LatencyReport>;

export const RECOMMENDATION_KINDS = ['raise_min_score', 'narrow_rule'] as const;
export const RecommendationsQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30 })),
});
export type RecommendationsQuery = Static<typeof RecommendationsQuery>;
export const RecommendationSchema = Type.Object({
  kind: StringEnum(RECOMMENDATION_KINDS),
  detector_key: Nullable(Type.String()),
  entity_type: Nullable(Type.String()),
  rule_id: Nullable(Type.String()),
  agent: Nullable(Type.String()),
  summary: Type.String({ description: 'one sentence: what to change and why' }),
  evidence: Type.Record(Type.String(), Type.Unknown(), { description: 'the counts (and scores) behind it' }),
  change: Type.Record(Type.String(), Type.Unknown(), { description: 'the exact change to make' }),
});
export type Recommendation = Static<typeof RecommendationSchema>;
export const RecommendationList = Type.Object({
  days: Type.Integer(),
  from: Timestamp,
  to: Timestamp,
  thresholds: Type.Object({
    min_labels: Type.Integer({ description: 'TP + FP labels a detector/entity needs before a threshold is recommended' }),
    precision_below: Type.Number(),
    min_rule_false_positives: Type.Integer(),
    agent_share: Type.Number({ description: 'share of a rule\u2019s false positives one agent must hold to narrow it' }),
  }),
  items: Type.Array(RecommendationSchema),
});
export type RecommendationList = Static<typeof RecommendationList>;
