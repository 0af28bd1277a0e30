// What recurrence does to a finding (spec 01 §3), shared by both write paths of the recorder (the
// PostgreSQL transaction and the SQLite worker thread). Pure: no I/O, the recorder runs the SQL.
import { newId } from '../../infra/lib/ids.js';
import type { FindingParams } from './writer-protocol.js';
import { findingType, SEVERITY_RANK, type Severity } from '../findings/catalog.js';
import { fingerprint } from '../findings/fingerprint.js';

export const SEVERITY_BY_RANK: Record<number, Severity> = { 1: 'low', 2: 'medium', 3: 'high', 4: 'critical' };

/** Occurrences at which recurrence alone raises a finding's severity one and two levels. */
export const SEVERITY_STEPS = [10, 100] as const;

/**
 * How many levels recurrence adds to the severity a detection reports: one at 10 occurrences,
 * two at 100. A problem that keeps happening deserves more attention than one that happened once.
 * @example recurrenceSteps(12) // 1
 */
export function recurrenceSteps(occurrences: number): number {
  return SEVERITY_STEPS.filter((step) => occurrences >= step).length;
}

/** The severity rank of a detection's severity raised for its occurrences, never above critical. */
export function raisedRank(baseRank: number, occurrences: number): number {
  return Math.min(SEVERITY_RANK.critical, baseRank + recurrenceSteps(occurrences));
}

/**
 * The same rule as SQL, for the update branch of the upsert: the stored rank, or the detection's
 * rank raised for the new total of occurrences when that is higher (never lowered).
 * `greatest`/`least` on PostgreSQL, the scalar `max`/`min` on SQLite.
 */
export function raisedRankSql(dialect: 'sqlite' | 'postgres', baseRank: string, count: string): string {
  const [greatest, least] = dialect === 'postgres' ? ['greatest', 'least'] : ['max', 'min'];
  const total = `(findings.occurrences + ${count})`;
  const steps = `(case when ${total} >= ${SEVERITY_STEPS[1]} then 2 when ${total} >= ${SEVERITY_STEPS[0]} then 1 else 0 end)`;
  return `${greatest}(findings.severity_rank, ${least}(${SEVERITY_RANK.critical}, ${baseRank} + ${steps}))`;
}

/** The severity name of a rank expression, as SQL. */
export function severityOfRankSql(rank: string): string {
  return `(case ${rank} when 4 then 'critical' when 3 then 'high' when 2 then 'medium' else 'low' end)`;
}

/** A finding that was resolved when its fingerprint came back, as the batch read it. */
export interface ResolvedFinding {
  id: string;
  fingerprint: string;
  type: string;
  title: string;
  subject: string;
  agent: string | null;
  resolution_note: string | null;
  status_changed_at: string | null;
  status_changed_by: string | null;
}

/**
 * The false_resolution finding raised when a resolved finding recurs: one per original finding
 * (fingerprint over 'false_resolution', the subject and the original fingerprint), so a finding
 * that is resolved and comes back again adds an occurrence rather than a new row.
 */
export function falseResolutionParams(original: ResolvedFinding, recurrence: FindingParams): FindingParams {
  const severity = findingType('false_resolution').default_severity;
  return {
    id: newId('fnd'),
    fingerprint: fingerprint('false_resolution', original.subject, [original.fingerprint]),
    type: 'false_resolution',
    severity,
    severity_rank: SEVERITY_RANK[severity],
    base_rank: SEVERITY_RANK[severity],
    title: `Resolved finding recurred: ${original.title}`,
    subject: original.subject,
    agent: original.agent,
    at: recurrence.at,
    count: 1,
    evidence: JSON.stringify({
      finding_id: original.id,
      finding_type: original.type,
      finding_fingerprint: original.fingerprint,
      resolution_note: original.resolution_note,
      resolved_at: original.status_changed_at,
      resolved_by: original.status_changed_by,
      recurred_at: recurrence.at,
      decision_id: recurrence.decision_id,
    }),
    decision_id: recurrence.decision_id,
  };
}

/** Splits a list for `in (...)` queries of bounded size. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let index = 0; index < items.length; index += size) out.push(items.slice(index, index + size));
  return out;
}
