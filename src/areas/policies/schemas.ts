// Wire shapes of the policy lifecycle: policies, versions, modes, rule changes, effective policy,
// lint, Rego, simulation, canaries, proposals and the library.
import { Type, type Static } from 'typebox';
import { Body, ListOf, Nullable, StringEnum } from '../../infra/http/schemas.js';
import { EFFECTS } from '../../engine/policy/schema.js';

const Mode = StringEnum(['observe', 'enforce']);
const Level = StringEnum(['org', 'team', 'agent', 'environment']);
const Compose = StringEnum(['merge', 'override']);
/** Policy texts are YAML documents of at most 256 KB. */
const PolicyText = Type.String({ minLength: 1, maxLength: 262_144 });
const Loose = Type.Unknown();

export const RuleSummarySchema = Type.Object({
  id: Type.String(),
  effect: Type.String(),
  enabled: Type.Boolean(),
  mode: Mode,
  message: Type.String(),
  when: Type.Record(Type.String(), Type.Unknown()),
});

export const PolicySummarySchema = Type.Object({
  key: Type.String(),
  version: Nullable(Type.Integer()),
  mode: Mode,
  level: Level,
  scope_id: Type.String(),
  compose: Compose,
  origin: Type.String(),
  bound: Type.Boolean(),
  fail_mode: StringEnum(['open', 'closed']),
  description: Type.String(),
  pending_versions: Type.Array(Type.Integer()),
  canary: Nullable(Type.Object({ candidate_version: Type.Integer(), percent: Type.Number() })),
  rules: Type.Array(RuleSummarySchema),
});

export const PolicyDetailSchema = Type.Object({
  ...PolicySummarySchema.properties,
  text: Nullable(Type.String()),
  versions: Type.Array(
    Type.Object({
      version: Type.Integer(),
      mode: Type.String(),
      notes: Nullable(Type.String()),
      status: Type.String(),
      source: Type.String(),
      created_by: Type.String(),
      created_at: Type.String(),
    }),
  ),
});

export const PolicyList = ListOf(PolicySummarySchema);
export const ListPoliciesQuery = Type.Object({ agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) });
export const PolicyKeyParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }) });
export const PolicyIdParams = Type.Object({ policy_id: Type.String({ minLength: 1, maxLength: 120 }) });
export const RuleParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }), rule_id: Type.String({ minLength: 1, maxLength: 200 }) });

export const UpsertBody = Body({
  body: PolicyText,
  notes: Type.Optional(Type.String({ maxLength: 2000 })),
  mode: Type.Optional(Mode),
  level: Type.Optional(Level),
  scope_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  compose: Type.Optional(Compose),
});
export type UpsertBody = Static<typeof UpsertBody>;

export const SetModeBody = Body({
  mode: Mode,
  version: Type.Optional(Type.Integer({ minimum: 1 })),
  level: Type.Optional(Level),
  scope_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  compose: Type.Optional(Compose),
});
export type SetModeBody = Static<typeof SetModeBody>;

export const RuleChangeBody = Body({
  effect: Type.Optional(StringEnum(EFFECTS)),
  enabled: Type.Optional(Type.Boolean()),
  message: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  on_block: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  min_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  notes: Type.Optional(Type.String({ maxLength: 2000 })),
});
export type RuleChangeBody = Static<typeof RuleChangeBody>;

export const ReviewBody = Body({ note: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })) });

export const SavedVersionSchema = Type.Object({
  key: Type.String(),
  version: Type.Integer(),
  status: Type.String(),
  proposal_id: Type.String(),
  loosening: Type.Boolean(),
  approvals_needed: Type.Integer(),
  diff: Loose,
  lint: Type.Object({ passed: Type.Boolean(), counts: Type.Record(Type.String(), Type.Integer()) }),
  simulation: Type.Object({ examined: Type.Integer(), changed: Type.Integer(), transitions: Type.Record(Type.String(), Type.Integer()) }),
});

const LintFindingSchema = Type.Object({
  severity: Type.String(),
  code: Type.String(),
  policy: Type.String(),
  rule_id: Type.Optional(Type.String()),
  message: Type.String(),
});
export const LintReportSchema = Type.Object({
  passed: Type.Boolean(),
  findings: Type.Array(LintFindingSchema),
  counts: Type.Record(Type.String(), Type.Integer()),
});

export const ValidationSchema = Type.Object({
  valid: Type.Boolean(),
  key: Nullable(Type.String()),
  rules: Type.Integer(),
  errors: Type.Array(Type.Object({ path: Type.String(), message: Type.String(), line: Nullable(Type.Integer()), column: Nullable(Type.Integer()) })),
  lint: Nullable(LintReportSchema),
});

export const EffectiveQuery = Type.Object({
  agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  team: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  user: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});
export const EffectiveSchema = Type.Object({
  subject: Type.Object({ agent: Nullable(Type.String()), team: Nullable(Type.String()), environment: Nullable(Type.String()), user: Nullable(Type.String()) }),
  policies: Type.Array(
    Type.Object({ key: Type.String(), version: Type.Integer(), mode: Mode, level: Level, scope_id: Type.String(), compose: Compose, origin: Type.String() }),
  ),
  rules: Type.Array(
    Type.Object({
      rule_id: Type.String(),
      policy: Type.String(),
      level: Level,
      scope_id: Type.String(),
      version: Type.Integer(),
      mode: Mode,
      effect: Type.String(),
      enabled: Type.Boolean(),
      overridden_by: Nullable(Type.String()),
    }),
  ),
});

