// Wire shapes of custom rules (spec 02 "Custom and business rules"): operator-written keyword,
// regex and sequence rules that the `custom.rules` detector runs and the `custom-rules` pack
// enforces.
import { Type, type Static } from 'typebox';
import { SURFACES } from '../../engine/detectors/types.js';
import { Body, ListOf, ListQuery, Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';
import { EFFECTS } from '../../engine/policy/schema.js';
import { MAX_PATTERN_LENGTH } from './safe-regex.js';

export const RULE_KINDS = ['keyword', 'regex', 'sequence'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];
export const POLARITIES = ['deny', 'require'] as const;
export type Polarity = (typeof POLARITIES)[number];
export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;

/** Keys become rule ids (`custom.<key_snake>`) and entity types (`CUSTOM.<KEY>`). */
export const CustomRuleKey = Type.String({ minLength: 1, maxLength: 80, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' });

const Word = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

/** One step of a sequence: any of some words or phrases, or one pattern. */
export const SequenceStepSchema = Type.Union([
  Type.Object({ any: Type.Array(Word, { minItems: 1, maxItems: 100, description: 'words or phrases, matched as whole words' }) }, { additionalProperties: false }),
  Type.Object({ regex: Type.String({ minLength: 1, maxLength: MAX_PATTERN_LENGTH, description: 'a linear-time (RE2) pattern' }) }, { additionalProperties: false }),
]);
export type SequenceStep = Static<typeof SequenceStepSchema>;

export const DEFAULT_WITHIN = 200;

export const SequenceSpecSchema = Type.Object(
  {
    steps: Type.Array(SequenceStepSchema, { minItems: 2, maxItems: 10, description: 'steps that must occur in this order' }),
    within: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100_000,
        description: `most characters allowed between the end of one step and the start of the next (default ${DEFAULT_WITHIN})`,
      }),
    ),
  },
  { additionalProperties: false, description: 'SequenceSpec: ordered steps, each within `within` characters of the one before' },
);
export type SequenceSpec = Static<typeof SequenceSpecSchema>;

/** A text the rule should fire on, or an object saying whether it should. */
export const ExampleSchema = Type.Union([
  Type.String({ minLength: 1, maxLength: 10_000 }),
  Type.Object({ text: Type.String({ minLength: 1, maxLength: 10_000 }), fires: Type.Boolean() }, { additionalProperties: false }),
]);
export type Example = Static<typeof ExampleSchema>;

export const OnBlockSchema = Type.Union([
  Type.String({ minLength: 1, maxLength: 2000, description: 'the message the caller is shown when this rule blocks' }),
  Type.Object(
    { message: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'the message the caller is shown when this rule blocks' })) },
    { additionalProperties: true, maxProperties: 20, description: 'settings kept as given; `message` is shown to the caller when this rule blocks' },
  ),
]);
export type OnBlock = Static<typeof OnBlockSchema>;

const ruleFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  kind: Type.Optional(StringEnum(RULE_KINDS, { description: 'keyword (default), regex or sequence' })),
  polarity: Type.Optional(StringEnum(POLARITIES, { description: 'deny (default): fires when the text matches; require: fires when it does not' })),
  entries: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: MAX_PATTERN_LENGTH, pattern: '\\S' }), { maxItems: 500, description: 'keyword: words or phrases; regex: patterns' })),
  examples: Type.Optional(Type.Array(ExampleSchema, { maxItems: 50, description: 'texts checked when the rule is saved; a string must make the rule fire' })),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  surfaces: Type.Optional(Type.Array(StringEnum(SURFACES), { maxItems: SURFACES.length, description: 'surfaces the rule checks; empty or absent: all' })),
  agents: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200, description: 'agent slugs the rule applies to; empty or absent: all' })),
  case_sensitive: Type.Optional(Type.Boolean({ description: 'default false for keyword and sequence rules, true for regex rules' })),
  sequence: Type.Optional(SequenceSpecSchema),
  enabled: Type.Optional(Type.Boolean()),
  effect: Type.Optional(StringEnum(EFFECTS, { description: 'default block' })),
  message: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  on_block: Type.Optional(OnBlockSchema),
  severity: Type.Optional(StringEnum(SEVERITIES)),
};

export const UpsertCustomRuleBody = Body({ key: CustomRuleKey, ...ruleFields });
export type UpsertCustomRuleBody = Static<typeof UpsertCustomRuleBody>;

/** The rule of a try: the same fields, key and name optional (nothing is saved). */
export const TryRuleSchema = Type.Object(
  { key: Type.Optional(CustomRuleKey), ...ruleFields, name: Type.Optional(ruleFields.name) },
  { additionalProperties: false },
);
export type TryRule = Static<typeof TryRuleSchema>;

export const TryCustomRuleBody = Body({
  rule: TryRuleSchema,
  text: Type.String({ maxLength: 1_000_000 }),
  surface: Type.Optional(StringEnum(SURFACES)),
});
export type TryCustomRuleBody = Static<typeof TryCustomRuleBody>;

export const CustomRuleSchema = Type.Object({
  key: Type.String(),
  name: Type.String(),
  kind: StringEnum(RULE_KINDS),
  polarity: StringEnum(POLARITIES),
  entries: Type.Array(Type.String()),
  examples: Type.Array(Type.Unknown()),
  description: Nullable(Type.String()),
  surfaces: Type.Array(Type.String(), { description: 'empty: all surfaces' }),
  agents: Type.Array(Type.String(), { description: 'empty: all agents' }),
  case_sensitive: Type.Boolean(),
  sequence: Type.Unknown({ description: 'the SequenceSpec of a sequence rule; null otherwise' }),
  enabled: Type.Boolean(),
  effect: StringEnum(EFFECTS),
  message: Nullable(Type.String()),
  on_block: Type.Unknown({ description: 'as given; null when not set' }),
  severity: Nullable(StringEnum(SEVERITIES)),
  rule_id: Type.String({ description: 'the policy rule that enforces it (pack custom-rules)' }),
  entity: Type.String({ description: 'the entity type its detections carry' }),
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type CustomRule = Static<typeof CustomRuleSchema>;

export const SavedCustomRuleSchema = Type.Object({
  ...CustomRuleSchema.properties,
  warnings: Type.Array(Type.String(), { description: 'things worth a second look, the rule was saved' }),
});

export const CustomRuleList = ListOf(CustomRuleSchema);
export const ListCustomRulesQuery = ListQuery;
export type ListCustomRulesQuery = Static<typeof ListCustomRulesQuery>;
export const CustomRuleKeyParams = Type.Object({ key: CustomRuleKey });

const SpanSchema = Type.Object({
  start: Type.Integer(),
  end: Type.Integer(),
  text: Type.String(),
  entry: Type.String({ description: 'the keyword, pattern or sequence steps that matched' }),
});

export const TryResultSchema = Type.Object({
  rule_id: Type.String(),
  entity: Type.String(),
  applies: Type.Boolean({ description: 'false when the rule does not check the given surface' }),
  matched: Type.Boolean({ description: 'the text matches the rule' }),
  fires: Type.Boolean({ description: 'deny: matched; require: not matched (and only where the rule applies)' }),
  polarity: StringEnum(POLARITIES),
  effect: StringEnum(EFFECTS),
  message: Type.String({ description: 'what the caller would be told' }),
  spans: Type.Array(SpanSchema, { description: 'the matches, at most 100' }),
  total_spans: Type.Integer(),
  complete: Type.Boolean({ description: 'false when matching stopped at its time limit' }),
  explanation: Type.String(),
  ms: Type.Number(),
});
export type TryResult = Static<typeof TryResultSchema>;
