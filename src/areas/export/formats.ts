// Findings as SIEM events: Parapet's own JSON event, ArcSight CEF (Common Event Format rev. 25) and
// an OCSF 1.1.0 Detection Finding (class 2004). Pure functions: no I/O here.
import type { Finding } from '../findings/schemas.js';
import { toWire } from '../findings/service.js';
import type { FindingRow } from '../../infra/store/tables.js';

export const SIEM_FORMATS = ['jsonl', 'json', 'cef', 'ocsf'] as const;
export type SiemFormat = (typeof SIEM_FORMATS)[number];

/** A finding as exported: the same shape GET /api/findings answers. */
export type FindingEvent = Finding;
export const findingEvent: (row: FindingRow) => FindingEvent = toWire;

// CEF ---------------------------------------------------------------------------------------------

/** CEF severity 0-10 (10 most severe). */
export const CEF_SEVERITY: Record<string, number> = { critical: 10, high: 8, medium: 5, low: 3 };

/** Header fields: backslash and pipe are escaped; a header cannot span lines, so line breaks become spaces. */
export function cefHeader(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r\n|\r|\n/g, ' ');
}

/** Extension values: backslash and equals sign are escaped, line breaks written as \n and \r. */
export function cefValue(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/=/g, '\\=')
    .replace(/\r\n|\n/g, '\\n')
    .replace(/\r/g, '\\r');
}

export function toCef(event: FindingEvent, version: string): string {
  const extension: Array<[string, string | number | null]> = [
    ['rt', Date.parse(event.last_seen_at)],
    ['start', Date.parse(event.at)],
    ['end', Date.parse(event.last_seen_at)],
    ['externalId', event.id],
    ['cat', event.type],
    ['suser', event.agent],
    ['cs1Label', 'subject'],
    ['cs1', event.subject],
    ['cs2Label', 'fingerprint'],
    ['cs2', event.fingerprint],
    ['cs3Label', 'decision_id'],
    ['cs3', event.decision_id],
    ['cnt', event.occurrences],
    ['outcome', event.status],
  ];
  const header = ['CEF:0', 'Parapet', 'Parapet', version, event.type, event.title, String(CEF_SEVERITY[event.severity] ?? 0)].map((field, index) =>
    index === 0 ? field : cefHeader(field),
  );
  const ext = extension
    .filter(([, value]) => value !== null)
    .map(([key, value]) => `${key}=${cefValue(String(value))}`)
    .join(' ');
  return `${header.join('|')}|${ext}`;
}

// OCSF --------------------------------------------------------------------------------------------

/** OCSF severity_id: 1 Informational, 2 Low, 3 Medium, 4 High, 5 Critical (0 Unknown). */
export const OCSF_SEVERITY: Record<string, { id: number; name: string }> = {
  low: { id: 2, name: 'Low' },
  medium: { id: 3, name: 'Medium' },
  high: { id: 4, name: 'High' },
  critical: { id: 5, name: 'Critical' },
};

/** OCSF finding status_id: 1 New, 3 Suppressed, 4 Resolved (0 Unknown). */
export const OCSF_STATUS: Record<string, { id: number; name: string }> = {
  open: { id: 1, name: 'New' },
  suppressed: { id: 3, name: 'Suppressed' },
  resolved: { id: 4, name: 'Resolved' },
};

export const OCSF_SCHEMA_VERSION = '1.1.0';
const DETECTION_FINDING = 2004;

export interface OcsfDetectionFinding {
  activity_id: number;
  activity_name: string;
  category_uid: number;
  category_name: string;
  class_uid: number;
  class_name: string;
  type_uid: number;
  type_name: string;
  severity_id: number;
  severity: string;
  status_id: number;
  status: string;
  time: number;
  message: string;
  count: number;
  finding_info: { uid: string; title: string; types: string[]; created_time: number; modified_time: number; first_seen_time: number; last_seen_time: number };
  metadata: { product: { name: string; vendor_name: string; version: string }; version: string };
  unmapped: { subject: string; agent: string | null; fingerprint: string; decision_id: string | null };
}

export function toOcsf(event: FindingEvent, version: string): OcsfDetectionFinding {
  // A finding seen once is new; a recurrence updates the same finding (spec 01 §2.6).
  const activity = event.occurrences > 1 ? { id: 2, name: 'Update' } : { id: 1, name: 'Create' };
  const severity = OCSF_SEVERITY[event.severity] ?? { id: 0, name: 'Unknown' };
  const status = OCSF_STATUS[event.status] ?? { id: 0, name: 'Unknown' };
  const created = Date.parse(event.at);
  const modified = Date.parse(event.last_seen_at);
  return {
    activity_id: activity.id,
    activity_name: activity.name,
    category_uid: 2,
    category_name: 'Findings',
    class_uid: DETECTION_FINDING,
    class_name: 'Detection Finding',
    type_uid: DETECTION_FINDING * 100 + activity.id,
    type_name: `Detection Finding: ${activity.name}`,
    severity_id: severity.id,
    severity: severity.name,
    status_id: status.id,
    status: status.name,
    time: modified,
    message: event.title,
    count: event.occurrences,
    finding_info: {
      uid: event.id,
      title: event.title,
      types: [event.type],
      created_time: created,
      modified_time: modified,
      first_seen_time: created,
      last_seen_time: modified,
    },
    metadata: { product: { name: 'Parapet', vendor_name: 'Parapet', version }, version: OCSF_SCHEMA_VERSION },
    unmapped: { subject: event.subject, agent: event.agent, fingerprint: event.fingerprint, decision_id: event.decision_id },
  };
}
