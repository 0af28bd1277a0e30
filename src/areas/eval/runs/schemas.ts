// Wire shapes of evaluation runs and the gate: POST|GET /api/eval/runs, GET /api/eval/runs/{run_id},
// POST /api/eval/gate.
import { Type, type Static } from 'typebox';
import { SURFACES } from '../../../engine/detectors/types.js';
import { Body, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../../infra/http/schemas.js';

export const SUITE_KEY_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$';
export const TARGET_TYPES = ['guard', 'model', 'http'] as const;
export const RUNNERS = ['auto', 'inline', 'job'] as const;
export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
/** A candidate pack's YAML text, at most this many characters. */
export const MAX_CANDIDATE_CHARS = 262_144;

const SuiteKey = Type.String({ pattern: SUITE_KEY_PATTERN, maxLength: 64, description: 'the suite key' });
const RunId = Type.String({ minLength: 1, maxLength: 100 });

/** One shape for every target type; which fields a type takes is checked by the service (422 naming the field). */
export const TargetBody = Type.Object(
  {
    type: StringEnum(TARGET_TYPES, { description: "guard: the gateway's own pipeline; model: a chat completion through the gateway's upstream, via the proxy; http: an agent's own OpenAI-compatible endpoint" }),
    surface: Type.Optional(StringEnum(SURFACES, { description: 'guard: the surface a case is decided on when its input names none (default input)' })),
    agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the agent the calls speak for (default eval)' })),
    policy: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'guard: a bound policy key whose mode `mode` overrides' })),
    mode: Type.Optional(StringEnum(['observe', 'enforce'] as const, { description: 'guard: the mode `policy` (or, without policy, every bound policy) runs in' })),
    candidate: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_CANDIDATE_CHARS, description: 'guard: a policy pack (YAML) evaluated in place of the bound policy of its key (or added, for a new key)' })),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'model (required) and http: the model named in the chat-completions body' })),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'http (required): the chat-completions URL; must start with one of eval_http_targets' })),
    system: Type.Optional(Type.String({ maxLength: 65_536, description: 'model and http: a system message put before each case' })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2, description: 'model: sampling temperature' })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 131_072, description: 'model: most tokens in an answer' })),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 120_000, description: 'model and http: per-case timeout (default 30000)' })),
  },
  { additionalProperties: false },
);
export type TargetBody = Static<typeof TargetBody>;

export const ScorerSpecBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    params: Type.Optional(Type.Object({}, { additionalProperties: true, maxProperties: 32, description: 'the parameters GET /api/eval/scorers lists for the scorer' })),
    threshold: Type.Optional(Type.Number({ description: "overrides the scorer's default threshold" })),
  },
  { additionalProperties: false },
);

export const ScorersBody = Type.Array(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), ScorerSpecBody]), {
  maxItems: 32,
  description: 'scorer names or {name, params, threshold}; default per target type',
});

export const CreateRunBody = Body({
  suite: SuiteKey,
  target: Type.Optional(TargetBody),
  scorers: Type.Optional(ScorersBody),
  baseline_run_id: Type.Optional(RunId),
  runner: Type.Optional(StringEnum(RUNNERS, { description: 'auto (default): in the request when small (guard ≤ 50 cases, model/http ≤ 10), else a job; inline: in the request (≤ 500 cases); job: always a job' })),
});
export type CreateRunBody = Static<typeof CreateRunBody>;

export const RunParams = Type.Object({ run_id: RunId });

export const ListRunsQuery = Type.Object({
  suite: Type.Optional(SuiteKey),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});
export type ListRunsQuery = Static<typeof ListRunsQuery>;

const ScorerSpecWire = Type.Object({
  name: Type.String(),
  params: Type.Optional(Type.Object({}, { additionalProperties: true })),
  threshold: Type.Optional(Type.Number()),
});

const RunFields = {
  id: Type.String(),
  kind: StringEnum(['offline', 'online'] as const),
  suite: Nullable(Type.String()),
  suite_version: Nullable(Type.Integer()),
  agent: Nullable(Type.String()),
  target: Type.Object({}, { additionalProperties: true, description: 'the target as run, defaults filled in' }),
  scorers: Type.Array(ScorerSpecWire),
  baseline_run_id: Nullable(Type.String()),
  runner: Type.String(),
  status: StringEnum(RUN_STATUSES),
  job_id: Nullable(Type.String()),
  total: Type.Integer(),
  done: Type.Integer(),
  error: Nullable(Type.String()),
  created_by: Type.String(),
  created_at: Timestamp,
  started_at: NullableTimestamp,
  finished_at: NullableTimestamp,
  pass_rate: Nullable(
    Type.Number({ description: 'cases passing every applicable scorer / cases with an applicable scorer, annotations counted; null until completed' }),
  ),
};

export const RunSummarySchema = Type.Object(RunFields);
export type RunSummary = Static<typeof RunSummarySchema>;

