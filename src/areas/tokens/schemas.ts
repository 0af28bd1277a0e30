// Wire shapes of API tokens (spec 02 "Platform and account"; CONTRACT.md "Credentials").
import { Type, type Static } from 'typebox';
import { Body, ListOf, ListQuery, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';
import { CredentialStatus } from '../credentials/schemas.js';

export const TOKEN_ROLES = ['viewer', 'operator', 'admin'] as const;
export const TokenRole = StringEnum(TOKEN_ROLES);

export const TokenSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: StringEnum(['operator', 'traffic']),
  role: Nullable(TokenRole),
  owner: Type.String(),
  token_hint: Type.String({ description: 'the first characters of the token, never the whole' }),
  status: CredentialStatus,
  created_by: Type.String(),
  created_at: Timestamp,
  expires_at: NullableTimestamp,
  revoked_at: NullableTimestamp,
  last_used_at: NullableTimestamp,
});
export type Token = Static<typeof TokenSchema>;

export const CreatedTokenSchema = Type.Object({
  ...TokenSchema.properties,
  token: Type.String({ description: 'the raw token; shown this once and never again' }),
});
export type CreatedToken = Static<typeof CreatedTokenSchema>;

export const CreateTokenBody = Body({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  ttl_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'days until expiry; default 90' })),
  role: Type.Optional(
    StringEnum([...TOKEN_ROLES, 'traffic'], {
      description: "the new token's role: at most the caller's; traffic tokens need admin. Default: the caller's role",
    }),
  ),
});
export type CreateTokenBody = Static<typeof CreateTokenBody>;

export const ListTokensQuery = ListQuery;
export type ListTokensQuery = Static<typeof ListTokensQuery>;
export const TokenList = ListOf(TokenSchema);

export const TokenIdParams = Type.Object({ token_id: Type.String({ minLength: 1, maxLength: 100 }) });
