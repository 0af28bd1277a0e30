// Wire shapes of answerability: GET /api/answerability/boundaries, PUT /api/answerability/boundary,
// POST /api/answerability/check, GET /api/answerability/report.
import { Type, type Static } from 'typebox';
import { Body, Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';
import { BOUNDARY_MODES, OUTCOMES, REASON_CODES } from './check.js';

const AgentName = Type.String({ minLength: 1, maxLength: 200, description: "the agent's slug" });
const Words = (description: string, maxItems: number, maxLength: number) =>
  Type.Array(Type.String({ minLength: 1, maxLength }), { maxItems, description });
const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10, description: 'a calendar date, YYYY-MM-DD (UTC)' });

export const BoundariesQuery = Type.Object({ agent: Type.Optional(AgentName) });
export type BoundariesQuery = Static<typeof BoundariesQuery>;

export const BoundaryBody = Body({
  agent: AgentName,
  systems_of_record: Type.Optional(Words('source keys of the registry (GET /api/sources) the agent answers from; their freshness is checked', 100, 200)),
  coverage_months: Type.Optional(Type.Integer({ minimum: 1, maximum: 1200, description: 'months of data covered: from coverage_start, or the last this many months before now when coverage_start is absent' })),
  coverage_start: Type.Optional(IsoDate),
  entity_types: Type.Optional(Words('entity types the systems of record hold (customer, account, …); known_entities of another type are not covered. Empty: not checked', 200, 100)),
  answerable_types: Type.Optional(Words('the kinds of question the agent answers (balance, order status, …); descriptive, not checked', 200, 100)),
  out_of_scope_topics: Type.Optional(Words('phrases matched as whole words, case-insensitive; a question naming one is out of scope', 500, 200)),
  freshness_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 87_600, description: "a system of record updated longer ago than this is stale; absent: each source's own freshness_sla_hours" })),
  mode: Type.Optional(StringEnum(BOUNDARY_MODES, { default: 'observe', description: 'enforce: the input detector reports ANSWERABILITY.OUT_OF_BOUNDS, which the shipped answerability pack blocks; observe: ANSWERABILITY.OUT_OF_BOUNDS_OBSERVED, never blocked' })),
});
export type BoundaryBody = Static<typeof BoundaryBody>;

export const BoundarySchema = Type.Object({
  agent: Type.String(),
  systems_of_record: Type.Array(Type.String()),
  coverage_months: Nullable(Type.Integer()),
  coverage_start: Nullable(Type.String()),
  entity_types: Type.Array(Type.String()),
  answerable_types: Type.Array(Type.String()),
  out_of_scope_topics: Type.Array(Type.String()),
  freshness_hours: Nullable(Type.Integer()),
  mode: StringEnum(BOUNDARY_MODES),
  updated_by: Type.String(),
  updated_at: Timestamp,
});

export const BoundaryListSchema = Type.Object({ items: Type.Array(BoundarySchema, { description: 'by agent' }) });

const KnownEntity = Type.Union([
  Type.String({ minLength: 1, maxLength: 100, description: 'an entity type' }),
  Type.Object({ type: Type.String({ minLength: 1, maxLength: 100 }), value: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false }),
]);

export const CheckBody = Body({
  agent: AgentName,
  question: Type.String({ minLength: 1, maxLength: 32_768 }),
  known_entities: Type.Optional(Type.Array(KnownEntity, { maxItems: 100, description: 'entities the question is about, as types or {type, value}; only the type is checked' })),
  trace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: "the call's trace: the report lists not-answerable checks whose trace was answered anyway" })),
});
export type CheckBody = Static<typeof CheckBody>;

const ReasonSchema = Type.Object({ code: StringEnum(REASON_CODES), detail: Type.String() });

export const CheckResultSchema = Type.Object({
  agent: Type.String(),
  outcome: StringEnum(OUTCOMES),
  reasons: Type.Array(ReasonSchema),
  boundary: Nullable(BoundarySchema),
});

export const ReportQuery = Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30 })) });
export type ReportQuery = Static<typeof ReportQuery>;

export const ReportSchema = Type.Object({
  days: Type.Integer(),
  checks: Type.Integer({ description: 'checks made with POST /api/answerability/check in the window' }),
  by_outcome: Type.Object({ answerable: Type.Integer(), not_answerable: Type.Integer(), partial: Type.Integer() }),
  unanswerable_rate: Type.Number({ description: 'not_answerable / checks; 0 without checks' }),
  by_reason: Type.Object(
    { outside_coverage_dates: Type.Integer(), entity_type_not_covered: Type.Integer(), out_of_scope_topic: Type.Integer(), source_stale: Type.Integer(), no_boundary: Type.Integer() },
    { description: 'checks that gave each reason' },
  ),
  answered_anyway: Type.Array(
    Type.Object({ trace_id: Type.String(), agent: Type.String(), at: Timestamp, reasons: Type.Array(ReasonSchema) }),
    { description: 'not-answerable checks whose trace has an allowed output decision; newest first, at most 100' },
  ),
});
export type Report = Static<typeof ReportSchema>;
