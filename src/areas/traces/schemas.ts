// Wire shapes of recorded decisions (spec 02 "Traces, metrics, audit, export"): GET /api/traces,
// /api/traces/{trace_id}.
import { Type, type Static } from 'typebox';
import { ListOf, ListQuery, Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const VERDICTS = ['allow', 'block', 'escalate'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** ISO 8601 as CONTRACT.md allows in queries and bodies: a date or a date-time with its offset. */
export const DateOrDateTime = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.String({ format: 'date' })], { description });

const Name = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

export const RuleViewSchema = Type.Object({
  rule_id: Type.String(),
  pack: Type.String(),
  effect: Type.String(),
  mode: Type.String(),
  message: Type.String(),
  entity: Type.Optional(Type.String()),
  score: Type.Optional(Type.Number()),
  detector: Type.Optional(Type.String()),
  span: Type.Optional(Type.Object({ start: Type.Integer(), end: Type.Integer() })),
  approved_by: Type.Optional(Type.String()),
});

export const DetectorRunSchema = Type.Object({
  key: Type.String(),
  status: Type.String({ description: 'ok, timeout, skipped_budget or error' }),
  matched: Type.Boolean(),
  ms: Type.Number(),
  cached: Type.Optional(Type.Boolean()),
});

export const TraceSchema = Type.Object({
  id: Type.String({ description: 'the decision id (decision_id of the answer)' }),
  at: Timestamp,
  agent: Type.String(),
  subject: Type.String(),
  surface: Type.String(),
  tool: Nullable(Type.String()),
  verdict: StringEnum(VERDICTS),
  effective_verdict: StringEnum(VERDICTS),
  mode: Type.String(),
  rules: Type.Array(RuleViewSchema),
  entities: Type.Array(Type.String()),
  degraded: Type.Array(Type.String()),
  detectors: Type.Array(DetectorRunSchema),
  latency_ms: Type.Number(),
  content_sha256: Type.String(),
  content_length: Type.Integer(),
  content: Nullable(Type.String({ description: 'as record_content allowed when it was recorded; null once retention cleared it' })),
  session_id: Nullable(Type.String()),
  trace_id: Nullable(Type.String({ description: 'the caller’s own trace id, when it sent one' })),
  environment: Nullable(Type.String()),
});
export type Trace = Static<typeof TraceSchema>;

export const ListTracesQuery = Type.Object({
  agent: Type.Optional(Name('decisions of this agent')),
  verdict: Type.Optional(StringEnum(VERDICTS, { description: 'the enforced verdict' })),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  entity_type: Type.Optional(
    Name('an entity type (PII.EMAIL) or a family prefix ending in a dot (PII.) that the decision detected'),
  ),
  tool: Type.Optional(Name('tool calls of this tool')),
  rule: Type.Optional(Name('decisions in which this rule_id fired')),
  errors: Type.Optional(Type.Boolean({ description: 'true: only degraded decisions; false: only complete ones' })),
  since_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
  start: Type.Optional(DateOrDateTime('at or after this time (a date means its start, UTC)')),
  end: Type.Optional(DateOrDateTime('at or before this time (a date means its end, UTC)')),
  ...ListQuery.properties,
});
export type ListTracesQuery = Static<typeof ListTracesQuery>;
export const TraceList = ListOf(TraceSchema);
export const TraceIdParams = Type.Object({ trace_id: Type.String({ minLength: 1, maxLength: 100, description: 'a decision id' }) });
