// Wire shapes of risk: POST /api/risk/assessments/{slug}, GET /api/risk/classify/{slug},
// GET /api/risk/register; and the shape of catalogue/risk-classification.yaml.
import { Type, type Static } from 'typebox';
import { Body, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

/** Strictest first: the order of the register and of a classification's class. */
export const EU_AI_ACT_CLASSES = ['prohibited', 'high', 'limited', 'minimal'] as const;
export type EuAiActClass = (typeof EU_AI_ACT_CLASSES)[number];
/** Lowest first. */
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

const ClassSchema = StringEnum(EU_AI_ACT_CLASSES, {
  description: 'prohibited: an Art. 5 practice; high: Art. 6 (Annex I product or Annex III area); limited: Art. 50 transparency duties only; minimal: none of these',
});
const RiskLevelSchema = StringEnum(RISK_LEVELS);

export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) });

export const AssessBody = Body({
  eu_ai_act_class: ClassSchema,
  inherent_risk: StringEnum(RISK_LEVELS, { description: 'before controls' }),
  residual_risk: StringEnum(RISK_LEVELS, { description: 'after controls; never above inherent_risk (422): raise inherent_risk instead' }),
  answers: Type.Optional(
    Type.Object({}, { additionalProperties: true, maxProperties: 200, description: "the assessor's answers; at most 64 KiB as JSON and 6 levels deep" }),
  ),
  review_months: Type.Optional(Type.Integer({ minimum: 1, maximum: 36, default: 12, description: 'next review = now + this many calendar months' })),
  sign_off: Type.Optional(Type.Boolean({ default: false, description: 'true: signed_off_by signs the assessment off now' })),
  signed_off_by: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: "the person signing off; required with sign_off true, refused without it; not 'system'" }),
  ),
});
export type AssessBody = Static<typeof AssessBody>;

export const AssessmentSchema = Type.Object({
  id: Type.String(),
  agent: Type.String(),
  eu_ai_act_class: ClassSchema,
  inherent_risk: RiskLevelSchema,
  residual_risk: RiskLevelSchema,
  answers: Type.Object({}, { additionalProperties: true }),
  review_months: Type.Integer(),
  signed_off: Type.Boolean(),
  signed_off_by: Nullable(Type.String()),
  signed_off_at: NullableTimestamp,
  assessed_by: Type.String(),
  assessed_at: Timestamp,
  next_review_at: Timestamp,
  previous_assessments: Type.Integer({ description: 'older assessments of this agent, kept as history' }),
});
export type Assessment = Static<typeof AssessmentSchema>;

export const ClassificationSchema = Type.Object({
  agent: Type.String(),
  class: ClassSchema,
  reasons: Type.Array(
    Type.Object({
      rule: Type.String({ description: 'a rule key of catalogue/risk-classification.yaml; default.minimal when none fired' }),
      ref: Type.String({ description: 'the article or Annex III point' }),
      class: ClassSchema,
      evidence: Type.Array(Type.String(), { description: 'what matched: purpose, data class, declared or observed tool, entity type' }),
    }),
  ),
  open_questions: Type.Array(Type.Object({ key: Type.String(), question: Type.String() })),
  inputs: Type.Object({
    purpose: Nullable(Type.String()),
    data_classes: Type.Array(Type.String()),
    declared_tools: Type.Array(Type.String()),
    risk_tier: Nullable(Type.String()),
    observed: Type.Object({
      window_days: Type.Integer(),
      decisions: Type.Integer(),
      tools_used: Type.Array(Type.String()),
      entity_types: Type.Array(Type.String()),
      blocked_calls: Type.Integer(),
    }),
  }),
  rules_version: Type.Integer({ description: 'version of catalogue/risk-classification.yaml' }),
});
export type Classification = Static<typeof ClassificationSchema>;

export const RegisterEntrySchema = Type.Object({
  agent: Type.String(),
  name: Type.String(),
  owner_email: Nullable(Type.String()),
  owner_team: Nullable(Type.String()),
  class: ClassSchema,
  provisional: Type.Boolean({ description: 'true: no assessment yet, the class is the classification of GET /api/risk/classify' }),
  inherent_risk: Nullable(RiskLevelSchema),
  residual_risk: Nullable(RiskLevelSchema),
  assessment_id: Nullable(Type.String()),
  assessed: Type.Boolean(),
  assessed_at: NullableTimestamp,
  signed_off: Type.Boolean(),
  signed_off_by: Nullable(Type.String()),
  next_review_at: NullableTimestamp,
  overdue: Type.Boolean({ description: 'the latest assessment is past its next review' }),
  open_critical_findings: Type.Integer(),
});
export type RegisterEntry = Static<typeof RegisterEntrySchema>;

export const RegisterSchema = Type.Object({
  items: Type.Array(RegisterEntrySchema, { description: 'overdue first, then by class (prohibited, high, limited, minimal), then residual risk highest first, then slug' }),
  counts: Type.Object({
    agents: Type.Integer(),
    assessed: Type.Integer(),
    signed_off: Type.Integer(),
    overdue: Type.Integer(),
    provisional: Type.Integer(),
  }),
});
export type Register = Static<typeof RegisterSchema>;

// catalogue/risk-classification.yaml
const Phrases = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 });
export const ClassificationRulesFile = Type.Object(
  {
    version: Type.Integer({ minimum: 1 }),
    observed_days: Type.Integer({ minimum: 1, maximum: 3650 }),
    rules: Type.Array(
      Type.Object(
        {
          key: Type.String({ minLength: 1 }),
          class: StringEnum(EU_AI_ACT_CLASSES),
          ref: Type.String({ minLength: 1 }),
          summary: Type.String({ minLength: 1 }),
          match: Type.Object(
            { purpose: Type.Optional(Phrases), data_classes: Type.Optional(Phrases), tools: Type.Optional(Phrases), entities: Type.Optional(Phrases) },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
    ),
    open_questions: Type.Array(
      Type.Object(
        { key: Type.String({ minLength: 1 }), when: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }), question: Type.String({ minLength: 1 }) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ClassificationRules = Static<typeof ClassificationRulesFile>;
