// Wire shapes of GET /api/usage: model usage per agent, model and UTC day, with totals.
import { Type, type Static } from 'typebox';

export const UsageQuery = Type.Object({
  agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366, default: 7, description: 'UTC days back, today included' })),
});
export type UsageQuery = Static<typeof UsageQuery>;

const Counts = {
  calls: Type.Integer({ description: 'proxied calls, forwarded or not' }),
  blocked: Type.Integer({ description: 'calls answered without the upstream (policy, loop or budget refusals)' }),
  unpriced: Type.Integer({ description: 'forwarded calls whose model has no price in model_prices (cost counted as 0)' }),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cost_usd: Type.Number({ description: 'priced by model_prices (USD per million input and output tokens)' }),
};

export const UsageRowSchema = Type.Object({
  agent: Type.String(),
  model: Type.String(),
  day: Type.String({ description: 'YYYY-MM-DD, UTC' }),
  ...Counts,
});
export type UsageRow = Static<typeof UsageRowSchema>;

export const UsageSchema = Type.Object({
  from: Type.String({ description: 'the first UTC day counted' }),
  to: Type.String({ description: 'the last UTC day counted (today)' }),
  items: Type.Array(UsageRowSchema, { description: 'newest day first, then agent and model' }),
  totals: Type.Object(Counts),
});
export type Usage = Static<typeof UsageSchema>;
