// Wire shape of an agent credential (minted per identity; CONTRACT.md "Credentials").
import { Type, type Static } from 'typebox';
import { NullableTimestamp, Timestamp } from '../../infra/http/schemas.js';
import { CredentialStatus } from '../tokens/schemas.js';

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
