// Wire shapes of the metrics read from recorded decisions (spec 02 "Traces, metrics, audit,
// export"): GET /api/metrics/summary|errors|rules|breakdown.
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';

const Name = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

export const RANGE_PATTERN = '^[1-9][0-9]{0,3}[hd]$';

export const MetricsQuery = Type.Object({
  range: Type.Optional(
    Type.String({ pattern: RANGE_PATTERN, default: '24h', description: 'hours (24h, at most 8760h) or days (7d, at most 365d) back from now' }),
  ),
  agent: Type.Optional(Name('decisions of this agent')),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
});
export type MetricsQuery = Static<typeof MetricsQuery>;

export const BREAKDOWN_DIMS = ['agent', 'surface', 'verdict', 'tool', 'environment', 'entity', 'rule'] as const;
export type BreakdownDim = (typeof BREAKDOWN_DIMS)[number];

/** The dimension of GET /api/metrics/breakdown when the query names none. */
export const DEFAULT_BREAKDOWN_DIM: BreakdownDim = 'agent';

export const BreakdownQuery = Type.Object({
  dim: Type.Optional(StringEnum(BREAKDOWN_DIMS, { default: DEFAULT_BREAKDOWN_DIM, description: `the dimension to count by (default ${DEFAULT_BREAKDOWN_DIM})` })),
  ...MetricsQuery.properties,
});
export type BreakdownQuery = Static<typeof BreakdownQuery>;

const Window = {
  range: Type.String(),
  from: Timestamp,
  to: Timestamp,
  agent: Nullable(Type.String()),
  environment: Nullable(Type.String()),
};

const VerdictCounts = Type.Object({ allow: Type.Integer(), block: Type.Integer(), escalate: Type.Integer() });
const Sampled = Type.Boolean({
  description: 'true when more decisions matched than are read for this answer (the newest 100,000 were counted)',
});

export const SummarySchema = Type.Object({
  ...Window,
  decisions: Type.Integer(),
  by_verdict: VerdictCounts,
  by_effective_verdict: VerdictCounts,
  block_rate: Type.Number({ description: 'decisions whose enforced verdict is block, over all decisions (0 without decisions)' }),
  escalate_rate: Type.Number({ description: 'decisions whose enforced verdict is escalate, over all decisions' }),
  latency_ms: Type.Object(
    { p50: Nullable(Type.Number()), p95: Nullable(Type.Number()), p99: Nullable(Type.Number()) },
    { description: 'nearest-rank percentiles of the decision latency; null without decisions' },
  ),
  degraded: Type.Integer({ description: 'decisions in which a detector did not complete' }),
  distinct_agents: Type.Integer(),
  findings_opened: Type.Integer({ description: 'findings first raised in the range' }),
});
export type Summary = Static<typeof SummarySchema>;

export const ErrorsSchema = Type.Object({
  ...Window,
  decisions: Type.Integer(),
  degraded_decisions: Type.Integer(),
  degraded_rate: Type.Number(),
  by_detector: Type.Array(
    Type.Object({ detector: Type.String(), status: Type.String({ description: 'timeout, skipped_budget or error' }), count: Type.Integer() }),
  ),
  budget_breach: Type.Object({
    findings: Type.Integer({ description: 'budget_breach findings seen in the range' }),
    items: Type.Array(
      Type.Object({
        id: Type.String(),
        subject: Type.String(),
        detector: Nullable(Type.String()),
        detector_status: Nullable(Type.String()),
        severity: Type.String(),
        status: Type.String(),
        occurrences: Type.Integer(),
        last_seen_at: Timestamp,
      }),
      { description: 'the 100 most recently seen' },
    ),
  }),
  sampled: Sampled,
});
export type ErrorsMetrics = Static<typeof ErrorsSchema>;

export const RuleMetricsSchema = Type.Object({
  ...Window,
  items: Type.Array(
    Type.Object({
      rule_id: Type.String(),
      pack: Type.String(),
      fired: Type.Integer({ description: 'decisions in which the rule fired' }),
      by_effect: Type.Record(Type.String(), Type.Integer()),
      by_mode: Type.Record(Type.String(), Type.Integer()),
      last_fired_at: Timestamp,
    }),
  ),
  sampled: Sampled,
});
export type RuleMetrics = Static<typeof RuleMetricsSchema>;

export const BreakdownSchema = Type.Object({
  ...Window,
  dim: StringEnum(BREAKDOWN_DIMS),
  items: Type.Array(
    Type.Object({
      value: Nullable(Type.String({ description: 'null: decisions without a value (no tool, no environment)' })),
      count: Type.Integer(),
      blocked: Type.Integer({ description: 'of those, decisions whose enforced verdict is block' }),
      effective_blocked: Type.Integer({ description: 'of those, decisions that any pack (observe included) would block' }),
    }),
    { description: 'most frequent first, at most 500 values' },
  ),
  distinct_values: Type.Integer(),
  sampled: Sampled,
});
export type Breakdown = Static<typeof BreakdownSchema>;
