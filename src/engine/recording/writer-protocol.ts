// Messages between the recorder (main thread) and the SQLite writer worker.
import type { TraceRow } from '../../infra/store/tables.js';

export const TRACE_COLUMNS = [
  'id', 'at', 'agent', 'subject', 'surface', 'tool', 'verdict', 'effective_verdict', 'mode', 'rules', 'entities', 'degraded',
  'detectors', 'latency_ms', 'content_sha256', 'content_length', 'content', 'session_id', 'trace_id', 'environment', 'facts', 'canary',
] as const satisfies ReadonlyArray<keyof TraceRow>;

/**
 * The update branch of the finding upsert shared by both dialects, after occurrences and severity
 * (spec 01 §3): evidence and last_seen_at refreshed; a resolved finding reopens (reopened_count
 * + 1, changed by 'recurrence', its resolution_note kept for history); a suppressed one stays
 * suppressed. Every `findings.*` on the right is the row before this update.
 */
export const FINDING_UPSERT_SET = `
    last_seen_at = excluded.last_seen_at,
    evidence = excluded.evidence,
    decision_id = excluded.decision_id,
    title = excluded.title,
    status = case when findings.status = 'resolved' then 'open' else findings.status end,
    reopened_count = findings.reopened_count + case when findings.status = 'resolved' then 1 else 0 end,
    status_changed_at = case when findings.status = 'resolved' then excluded.last_seen_at else findings.status_changed_at end,
    status_changed_by = case when findings.status = 'resolved' then 'recurrence' else findings.status_changed_by end`;

/** Fingerprints per query when a batch looks up which of its findings are resolved. */
export const RESOLVED_CHUNK = 500;

/** One finding upsert, named as the statement's parameters. */
export interface FindingParams {
  id: string;
  fingerprint: string;
  type: string;
  /** What a new row gets: the detection's severity already raised for `count` (recurrence.ts). */
  severity: string;
  severity_rank: number;
  /** The detection's own severity rank; an existing row is raised from it for its new total. */
  base_rank: number;
  title: string;
  subject: string;
  agent: string | null;
  at: string;
  count: number;
  evidence: string;
  decision_id: string | null;
}

export interface WriterBatch {
  id: number;
  traces: TraceRow[];
  findings: FindingParams[];
}

/** code: SQLite's error code (SQLITE_BUSY, SQLITE_CONSTRAINT_PRIMARYKEY, ...), so the recorder can tell an outage from a bad row. */
export type WriterReply = { id: number; ok: true } | { id: number; ok: false; error: string; code?: string };
