// Wire shapes of business rules (spec 02 "Custom and business rules"): plain-language rules about
// tool calls ("refunds above 500 dollars need a manager's approval") compiled without a model into
// a structured definition, saved, and enforced by the `business-rules` pack.
import { Type, type Static } from 'typebox';
import { Body, ListOf, ListQuery, Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';
import { ARGUMENT_OPERATORS, MODES } from '../../engine/policy/schema.js';

export const BUSINESS_EFFECTS = ['escalate', 'block'] as const;
export const BusinessRuleKey = Type.String({ minLength: 1, maxLength: 80, pattern: '^[a-z][a-z0-9_]*$' });

const Scalar = Type.Union([Type.Number(), Type.String({ maxLength: 500 }), Type.Boolean()]);

/** One condition on the call's arguments, with the unit the number was written in (kept for people). */
export const BusinessConditionSchema = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_$-]+(\\.[A-Za-z0-9_$-]+)*$', description: 'dot path into the tool arguments' }),
    op: StringEnum(ARGUMENT_OPERATORS),
    value: Type.Optional(Type.Union([Scalar, Type.Array(Scalar, { maxItems: 100 })])),
    unit: Type.Optional(Nullable(Type.String({ maxLength: 20, description: 'USD, EUR, GBP, JPY, percent, ... (not compared)' }))),
  },
  { additionalProperties: false },
);
export type BusinessCondition = Static<typeof BusinessConditionSchema>;

export const BusinessDefinitionSchema = Type.Object(
  {
    key: Type.Optional(BusinessRuleKey),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    text: Type.Optional(Type.String({ maxLength: 2000, description: 'the plain-language rule it came from' })),
    action: Type.Optional(Type.String({ maxLength: 100, description: 'the action noun it is about (refund, transfer, ...)' })),
    tools: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 20, description: 'tool keys or patterns, `*` for any run of characters' }),
    conditions: Type.Optional(Type.Array(BusinessConditionSchema, { maxItems: 10, description: 'all must hold; none: every call of the tools' })),
    effect: StringEnum(BUSINESS_EFFECTS),
    approver: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'the role that approves (named in the message)' }))),
    message: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    mode: Type.Optional(StringEnum(MODES, { description: 'default observe for a new rule' })),
  },
  { additionalProperties: false },
);
export type BusinessDefinition = Static<typeof BusinessDefinitionSchema>;

export const CompileBody = Body({ text: Type.String({ minLength: 1, maxLength: 2000 }) });
export type CompileBody = Static<typeof CompileBody>;

const PolicyRulePreview = Type.Object({
  id: Type.String(),
  when: Type.Unknown(),
  effect: Type.String(),
  message: Type.String(),
  mode: Type.String(),
});

export const CompileResultSchema = Type.Object({
  definition: BusinessDefinitionSchema,
  understood: Type.Boolean({ description: 'an action, and a consequence or condition, were found' }),
  unparsed: Type.Array(Type.String(), { description: 'words and phrases that were ignored' }),
  warnings: Type.Array(Type.String()),
  rule: PolicyRulePreview,
});
export type CompileResult = Static<typeof CompileResultSchema>;

export const SaveBusinessRuleBody = Body({
  definition: BusinessDefinitionSchema,
  agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the agent slug it applies to; absent: every agent' })),
});
export type SaveBusinessRuleBody = Static<typeof SaveBusinessRuleBody>;

export const SetBusinessModeBody = Body({ mode: StringEnum(MODES) });
export type SetBusinessModeBody = Static<typeof SetBusinessModeBody>;

export const BusinessRuleSchema = Type.Object({
  key: Type.String(),
  definition: BusinessDefinitionSchema,
  agent: Nullable(Type.String()),
  mode: StringEnum(MODES),
  rule_id: Type.String({ description: 'the policy rule that enforces it (pack business-rules)' }),
  rule: PolicyRulePreview,
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type BusinessRule = Static<typeof BusinessRuleSchema>;

export const BusinessRuleList = ListOf(BusinessRuleSchema);
export const ListBusinessRulesQuery = ListQuery;
export type ListBusinessRulesQuery = Static<typeof ListBusinessRulesQuery>;
export const BusinessRuleKeyParams = Type.Object({ key: BusinessRuleKey });
