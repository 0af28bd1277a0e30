// Wire shapes of online evaluation (spec 02 "Evaluations"): POST /api/eval/online, GET /api/eval/drift,
// GET|POST /api/eval/slos.
import { Type, type Static } from 'typebox';
import { Body, Nullable, StringEnum, Timestamp } from '../../../infra/http/schemas.js';

/** An agent as traffic names it (the guard bodies' `agent`): shape only, no registry lookup. */
const AgentName = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'the agent as its traffic names it' });
const ScorerName = Type.String({ minLength: 1, maxLength: 64, description: 'a scorer name (GET /api/eval/scorers)' });

export const ScorerSpecBody = Type.Object(
  {
    name: ScorerName,
    params: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 50, description: "the scorer's parameters; at most 16 KiB as JSON" })),
    threshold: Type.Optional(Type.Number({ description: "overrides the scorer's default threshold" })),
  },
  { additionalProperties: false },
);

export const OnlineBody = Body({
  agent: AgentName,
  scorers: Type.Optional(
    Type.Array(Type.Union([ScorerName, ScorerSpecBody]), {
      minItems: 1,
      maxItems: 20,
      description: 'scorer names or specs; default verdict, refusal and latency',
    }),
  ),
  since_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 7, description: 'score decisions recorded in the last this many days' })),
  rate: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.1,
      description: 'share of requests sampled; deterministic per decision, so a re-run picks the same ones',
    }),
  ),
});
export type OnlineBody = Static<typeof OnlineBody>;

export const OnlineStartedSchema = Type.Object({
  id: Type.String({ description: 'the run (GET /api/eval/runs/{run_id})' }),
  status: StringEnum(['queued', 'running', 'completed', 'failed']),
  job_id: Type.String(),
  agent: Type.String(),
  since_days: Type.Integer(),
  rate: Type.Number(),
});
export type OnlineStarted = Static<typeof OnlineStartedSchema>;

export const DriftQuery = Type.Object({
  agent: AgentName,
  scorer: Type.Optional(ScorerName),
  recent_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 7 })),
  baseline_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 28 })),
});
export type DriftQuery = Static<typeof DriftQuery>;

const WindowSchema = Type.Object({ from: Timestamp, to: Timestamp });

const WindowStatsSchema = Type.Object({
  n: Type.Integer({ description: 'online results in the window' }),
  passed: Type.Integer({ description: 'results that pass (an annotation counts instead of the scorer)' }),
  pass_rate: Nullable(Type.Number()),
  mean_score: Nullable(Type.Number()),
});

const TestSchema = Type.Object({
  name: Type.String(),
  statistic: Nullable(Type.Number()),
  p_value: Nullable(Type.Number()),
});

export const DriftItemSchema = Type.Object({
  scorer: Type.String(),
  recent: WindowStatsSchema,
  baseline: WindowStatsSchema,
  delta: Nullable(Type.Number({ description: 'recent − baseline pass rate' })),
  test: TestSchema,
  distribution: Nullable(TestSchema),
  significant: Type.Boolean({ description: 'both windows have min_samples, p < alpha and |delta| ≥ min_effect' }),
  direction: StringEnum(['worse', 'better', 'none']),
  reason: Type.String(),
});

export const DriftSchema = Type.Object({
  agent: Type.String(),
  alpha: Type.Number(),
  min_samples: Type.Integer(),
  min_effect: Type.Number(),
  windows: Type.Object({ recent: WindowSchema, baseline: WindowSchema }),
  items: Type.Array(DriftItemSchema),
});
export type Drift = Static<typeof DriftSchema>;

export const SloWindow = Type.String({
  pattern: '^([1-9]|[1-8][0-9]|90)d$',
  default: '28d',
  description: 'days the objective is measured over: 1d to 90d (1d, 7d, 28d, 30d, …)',
});

export const SloBody = Body({
  agent: AgentName,
  scorer: ScorerName,
  objective: Type.Optional(StringEnum(['pass_rate'], { default: 'pass_rate', description: 'pass_rate: the share of online results that pass' })),
  window: Type.Optional(SloWindow),
  target: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.95 })),
});
export type SloBody = Static<typeof SloBody>;

export const SloQuery = Type.Object({ agent: Type.Optional(AgentName) });
export type SloQuery = Static<typeof SloQuery>;

export const SloSchema = Type.Object({
  id: Type.String(),
  agent: Type.String(),
  scorer: Type.String(),
  objective: StringEnum(['pass_rate']),
  window: Type.String(),
  target: Type.Number(),
  attainment: Nullable(Type.Number({ description: 'pass rate over the window; null without results' })),
  n: Type.Integer(),
  error_budget: Type.Number({ description: '1 − target' }),
  budget_consumed: Nullable(Type.Number({ description: '(1 − attainment) / (1 − target); above 1 when breached' })),
  budget_remaining: Nullable(Type.Number()),
  burn_rate_1d: Nullable(Type.Number({ description: "the last day's failure rate / (1 − target); null without results that day" })),
  status: StringEnum(['met', 'at_risk', 'breached', 'no_data']),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Slo = Static<typeof SloSchema>;

export const SloListSchema = Type.Object({ items: Type.Array(SloSchema), next_cursor: Nullable(Type.String()) });
export type SloList = Static<typeof SloListSchema>;