export const ResultSchema = Type.Object({
  id: Type.String(),
  scorer: Type.String(),
  score: Nullable(Type.Number()),
  passed: Type.Boolean({ description: "the scorer's call, or the annotation when there is one" }),
  threshold: Nullable(Type.Number()),
  reason: Type.String(),
  annotation: Nullable(StringEnum(['pass', 'fail'] as const)),
  annotation_note: Nullable(Type.String()),
});

export const CaseOutcomeSchema = Type.Object({
  case_id: Nullable(Type.String()),
  case_key: Nullable(Type.String()),
  /** Online runs: the recorded decision scored. */
  decision_id: Nullable(Type.String()),
  output_id: Type.String(),
  output: Nullable(Type.String()),
  verdict: Nullable(Type.String({ description: "the gateway's verdict on the call (guard and model targets)" })),
  entities: Type.Array(Type.String()),
  latency_ms: Nullable(Type.Number()),
  cost_usd: Nullable(Type.Number()),
  error: Nullable(Type.String()),
  passed: Nullable(Type.Boolean({ description: 'every applicable result passed; null when no scorer applied' })),
  results: Type.Array(ResultSchema),
});
export type CaseOutcome = Static<typeof CaseOutcomeSchema>;

export const ScorerSummarySchema = Type.Object({
  scorer: Type.String(),
  results: Type.Integer(),
  passed: Type.Integer(),
  pass_rate: Nullable(Type.Number()),
  threshold: Nullable(Type.Number()),
});
export type ScorerSummary = Static<typeof ScorerSummarySchema>;

const VerdictAndOutput = Type.Object({ verdict: Nullable(Type.String()), output: Nullable(Type.String()) });

export const ComparisonSchema = Type.Object({
  baseline_run_id: Type.String(),
  paired: Type.Integer({ description: 'cases scored in both runs' }),
  regressed: Type.Array(Type.String(), { description: 'case ids that passed in the baseline and fail now' }),
  improved: Type.Array(Type.String(), { description: 'case ids that failed in the baseline and pass now' }),
  changed: Type.Array(Type.Object({ case_id: Type.String(), before: VerdictAndOutput, after: VerdictAndOutput }), { description: 'cases whose verdict or output differs' }),
  pass_rate_before: Nullable(Type.Number()),
  pass_rate_after: Nullable(Type.Number()),
  test: Type.Object({
    name: Type.Literal('mcnemar_exact'),
    b: Type.Integer({ description: 'regressed' }),
    c: Type.Integer({ description: 'improved' }),
    p_value: Type.Number({ description: 'two-sided exact McNemar p-value on the paired cases' }),
  }),
  significant: Type.Boolean({ description: 'p_value < 0.05' }),
});
export type Comparison = Static<typeof ComparisonSchema>;

export const RunSchema = Type.Object({
  ...RunFields,
  scorers_summary: Type.Array(ScorerSummarySchema),
  cases: Type.Array(CaseOutcomeSchema),
  comparison: Nullable(ComparisonSchema),
});
export type Run = Static<typeof RunSchema>;

export const QueuedRunSchema = Type.Object({
  id: Type.String(),
  status: Type.Literal('queued'),
  job_id: Type.String(),
  total: Type.Integer(),
});
export type QueuedRun = Static<typeof QueuedRunSchema>;

export const RunListSchema = Type.Object({ items: Type.Array(RunSummarySchema) });

export const GateBody = Body({
  suite: SuiteKey,
  target: Type.Optional(TargetBody),
  scorers: Type.Optional(ScorersBody),
  baseline_run_id: Type.Optional(RunId),
  thresholds: Type.Optional(
    Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.Number({ minimum: 0, maximum: 1 }), {
      maxProperties: 32,
      description: "scorer name → the least pass rate it must reach; a scorer the run does not have is refused (422)",
    }),
  ),
  min_pass_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'the least share of cases passing every scorer; default 1 when thresholds is absent, else not checked' })),
  run_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'gate a completed run of the suite instead of running one (target and scorers are then refused)' })),
});
export type GateBody = Static<typeof GateBody>;

export const GateSchema = Type.Object({
  passed: Type.Boolean(),
  run_id: Type.String(),
  pass_rate: Nullable(Type.Number()),
  min_pass_rate: Nullable(Type.Number({ description: 'null: not checked' })),
  scorers: Type.Array(
    Type.Object({
      scorer: Type.String(),
      pass_rate: Nullable(Type.Number()),
      threshold: Nullable(Type.Number({ description: 'the least pass rate asked for this scorer; null: none' })),
      passed: Type.Boolean(),
    }),
  ),
  comparison: Nullable(ComparisonSchema),
  reasons: Type.Array(Type.String(), { description: 'why the gate failed, one line each; empty when passed' }),
});
export type Gate = Static<typeof GateSchema>;
