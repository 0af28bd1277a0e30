// Wire shapes of retention and legal holds: GET /api/retention, GET|POST /api/legal-holds,
// POST /api/legal-holds/{hold_id}/release.
import { Type, type Static } from 'typebox';
import { Body, ListOf, ListQuery, Nullable, NullableTimestamp, Timestamp } from '../../infra/http/schemas.js';
import { DateOrDateTime } from '../traces/schemas.js';

export const HoldScopeSchema = Type.Object(
  {
    agents: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 1000, description: 'agent slugs; absent: every agent' }),
    ),
    from: Type.Optional(DateOrDateTime('records at or after this time (a date means its start, UTC)')),
    to: Type.Optional(DateOrDateTime('records at or before this time (a date means its end, UTC)')),
  },
  { additionalProperties: false, description: 'what the hold keeps; empty: everything' },
);
export type HoldScope = Static<typeof HoldScopeSchema>;

export const LegalHoldSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  reason: Type.String(),
  scope: Type.Object({
    agents: Type.Optional(Type.Array(Type.String())),
    from: Type.Optional(Timestamp),
    to: Type.Optional(Timestamp),
  }),
  active: Type.Boolean(),
  created_by: Type.String(),
  created_at: Timestamp,
  released_at: NullableTimestamp,
  released_by: Nullable(Type.String()),
});
export type LegalHold = Static<typeof LegalHoldSchema>;

export const CreateLegalHoldBody = Body({
  scope: Type.Optional(HoldScopeSchema),
  reason: Type.String({ minLength: 1, maxLength: 5000 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'a short label; default: one made from the scope' })),
});
export type CreateLegalHoldBody = Static<typeof CreateLegalHoldBody>;

export const ReleaseLegalHoldBody = Body({
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 5000, description: 'kept in the audit entry' })),
});
export type ReleaseLegalHoldBody = Static<typeof ReleaseLegalHoldBody>;

export const ListLegalHoldsQuery = Type.Object({
  active: Type.Optional(Type.Boolean({ description: 'true: holds in force; false: released ones' })),
  ...ListQuery.properties,
});
export type ListLegalHoldsQuery = Static<typeof ListLegalHoldsQuery>;
export const LegalHoldList = ListOf(LegalHoldSchema);
export const LegalHoldIdParams = Type.Object({ hold_id: Type.String({ minLength: 1, maxLength: 100 }) });

const SweepCounts = {
  content_cleared: Type.Integer({ description: 'decision records whose content is cleared' }),
  traces_deleted: Type.Integer({ description: 'decision records deleted' }),
  memory_deleted: Type.Integer({ description: 'expired or revoked memory entries deleted' }),
  spans_deleted: Type.Integer({ description: 'OTLP spans received more than retention_traces_days ago, deleted' }),
  held: Type.Integer({ description: 'records past their retention kept by a legal hold' }),
};
export const SweepResultSchema = Type.Object(SweepCounts);
export type SweepResult = Static<typeof SweepResultSchema>;

export const RetentionSchema = Type.Object({
  settings: Type.Object({
    retention_trace_content_days: Type.Integer({ description: '0: content is kept as long as its record' }),
    retention_traces_days: Type.Integer({ description: '0: decision records are kept forever' }),
    retention_memory_days: Type.Integer({ description: '0: expired and revoked memory entries are kept forever' }),
    retention_sweep_ms: Type.Integer(),
  }),
  legal_holds: Type.Array(LegalHoldSchema, { description: 'holds in force, newest first' }),
  next_sweep: Type.Object(SweepCounts, { description: 'what a sweep now would remove, and keep for a hold' }),
  last_sweep: Nullable(Type.Object({ at: Timestamp, ...SweepCounts }, { description: "this process's last sweep" })),
});
export type Retention = Static<typeof RetentionSchema>;
