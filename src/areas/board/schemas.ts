// Wire shapes of GET /api/board.
import { Type, type Static } from 'typebox';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const BoardQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30, description: 'the period: the last N days, compared with the N days before' })),
});
export type BoardQuery = Static<typeof BoardQuery>;

const Trend = Type.Object({ current: Type.Integer(), previous: Type.Integer(), delta: Type.Integer({ description: 'current minus previous' }) });
const Ages = { under_1d: Type.Integer(), days_1_to_7: Type.Integer(), over_7d: Type.Integer() };

export const BoardSchema = Type.Object({
  period: Type.Object({ days: Type.Integer(), from: Timestamp, to: Timestamp, previous_from: Timestamp }),
  agents: Type.Object({
    total: Type.Integer({ description: 'registered and pending agents (rejected ones left out)' }),
    by_class: Type.Array(
      Type.Object({
        class: Type.String({ description: 'EU AI Act class of the latest risk assessment, else the declared risk_tier, else unclassified' }),
        source: StringEnum(['risk_assessment', 'risk_tier', 'none'] as const),
        count: Type.Integer(),
        agents: Type.Array(Type.String(), { description: 'slugs, at most 50' }),
      }),
    ),
    assessments_recorded: Type.Boolean({ description: 'false: no risk_assessments table, every class is the declared risk_tier' }),
  }),
  calls: Type.Object({
    blocked: Type.Integer({ description: 'decisions whose effective verdict was block in the period' }),
    held: Type.Integer({ description: 'decisions held for a human (effective verdict escalate)' }),
    approvals_requested: Type.Integer(),
  }),
  findings: Type.Object({
    open: Type.Integer(),
    by_age: Type.Object(Ages, { description: 'age since first seen' }),
    by_severity: Type.Array(Type.Object({ severity: Type.String(), open: Type.Integer(), ...Ages }), { description: 'critical first' }),
    opened_in_period: Type.Integer(),
  }),
  controls: Type.Object({
    computed_at: NullableTimestamp,
    frameworks: Type.Array(
      Type.Object({
        key: Type.String(),
        title: Type.String(),
        status: StringEnum(['computed', 'not_computed'] as const),
        pass_rate: Nullable(Type.Number({ description: 'share of clauses whose controls all pass' })),
        clauses: Type.Integer(),
        covered: Type.Integer(),
        failing: Type.Integer(),
        not_evidenced: Type.Integer(),
      }),
    ),
  }),
  trend: Type.Object({ blocked: Trend, held: Trend, findings_opened: Trend }),
});
export type Board = Static<typeof BoardSchema>;
