// The findings queue for people (spec 01 §2.6, §3): list, read and move findings between open,
// suppressed and resolved. Recurrence (reopening, false_resolution) is the recorder's; this
// service handles what a person does, each change audited in the same transaction.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import type { FindingRow } from '../../infra/store/tables.js';
import { FINDING_TYPES, type FindingType } from '../../engine/findings/catalog.js';
import type { Finding, FindingStatus, ListFindingsQuery, PatchFindingBody } from './schemas.js';
import { findFinding, listFindings, updateFindingStatus } from './store.js';

/**
 * Every status change a person may make: what it needs and how it is audited. Spec 01 §3 names
 * open → suppressed (suppression_reason) and open → resolved (note); what leaves suppressed and
 * resolved is ours: undoing a decision needs a note saying why, as resolving does.
 */
export const TRANSITIONS: ReadonlyArray<{
  from: FindingStatus;
  to: FindingStatus;
  needs: 'suppression_reason' | 'note';
  action: 'finding.suppress' | 'finding.resolve' | 'finding.reopen' | 'finding.unsuppress';
}> = [
  { from: 'open', to: 'suppressed', needs: 'suppression_reason', action: 'finding.suppress' },
  { from: 'open', to: 'resolved', needs: 'note', action: 'finding.resolve' },
  { from: 'suppressed', to: 'open', needs: 'note', action: 'finding.unsuppress' },
  { from: 'suppressed', to: 'resolved', needs: 'note', action: 'finding.resolve' },
  { from: 'resolved', to: 'open', needs: 'note', action: 'finding.reopen' },
  { from: 'resolved', to: 'suppressed', needs: 'suppression_reason', action: 'finding.suppress' },
];

export function toWire(row: FindingRow): Finding {
  return {
    id: row.id,
    type: row.type,
    severity: row.severity as Finding['severity'],
    status: row.status as FindingStatus,
    title: row.title,
    subject: row.subject,
    agent: row.agent,
    at: row.at,
    last_seen_at: row.last_seen_at,
    occurrences: Number(row.occurrences),
    fingerprint: row.fingerprint,
    evidence: parseEvidence(row.evidence),
    decision_id: row.decision_id,
    suppression_reason: row.suppression_reason,
    resolution_note: row.resolution_note,
    status_changed_at: row.status_changed_at,
    status_changed_by: row.status_changed_by,
    reopened_count: Number(row.reopened_count),
  };
}

function parseEvidence(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { raw: text };
  }
}

const blank = (value: string | undefined): boolean => value === undefined || value.trim() === '';

export class FindingService {
  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  types(): { items: FindingType[]; next_cursor: null } {
    return { items: [...FINDING_TYPES], next_cursor: null };
  }

  async list(query: ListFindingsQuery): Promise<{ items: Finding[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const rows = await listFindings(this.store.db, {
      status: query.status,
      severity: query.severity,
      type: query.type,
      agent: query.agent,
      before: decodeCursor(query.cursor),
      limit: limit + 1,
    });
    const page = pageOf(rows, limit);
    return { items: page.items.map(toWire), next_cursor: page.next_cursor };
  }

  async get(id: string): Promise<Finding> {
    const row = await findFinding(this.store.db, id);
    if (row === undefined) throw notFound('finding', id);
    return toWire(row);
  }

  /** PATCH /api/findings/{id}: one transition of TRANSITIONS, refused before anything is written. */
  async patch(caller: Principal, id: string, body: PatchFindingBody): Promise<Finding> {
    const actor = actorOf(caller);
    // Read and checked outside the transaction: on SQLite its first statement must be the write,
    // or a batch the recorder commits in between would make the upgrade to a write lock fail.
    const row = await findFinding(this.store.db, id);
    if (row === undefined) throw notFound('finding', id);
    const from = row.status as FindingStatus;
    if (from === body.status) throw problem('conflict', `finding ${id} is already ${from}`);
    const transition = TRANSITIONS.find((item) => item.from === from && item.to === body.status);
    if (transition === undefined) throw problem('conflict', `finding ${id} cannot move from ${from} to ${body.status}`);
    // A reason that belongs to another transition would be silently dropped: refuse it instead.
    if (body.suppression_reason !== undefined && body.status !== 'suppressed') {
      throw problem('invalid-request', 'suppression_reason goes with status suppressed; explain other changes in note', [
        { field: '/body/suppression_reason', message: 'only with status suppressed' },
      ]);
    }
    const given = transition.needs === 'note' ? body.note : body.suppression_reason;
    if (blank(given)) {
      // CONTRACT.md "Answers": a refusal the specification names on an otherwise valid body is a 422.
      throw problem('refused', `moving a finding from ${from} to ${body.status} needs ${transition.needs}`, [
        { field: `/body/${transition.needs}`, message: `required to move from ${from} to ${body.status}` },
      ]);
    }
    const now = this.clock.now().toISOString();
    const changes: Parameters<typeof updateFindingStatus>[3] = { status: body.status, status_changed_at: now, status_changed_by: actor };
    if (body.status === 'suppressed') changes.suppression_reason = body.suppression_reason ?? null;
    if (body.status === 'resolved') changes.resolution_note = body.note ?? null;
    if (from === 'resolved' && body.status === 'open') changes.reopened_count = Number(row.reopened_count) + 1;
    await this.audit.transact(async (trx, append) => {
      // Conditional on the status read above: a recurrence or another person in between is a 409.
      if (!(await updateFindingStatus(trx, id, from, changes))) throw problem('conflict', `finding ${id} changed meanwhile; read it again`);
      await append({
        actor,
        action: transition.action,
        target: id,
        detail: {
          type: row.type,
          subject: row.subject,
          fingerprint: row.fingerprint,
          from,
          to: body.status,
          ...(body.suppression_reason === undefined ? {} : { suppression_reason: body.suppression_reason }),
          ...(body.note === undefined ? {} : { note: body.note }),
        },
      });
    });
    // Read back: a batch may have added occurrences since the first read.
    return toWire((await findFinding(this.store.db, id)) ?? { ...row, ...changes });
  }
}
