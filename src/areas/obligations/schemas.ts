// Wire shapes of GET /api/obligations and of catalogue/obligations.yaml (read directly when the
// obligations table has not been loaded by POST /api/controls/sync).
import { Type, type Static } from 'typebox';
import { StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const OBLIGATION_STATUSES = ['overdue', 'due_soon', 'upcoming'] as const;
export type ObligationStatus = (typeof OBLIGATION_STATUSES)[number];

export const ObligationsFile = Type.Object({
  obligations: Type.Array(
    Type.Object({
      key: Type.String({ minLength: 1 }),
      title: Type.String({ minLength: 1 }),
      due_at: Type.String({ minLength: 1 }),
      source: Type.String({ minLength: 1 }),
      recurring: Type.Optional(Type.Boolean()),
      detail: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  ),
});
export type ObligationsFile = Static<typeof ObligationsFile>;

export const ObligationsQuery = Type.Object({
  include_past: Type.Optional(
    Type.Boolean({ default: false, description: 'also list one-off framework dates that have passed (they apply now; there is nothing left to do by them)' }),
  ),
  due_soon_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 14, description: 'an obligation due within this many days is due_soon' })),
});
export type ObligationsQuery = Static<typeof ObligationsQuery>;

export const ObligationSchema = Type.Object({
  key: Type.String(),
  title: Type.String(),
  due_at: Timestamp,
  source: Type.String({ description: 'a framework key, or what in the deployment the obligation comes from' }),
  status: StringEnum(OBLIGATION_STATUSES),
  detail: Type.Record(Type.String(), Type.Unknown()),
});
export type Obligation = Static<typeof ObligationSchema>;

export const ObligationsSchema = Type.Object({
  at: Timestamp,
  summary: Type.Object({ overdue: Type.Integer(), due_soon: Type.Integer(), upcoming: Type.Integer() }),
  items: Type.Array(ObligationSchema),
});
export type ObligationsView = Static<typeof ObligationsSchema>;
