// Wire shapes of POST /api/auth/codehost/provision.
import { Type, type Static } from 'typebox';
import { Body, Nullable, Timestamp } from '../../../infra/http/schemas.js';

/** Printable ASCII without spaces: code-host ids and logins, safe in a user id and a token name. */
const VISIBLE = '^[\\x21-\\x7e]+$';

export const ProvisionBody = Body({
  codehost_user_id: Type.String({ minLength: 1, maxLength: 100, pattern: VISIBLE, description: "the code host's stable id of the person; the user id is usr_<codehost_user_id>" }),
  codehost_login: Type.String({ minLength: 1, maxLength: 100, pattern: VISIBLE, description: 'the login on the code host (updated when it changes)' }),
  email: Type.String({ format: 'email', maxLength: 320 }),
  name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
});
export type ProvisionBody = Static<typeof ProvisionBody>;

export const ProvisionedUserSchema = Type.Object({
  id: Type.String({ description: 'usr_<codehost_user_id>: the owner of the tokens minted for this person' }),
  codehost_user_id: Type.String(),
  login: Type.String(),
  email: Type.String(),
  name: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ProvisionedUser = Static<typeof ProvisionedUserSchema>;

export const ProvisionedSchema = Type.Object({
  user: ProvisionedUserSchema,
  created: Type.Boolean({ description: 'true when this identity was seen for the first time' }),
  token: Type.String({ description: 'a new viewer token for the user: shown once, stored only as a digest' }),
  token_id: Type.String(),
  role: Type.Literal('viewer'),
  expires_at: Nullable(Timestamp),
});
export type Provisioned = Static<typeof ProvisionedSchema>;
