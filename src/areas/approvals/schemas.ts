// Wire shapes of approvals for held tool calls (spec 02 "Approvals").
import { Type, type Static } from 'typebox';
import { Body, ListOf, ListQuery, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'used', 'expired'] as const;

export const ApprovalSchema = Type.Object({
  id: Type.String(),
  agent: Type.String(),
  tool: Type.String(),
  arguments: Type.String({ description: 'the held call arguments as JSON, with detected sensitive values redacted' }),
  arguments_sha256: Type.String({ description: 'digest of the canonical arguments: an approval is good only for these' }),
  decision_id: Type.String(),
  rules: Type.Array(Type.String()),
  reason: Type.String(),
  status: StringEnum(APPROVAL_STATUSES),
  created_at: Timestamp,
  expires_at: Timestamp,
  decided_at: NullableTimestamp,
  decided_by: Nullable(Type.String()),
  rationale: Nullable(Type.String()),
  used_at: NullableTimestamp,
  used_decision_id: Nullable(Type.String()),
});
export type Approval = Static<typeof ApprovalSchema>;

export const ListApprovalsQuery = Type.Object({
  ...ListQuery.properties,
  status: Type.Optional(StringEnum(APPROVAL_STATUSES)),
});
export type ListApprovalsQuery = Static<typeof ListApprovalsQuery>;
export const ApprovalList = ListOf(ApprovalSchema);
export const ApprovalIdParams = Type.Object({ approval_id: Type.String({ minLength: 1, maxLength: 100 }) });
export const DecideApprovalBody = Body({ rationale: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })) });
