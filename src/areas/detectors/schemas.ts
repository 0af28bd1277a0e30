// Wire shapes of GET /api/detectors and POST /api/detectors/{key}.
import { Type, type Static } from 'typebox';
import { Body, ListOf, Nullable } from '../../infra/http/schemas.js';

export const DetectorViewSchema = Type.Object({
  key: Type.String(),
  surfaces: Type.Array(Type.String()),
  entity_types: Type.Array(Type.String()),
  cost_rank: Type.Integer(),
  timeout_ms: Nullable(Type.Integer()),
  opt_in: Type.Boolean(),
  available: Type.Boolean(),
  reason: Nullable(Type.String({ description: 'why it is unavailable' })),
  enabled: Type.Boolean(),
  stats: Type.Object({
    runs: Type.Integer(),
    ok: Type.Integer(),
    timeout: Type.Integer(),
    skipped_budget: Type.Integer(),
    error: Type.Integer(),
    matched: Type.Integer(),
    avg_ms: Type.Number(),
    max_ms: Type.Number(),
  }),
});
export type DetectorView = Static<typeof DetectorViewSchema>;

export const DetectorList = ListOf(DetectorViewSchema);
export const DetectorKeyParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }) });
export const SwitchDetectorBody = Body({
  enabled: Type.Boolean(),
  reason: Type.Optional(Type.String({ maxLength: 500 })),
});
