// Wire shapes of evidence packages (spec 02 "Compliance, controls, evidence, risk"; spec 01 §7.4).
import { Type, type Static } from 'typebox';
import { Body, ListOf, ListQuery, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

/**
 * building: being made in the request; queued_for_retry: a transient failure, a job retries it;
 * ready: downloadable; failed: a permanent failure, its job is dead (retrying the job rebuilds it).
 */
export const EVIDENCE_STATUSES = ['building', 'queued_for_retry', 'ready', 'failed'] as const;
export type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];

/** ISO 8601: a date-time, or a date (a period_from date starts that day, a period_to date ends it). */
const DateOrDateTime = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.String({ format: 'date' })], { description });

const Names = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200, uniqueItems: true, description });

export const CreateEvidenceBody = Body({
  agents: Type.Optional(Names('agent slugs whose decisions, findings and approvals go in; every agent when absent')),
  controls: Type.Optional(Names('control keys the package is evidence for (recorded in its scope)')),
  period_from: Type.Optional(DateOrDateTime('start of the period; default 30 days before period_to')),
  period_to: Type.Optional(DateOrDateTime('end of the period; default now. The period may span at most 366 days')),
});
export type CreateEvidenceBody = Static<typeof CreateEvidenceBody>;

export const EvidenceScopeSchema = Type.Object({
  agents: Type.Array(Type.String(), { description: 'empty: every agent' }),
  controls: Type.Array(Type.String()),
  period_from: Timestamp,
  period_to: Timestamp,
});
export type EvidenceScope = Static<typeof EvidenceScopeSchema>;

export const EvidenceCountsSchema = Type.Object({
  decisions: Type.Integer(),
  findings: Type.Integer(),
  approvals: Type.Integer(),
  policies: Type.Integer(),
  audit_entries: Type.Integer(),
});
export type EvidenceCounts = Static<typeof EvidenceCountsSchema>;

export const EvidencePackageSchema = Type.Object({
  id: Type.String(),
  status: StringEnum(EVIDENCE_STATUSES),
  scope: EvidenceScopeSchema,
  counts: Nullable(EvidenceCountsSchema),
  manifest_sha256: Nullable(Type.String({ description: 'sha256 of manifest.json inside the zip' })),
  checkpoint_id: Nullable(Type.String({ description: 'the signed audit checkpoint that covers the audit entries in the package' })),
  size_bytes: Nullable(Type.Integer()),
  job_id: Nullable(Type.String({ description: 'the evidence.build job, when the package was not built in the request' })),
  error: Nullable(Type.String()),
  created_by: Type.String(),
  created_at: Timestamp,
  completed_at: NullableTimestamp,
});
export type EvidencePackage = Static<typeof EvidencePackageSchema>;

export const QueuedEvidenceSchema = Type.Object({
  id: Type.String(),
  status: StringEnum(['queued_for_retry'] as const),
  job_id: Type.String(),
});
export type QueuedEvidence = Static<typeof QueuedEvidenceSchema>;

export const ListEvidenceQuery = Type.Object({
  ...ListQuery.properties,
  status: Type.Optional(StringEnum(EVIDENCE_STATUSES)),
});
export type ListEvidenceQuery = Static<typeof ListEvidenceQuery>;
export const EvidenceList = ListOf(EvidencePackageSchema);
export const EvidenceIdParams = Type.Object({ package_id: Type.String({ minLength: 1, maxLength: 100 }) });
