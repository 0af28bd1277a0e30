// Wire shape of an agent credential (minted per identity; CONTRACT.md "Credentials").
import { Type, type Static } from 'typebox';
import { NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

/** Whether a credential (an agent credential or an API token) still works. */
export const CredentialStatus = StringEnum(['active', 'expired', 'revoked']);

export const CredentialSchema = Type.Object({
  id: Type.String(),
  identity_id: Type.String(),
  agent: Type.String({ description: 'slug of the agent the credential speaks for' }),
  secret_hint: Type.String(),
  status: CredentialStatus,
  created_at: Timestamp,
  expires_at: NullableTimestamp,
  revoked_at: NullableTimestamp,
  last_used_at: NullableTimestamp,
});
export type Credential = Static<typeof CredentialSchema>;

export const CredentialIdParams = Type.Object({ credential_id: Type.String({ minLength: 1, maxLength: 100 }) });
