// Wire shapes of POST /api/import/{tool}/plan and POST /api/import/{tool} (spec 02 "Tools, MCP,
// discovery, monitors, imports").
import { Type, type Static } from 'typebox';
import { Body, Nullable, StringEnum } from '../../infra/http/schemas.js';
import { MAX_FILES, MAX_SOURCE_BYTES } from './source.js';
import { MAX_ITEMS } from './tools/common.js';

/** A 1 MiB source sent as JSON may grow with escapes; the service counts its bytes. */
export const IMPORT_BODY_LIMIT = 4 * MAX_SOURCE_BYTES;

export const ToolParams = Type.Object({
  tool: Type.String({ minLength: 1, maxLength: 50, description: 'litellm, portkey, nemo-guardrails, llm-guard or promptfoo (another name: 404)' }),
});

const SourceText = Type.String({ minLength: 1, maxLength: MAX_SOURCE_BYTES, description: 'the configuration file: YAML or JSON, at most 1 MiB' });

export const SourceSchema = Type.Union([
  SourceText,
  Type.Object(
    {
      files: Type.Object(
        {},
        {
          additionalProperties: Type.String({ maxLength: MAX_SOURCE_BYTES }),
          minProperties: 1,
          maxProperties: MAX_FILES,
          description: 'relative file name → text (NeMo Guardrails: config.yml plus prompts.yml and rails/*.co); at most 1 MiB in all',
        },
      ),
    },
    { additionalProperties: false },
  ),
]);

export const ImportBody = Body(
  {
    source: SourceSchema,
    skip: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 400 }), { maxItems: MAX_ITEMS, description: 'item ids (from the plan) to leave out' })),
  },
  { bodyLimit: IMPORT_BODY_LIMIT },
);
export type ImportBody = Static<typeof ImportBody>;

const STATUSES = ['mapped', 'approximate', 'unmapped'] as const;
const TARGET_KINDS = ['policy_rule', 'custom_rule', 'eval_case', 'redteam_campaign', 'agent_protection', 'setting'] as const;
const OUTCOMES = ['created', 'updated', 'unchanged', 'skipped', 'failed'] as const;

const Target = Nullable(
  Type.Object({
    kind: StringEnum(TARGET_KINDS),
    key: Type.String({ description: 'policy_rule: <pack>/<rule id>; custom_rule: its key; eval_case: <suite>/<case key>; redteam_campaign: a probe class or mutation:<class>; setting: its name' }),
  }),
);

export const PlanItemSchema = Type.Object({
  id: Type.String({ description: 'stable: <tool>:<source path>[:<name>]' }),
  source_path: Type.String(),
  kind: Type.String({ description: 'what the source item is: guardrail, check, flow, scanner, test, model, budget …' }),
  status: StringEnum(STATUSES),
  target: Target,
  how: Nullable(Type.String({ description: 'what it becomes' })),
  why: Nullable(Type.String({ description: 'approximate: how it differs; unmapped: why there is no equivalent' })),
  applied: Type.Boolean({ description: 'false: apply stores nothing for it (unmapped, or plan only: see suggested)' }),
  suggested: Nullable(
    Type.Object({ method: Type.String(), path: Type.String(), body: Type.Record(Type.String(), Type.Unknown()) }, { description: 'a request an operator can send to do by hand what apply does not; {slug} and {agent} are to be filled in' }),
  ),
});

const Counts = Type.Object({ mapped: Type.Integer(), approximate: Type.Integer(), unmapped: Type.Integer(), total: Type.Integer() });

export const PlanSchema = Type.Object({
  tool: Type.String(),
  policy: Type.String({ description: 'the policy pack the rules go into (created in observe)' }),
  suite: Nullable(Type.String({ description: 'the evaluation suite the cases go into' })),
  items: Type.Array(PlanItemSchema),
  counts: Counts,
});
export type Plan = Static<typeof PlanSchema>;

export const AppliedItemSchema = Type.Object({
  id: Type.String(),
  status: StringEnum(STATUSES),
  target: Target,
  outcome: StringEnum(OUTCOMES),
  detail: Nullable(Type.String()),
});

export const ApplySchema = Type.Object({
  tool: Type.String(),
  policy: Nullable(
    Type.Object({
      key: Type.String(),
      version: Nullable(Type.Integer({ description: 'the live version after the apply' })),
      mode: Type.String(),
      proposal_id: Nullable(Type.String({ description: 'the proposal of the version this apply saved' })),
      note: Nullable(Type.String({ description: 'set when a saved version was not made live (a loosening waits for approval), and why' })),
    }),
  ),
  suite: Nullable(Type.String()),
  items: Type.Array(AppliedItemSchema),
  counts: Type.Object({ created: Type.Integer(), updated: Type.Integer(), unchanged: Type.Integer(), skipped: Type.Integer(), failed: Type.Integer() }),
});
export type ApplyResult = Static<typeof ApplySchema>;
