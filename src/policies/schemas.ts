// Wire shapes of GET /api/policies and POST /api/policies/{key}/mode.
import { Type, type Static } from 'typebox';
import { Body, ListOf, StringEnum } from '../http/schemas.js';

const Mode = StringEnum(['observe', 'enforce']);

export const PolicySummarySchema = Type.Object({
  key: Type.String(),
  version: Type.Integer(),
  mode: Mode,
  fail_mode: StringEnum(['open', 'closed']),
  description: Type.String(),
  rules: Type.Array(
    Type.Object({
      id: Type.String(),
      effect: Type.String(),
      enabled: Type.Boolean(),
      mode: Mode,
      message: Type.String(),
      when: Type.Record(Type.String(), Type.Unknown()),
    }),
  ),
});
export type PolicySummary = Static<typeof PolicySummarySchema>;

export const PolicyList = ListOf(PolicySummarySchema);
export const ListPoliciesQuery = Type.Object({ agent: Type.Optional(Type.String({ maxLength: 200 })) });
export const PolicyKeyParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }) });
export const SetModeBody = Body({
  mode: Mode,
  version: Type.Optional(Type.Integer({ minimum: 1 })),
  level: Type.Optional(StringEnum(['org', 'team', 'agent', 'environment'])),
  scope_id: Type.Optional(Type.String({ maxLength: 200 })),
  compose: Type.Optional(Type.String({ maxLength: 50 })),
});
export type SetModeBody = Static<typeof SetModeBody>;
