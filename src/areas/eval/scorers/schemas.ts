// Wire shape of GET /api/eval/scorers.
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../../infra/http/schemas.js';

const TARGETS = ['guard', 'model', 'http', 'online'] as const;

export const ScorerListSchema = Type.Object({
  items: Type.Array(
    Type.Object({
      name: Type.String(),
      description: Type.String(),
      applies_to: Type.Array(StringEnum(TARGETS), { description: 'target types (and online scoring) whose results it scores; elsewhere a run naming it is refused (422)' }),
      threshold_kind: Nullable(StringEnum(['min', 'max'] as const, { description: 'min: a score at or above the threshold passes; max: at or below; null: pass/fail only (takes no threshold)' })),
      default_threshold: Nullable(Type.Number()),
      params: Type.Array(
        Type.Object({
          name: Type.String(),
          type: StringEnum(['string', 'number', 'boolean', 'object', 'array'] as const),
          required: Type.Boolean(),
          description: Type.String(),
          default: Type.Optional(Type.Unknown()),
        }),
      ),
      available: Type.Boolean({ description: 'false: a run naming it is refused, for unavailable_reason' }),
      unavailable_reason: Type.Optional(Type.String()),
    }),
  ),
});
export type ScorerList = Static<typeof ScorerListSchema>;
