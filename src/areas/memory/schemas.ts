// Wire shapes of memory entries: GET /api/memory, POST /api/memory/{entry_id}/revoke|verify.
import { Type, type Static } from 'typebox';
import { Body, ListOf, ListQuery, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const MEMORY_STATUSES = ['active', 'expired', 'revoked', 'blocked'] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];

export const MemoryEntrySchema = Type.Object({
  id: Type.String(),
  agent: Type.String(),
  subject: Nullable(Type.String()),
  content: Nullable(Type.String({ description: 'as record_content allows: redacted, in full, or null' })),
  content_sha256: Type.String(),
  provenance: Type.Record(Type.String(), Type.String()),
  taint_source: Nullable(Type.String()),
  verified_by: Nullable(Type.String()),
  verified_at: NullableTimestamp,
  ttl_seconds: Nullable(Type.Integer()),
  verdict: Type.String(),
  decision_id: Type.String(),
  session_id: Nullable(Type.String()),
  created_at: Timestamp,
  expires_at: Nullable(Timestamp),
  revoked_at: NullableTimestamp,
  revoked_by: Nullable(Type.String()),
  status: StringEnum(MEMORY_STATUSES, {
    description: 'revoked (pulled by an operator), blocked (the write was blocked), expired (past expires_at) or active',
  }),
});
export type MemoryEntry = Static<typeof MemoryEntrySchema>;

export const ListMemoryQuery = Type.Object({
  agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  active_only: Type.Optional(Type.Boolean({ default: false, description: 'list only entries that are active now' })),
  ...ListQuery.properties,
});
export type ListMemoryQuery = Static<typeof ListMemoryQuery>;
export const MemoryEntryList = ListOf(MemoryEntrySchema);

export const MemoryEntryIdParams = Type.Object({ entry_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const RevokeMemoryBody = Body({
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'kept in the audit entry' })),
});
export type RevokeMemoryBody = Static<typeof RevokeMemoryBody>;

export const VerifyMemoryBody = Body({
  verified_by: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'who vouches for the entry; default the caller' })),
});
export type VerifyMemoryBody = Static<typeof VerifyMemoryBody>;
