// Wire shapes of findings and the attention list (spec 01 §2.6 and §3; spec 02 "Findings", GET /api/attention).
import { Type, type Static } from 'typebox';
import { SLUG_PATTERN } from '../agents/schemas.js';
import { Body, ListOf, ListQuery, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';
import { FINDING_TYPES } from '../../engine/findings/catalog.js';

export const FINDING_STATUSES = ['open', 'suppressed', 'resolved'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];
export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
const TYPE_KEYS = FINDING_TYPES.map((item) => item.type);

export const FindingSchema = Type.Object({
  id: Type.String({ description: 'fnd_ followed by an identifier' }),
  type: Type.String(),
  severity: StringEnum(SEVERITIES, { description: 'raised by recurrence, never lowered' }),
  status: StringEnum(FINDING_STATUSES),
  title: Type.String(),
  subject: Type.String({ description: 'agent:<slug>, or agent:None for an agent not in the registry' }),
  agent: Nullable(Type.String()),
  at: Timestamp,
  last_seen_at: Timestamp,
  occurrences: Type.Integer(),
  fingerprint: Type.String({ description: 'sha256 over type, subject and identifying parts' }),
  evidence: Type.Record(Type.String(), Type.Unknown()),
  decision_id: Nullable(Type.String()),
  suppression_reason: Nullable(Type.String()),
  resolution_note: Nullable(Type.String({ description: 'kept when the finding reopens, for history' })),
  status_changed_at: NullableTimestamp,
  status_changed_by: Nullable(Type.String({ description: "who changed the status last; 'recurrence' when it reopened by itself" })),
  reopened_count: Type.Integer(),
});
export type Finding = Static<typeof FindingSchema>;

export const ListFindingsQuery = Type.Object({
  ...ListQuery.properties,
  status: Type.Optional(StringEnum(FINDING_STATUSES)),
  severity: Type.Optional(StringEnum(SEVERITIES)),
  type: Type.Optional(StringEnum(TYPE_KEYS, { description: 'a type of GET /api/findings/types' })),
  agent: Type.Optional(Type.String({ pattern: SLUG_PATTERN, description: "a registered agent's slug" })),
});
export type ListFindingsQuery = Static<typeof ListFindingsQuery>;
export const FindingList = ListOf(FindingSchema);

export const FindingIdParams = Type.Object({ finding_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const PatchFindingBody = Body({
  status: StringEnum(FINDING_STATUSES),
  suppression_reason: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'required to suppress' })),
  note: Type.Optional(
    Type.String({ minLength: 1, maxLength: 5000, description: 'required to resolve, to unsuppress and to reopen by hand' }),
  ),
});
export type PatchFindingBody = Static<typeof PatchFindingBody>;

export const FindingTypeSchema = Type.Object({
  type: Type.String(),
  title: Type.String(),
  default_severity: StringEnum(SEVERITIES),
  meaning: Type.String(),
  raised_by: Type.String(),
});
/** The whole catalogue in one page: next_cursor is always null. */
export const FindingTypeList = ListOf(FindingTypeSchema);

export const ATTENTION_KINDS = ['finding', 'approval', 'agent_control', 'unowned_agent', 'dead_job'] as const;
export type AttentionKind = (typeof ATTENTION_KINDS)[number];

export const AttentionItemSchema = Type.Object({
  kind: StringEnum(ATTENTION_KINDS),
  id: Type.String(),
  title: Type.String(),
  severity: StringEnum(SEVERITIES),
  score: Type.Number(),
  why: Type.String(),
  link: Type.String({ description: 'the API path of the item' }),
});
export type AttentionItem = Static<typeof AttentionItemSchema>;
/** At most 100 items, ranked; not paged (next_cursor is always null). */
export const AttentionList = Type.Object({
  items: Type.Array(AttentionItemSchema),
  next_cursor: Nullable(Type.String()),
  hours: Type.Integer({ description: 'the recency window the scores used' }),
});
export const AttentionQuery = Type.Object({
  hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, default: 24, description: 'findings seen within this many hours score higher' })),
});