/** GET /api/policies/{key}/rego answers the module text (package parapet.policy.<key>, import rego.v1). */
export const RegoModuleSchema = Type.String({ description: 'a Rego module: package parapet.policy.<key with - as _>, import rego.v1' });

export const SimulateBody = Body({
  body: PolicyText,
  agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  since_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50_000 })),
  persist: Type.Optional(Type.Boolean()),
  level: Type.Optional(Level),
  scope_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  compose: Type.Optional(Compose),
});
export type SimulateBody = Static<typeof SimulateBody>;

const Verdict = StringEnum(['allow', 'escalate', 'block']);
export const SimulationSchema = Type.Object({
  simulation_id: Nullable(Type.String()),
  policy: Type.String(),
  examined: Type.Integer(),
  without_facts: Type.Integer(),
  changed: Type.Integer(),
  effective_changed: Type.Integer(),
  transitions: Type.Record(Type.String(), Type.Integer()),
  changes: Type.Array(
    Type.Object({
      decision_id: Type.String(),
      at: Type.String(),
      agent: Type.String(),
      surface: Type.String(),
      recorded_verdict: Type.String(),
      verdict_before: Verdict,
      verdict_after: Verdict,
      effective_before: Verdict,
      effective_after: Verdict,
      rules_before: Type.Array(Type.String()),
      rules_after: Type.Array(Type.String()),
    }),
  ),
  since: Type.String(),
  ms: Type.Number(),
});

export const CanaryStartBody = Body({
  candidate_version: Type.Integer({ minimum: 1 }),
  steps: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 100 }), { minItems: 1, maxItems: 20 })),
  max_block_rate_delta: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  max_block_rate_drop: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  min_dwell_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 86_400 })),
  min_sample: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000 })),
});
export type CanaryStartBody = Static<typeof CanaryStartBody>;

const CohortSchema = Type.Object({ calls: Type.Integer(), blocked: Type.Integer(), block_rate: Nullable(Type.Number()) });
export const CanarySchema = Type.Object({
  id: Type.String(),
  key: Type.String(),
  state: Type.String(),
  baseline_version: Type.Integer(),
  candidate_version: Type.Integer(),
  steps: Type.Array(Type.Integer()),
  step_index: Type.Integer(),
  percent: Type.Number(),
  max_block_rate_delta: Type.Number(),
  max_block_rate_drop: Type.Number(),
  min_dwell_seconds: Type.Integer(),
  min_sample: Type.Integer(),
  proposal_id: Nullable(Type.String()),
  started_at: Type.String(),
  step_started_at: Type.String(),
  ended_at: Nullable(Type.String()),
  last_check: Nullable(
    Type.Object({
      at: Type.String(),
      outcome: Type.String(),
      why: Type.String(),
      candidate: CohortSchema,
      baseline: CohortSchema,
      dwell_seconds: Type.Integer(),
    }),
  ),
  created_by: Type.String(),
});

export const ProposalSchema = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  status: Type.String(),
  scope_level: Type.String(),
  scope_id: Type.String(),
  policy_key: Type.String(),
  from_version: Nullable(Type.Integer()),
  to_version: Type.Integer(),
  loosening: Type.Boolean(),
  approvals_needed: Type.Integer(),
  approvals: Type.Integer(),
  title: Type.String(),
  created_by: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  applied_at: Nullable(Type.String()),
  verified_note: Nullable(Type.String()),
  rollback_reason: Nullable(Type.String()),
});
export const ProposalDetailSchema = Type.Object({
  ...ProposalSchema.properties,
  diff: Loose,
  evidence: Loose,
  proof: Loose,
  decisions: Type.Array(Type.Object({ actor: Type.String(), approve: Type.Boolean(), note: Type.String(), at: Type.String() })),
});
export const ProposalList = ListOf(ProposalSchema);
export const ProposalQuery = Type.Object({
  status: Type.Optional(StringEnum(['pending', 'approved', 'rejected', 'canary', 'applied', 'verified', 'rolled_back'])),
  kind: Type.Optional(StringEnum(['policy_version'])),
  scope_level: Type.Optional(Level),
  scope_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});
export const ProposalParams = Type.Object({ proposal_id: Type.String({ minLength: 1, maxLength: 100 }) });
export const DecideBody = Body({ approve: Type.Boolean(), note: Type.String({ minLength: 1, maxLength: 2000 }) });
export const VerifyBody = Body({ verified: Type.Boolean(), note: Type.String({ minLength: 1, maxLength: 2000 }) });
export const RollbackBody = Body({ reason: Type.String({ minLength: 1, maxLength: 2000 }) });

export const LibraryPackSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  rules: Type.Array(Type.Object({ id: Type.String(), effect: Type.String(), message: Type.String() })),
  installed: Type.Boolean(),
  text: Type.String(),
});
export const LibraryList = ListOf(LibraryPackSchema);
export const LibraryParams = Type.Object({ pack_id: Type.String({ minLength: 1, maxLength: 100 }) });
