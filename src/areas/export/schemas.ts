// Wire shapes of GET /api/export/siem (spec 01 §6, spec 02 "export"): findings as SIEM events.
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';
import { SIEM_FORMATS } from './formats.js';

export const ExportSiemQuery = Type.Object({
  format: Type.Optional(
    StringEnum(SIEM_FORMATS, { description: 'jsonl (one event per line, default), json (an array), cef (ArcSight CEF lines) or ocsf (OCSF 1.1.0 Detection Findings)' }),
  ),
  since_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 1, description: 'findings seen in the last N days' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
});
export type ExportSiemQuery = Static<typeof ExportSiemQuery>;

export const FindingEventSchema = Type.Object({
  id: Type.String(),
  type: Type.String(),
  severity: Type.String(),
  status: Type.String(),
  title: Type.String(),
  subject: Type.String(),
  agent: Nullable(Type.String()),
  at: Timestamp,
  last_seen_at: Timestamp,
  occurrences: Type.Integer(),
  fingerprint: Type.String(),
  decision_id: Nullable(Type.String()),
  evidence: Type.Record(Type.String(), Type.Unknown()),
});

const Millis = Type.Integer({ description: 'milliseconds since the epoch' });

export const OcsfFindingSchema = Type.Object({
  activity_id: Type.Integer({ description: '1 Create (seen once) or 2 Update (recurred)' }),
  activity_name: Type.String(),
  category_uid: Type.Integer(),
  category_name: Type.String(),
  class_uid: Type.Integer({ description: '2004 Detection Finding' }),
  class_name: Type.String(),
  type_uid: Type.Integer(),
  type_name: Type.String(),
  severity_id: Type.Integer(),
  severity: Type.String(),
  status_id: Type.Integer(),
  status: Type.String(),
  time: Millis,
  message: Type.String(),
  count: Type.Integer(),
  finding_info: Type.Object({
    uid: Type.String(),
    title: Type.String(),
    types: Type.Array(Type.String()),
    created_time: Millis,
    modified_time: Millis,
    first_seen_time: Millis,
    last_seen_time: Millis,
  }),
  metadata: Type.Object({
    product: Type.Object({ name: Type.String(), vendor_name: Type.String(), version: Type.String() }),
    version: Type.String(),
  }),
  unmapped: Type.Object({
    subject: Type.String(),
    agent: Nullable(Type.String()),
    fingerprint: Type.String(),
    decision_id: Nullable(Type.String()),
  }),
});
