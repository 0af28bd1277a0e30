// Messages between the recorder (main thread) and the SQLite writer worker.
import type { TraceRow } from '../store/tables.js';

export const TRACE_COLUMNS = [
  'id', 'at', 'agent', 'subject', 'surface', 'tool', 'verdict', 'effective_verdict', 'mode', 'rules', 'entities', 'degraded',
  'detectors', 'latency_ms', 'content_sha256', 'content_length', 'content', 'session_id', 'trace_id', 'environment',
] as const satisfies ReadonlyArray<keyof TraceRow>;

/** One finding upsert, named as the statement's parameters. */
export interface FindingParams {
  id: string;
  fingerprint: string;
  type: string;
  severity: string;
  severity_rank: number;
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

export type WriterReply = { id: number; ok: true } | { id: number; ok: false; error: string };
