// Wire shapes of rule examples (spec 02 "Custom and business rules"): a recorded decision pinned as
// "this rule should fire here" or "should not", and the check of a rule against its examples.
import { Type, type Static } from 'typebox';
import { Body, ListOf, ListQuery, Nullable, Timestamp } from '../../infra/http/schemas.js';

export const RuleIdParam = Type.String({ minLength: 3, maxLength: 200, pattern: '^[a-z][a-z0-9_]*\\.[a-z0-9_.]+$', description: 'a policy rule id, family.snake_case' });

export const RuleIdParams = Type.Object({ rule_id: RuleIdParam });
export const RuleExampleParams = Type.Object({ rule_id: RuleIdParam, example_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const CreateRuleExampleBody = Body({
  decision_id: Type.String({ minLength: 1, maxLength: 100, description: 'a recorded decision (its trace id)' }),
  fires: Type.Boolean({ description: 'whether the rule should fire on this decision' }),
  sample: Type.Optional(Type.String({ maxLength: 10_000, description: 'a note or the text, for people; not evaluated' })),
});
export type CreateRuleExampleBody = Static<typeof CreateRuleExampleBody>;

export const CheckRuleExamplesBody = Body({
  policy: Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z][a-z0-9_-]*$', description: 'the key of the policy (pack) holding the rule' }),
  body: Type.Optional(Type.String({ minLength: 1, maxLength: 262_144, description: 'candidate YAML text of that policy; absent: the live policy' })),
});
export type CheckRuleExamplesBody = Static<typeof CheckRuleExamplesBody>;

export const RuleExampleSchema = Type.Object({
  id: Type.String(),
  rule_id: Type.String(),
  decision_id: Type.String(),
  fires: Type.Boolean(),
  sample: Nullable(Type.String()),
  surface: Nullable(Type.String({ description: 'from the stored facts' })),
  agent: Nullable(Type.String()),
  tool: Nullable(Type.String()),
  entities: Type.Array(Type.String(), { description: 'entity types detected in the call' }),
  created_by: Type.String(),
  created_at: Timestamp,
});
export type RuleExample = Static<typeof RuleExampleSchema>;

export const RuleExampleList = ListOf(RuleExampleSchema);
export const ListRuleExamplesQuery = ListQuery;
export type ListRuleExamplesQuery = Static<typeof ListRuleExamplesQuery>;

export const CheckResultSchema = Type.Object({
  rule_id: Type.String(),
  policy: Type.String(),
  source: Type.String({ description: 'candidate (the text in the body) or live' }),
  rule_found: Type.Boolean(),
  rule_enabled: Type.Boolean({ description: 'a disabled rule fires on nothing' }),
  passed: Type.Boolean({ description: 'every example behaved as expected' }),
  note: Nullable(Type.String()),
  results: Type.Array(
    Type.Object({
      example_id: Type.String(),
      decision_id: Type.String(),
      expected_fires: Type.Boolean(),
      fires: Type.Boolean(),
      ok: Type.Boolean(),
    }),
  ),
});
export type CheckResult = Static<typeof CheckResultSchema>;
