// Approvals for held tool calls. The pipeline holds an escalated tool call here (pending); a
// person approves or denies it; the same agent's same call (tool and canonical arguments) that
// carries the approval id then goes through exactly once: using an approval is one conditional
// update, so two concurrent retries (in one process or several) cannot both pass. A call has at
// most one pending approval: retries while it waits (or after its approval was used) are held on
// that same approval, by a unique key on pending approvals.
import { createHash } from 'node:crypto';
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { ApprovalGate } from '../../engine/pipeline/decide.js';
import type { Store } from '../../infra/store/db.js';
import { readJsonStrings, writeJson } from '../../infra/store/json-columns.js';
import type { ApprovalRow } from '../../infra/store/tables.js';
import type { Approval, ListApprovalsQuery } from './schemas.js';
import * as approvals from './store.js';

/** How long a held call waits for a person before its approval lapses. */
export const APPROVAL_TTL_MS = 24 * 3_600_000;

const HOLD_ROUNDS = 5;

/** The one-pending-approval key of a call (also computed by migration 2026-11-25-11, which must not change). */
export const pendingKeyOf = (agent: string, tool: string, argumentsSha256: string): string =>
  createHash('sha256').update(JSON.stringify([agent, tool, argumentsSha256])).digest('hex');

export class ApprovalService implements ApprovalGate {
  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  toWire(row: ApprovalRow): Approval {
    const now = this.clock.now().toISOString();
    const lapsed = (row.status === 'pending' || row.status === 'approved') && row.expires_at <= now;
    return {
      id: row.id,
      agent: row.agent,
      tool: row.tool,
      arguments: row.arguments,
      arguments_sha256: row.arguments_sha256,
      decision_id: row.decision_id,
      rules: readJsonStrings(row.rules),
      reason: row.reason,
      status: lapsed ? 'expired' : row.status,
      created_at: row.created_at,
      expires_at: row.expires_at,
      decided_at: row.decided_at,
      decided_by: row.decided_by,
      rationale: row.rationale,
      used_at: row.used_at,
      used_decision_id: row.used_decision_id,
    };
  }

  /**
   * Holds a call for a person: returns the pending approval of the same agent, tool and canonical
   * arguments when there is one, else opens one. The unique `pending_key` makes this exact across
   * concurrent requests and gateway processes: an insert that loses the race does nothing, and the
   * next round reads the winner's approval.
   */
  async hold(input: Parameters<ApprovalGate['hold']>[0]): Promise<string> {
    const key = pendingKeyOf(input.agent, input.tool, input.argumentsDigest);
    // Each round ends with a pending approval found or opened, unless another request decided or
    // lapsed it in between; a few rounds are plenty.
    for (let round = 0; round < HOLD_ROUNDS; round += 1) {
      const now = this.clock.now();
      const existing = await approvals.findByPendingKey(this.store.db, key);
      if (existing !== undefined) {
        if (existing.expires_at > now.toISOString()) return existing.id;
        // Lapsed: the row stays (it reads as expired) and gives up the key to a fresh approval.
        await approvals.releasePendingKey(this.store.db, existing.id, key);
      }
      const id = newId('apr');
      const inserted = await approvals.insertPending(this.store.db, {
        id,
        agent: input.agent,
        tool: input.tool,
        arguments_sha256: input.argumentsDigest,
        arguments: input.arguments,
        decision_id: input.decisionId,
        rules: writeJson(input.rules),
        reason: input.reason,
        status: 'pending',
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + APPROVAL_TTL_MS).toISOString(),
        decided_at: null,
        decided_by: null,
        rationale: null,
        used_at: null,
        used_decision_id: null,
        pending_key: key,
      });
      if (inserted !== undefined) return id;
    }
    throw problem('unavailable', `the approval of this ${input.tool} call changed while the call was being held; try again`);
  }

  async use(input: Parameters<ApprovalGate['use']>[0]): Promise<{ ok: true } | { ok: false; why: string }> {
    const now = this.clock.now().toISOString();
    const result = await approvals.markUsed(this.store.db, input, now);
    if (Number(result.numUpdatedRows) > 0) return { ok: true };
    const row = await approvals.findApproval(this.store.db, input.approvalId);
    if (row === undefined) return { ok: false, why: 'no such approval' };
    if (row.agent !== input.agent) return { ok: false, why: 'it was given for another agent' };
    if (row.tool !== input.tool) return { ok: false, why: `it was given for tool ${row.tool}` };
    if (row.arguments_sha256 !== input.argumentsDigest) return { ok: false, why: 'it was given for other arguments' };
    if (row.status === 'used') return { ok: false, why: 'it was already used' };
    if (row.status === 'denied') return { ok: false, why: 'it was denied' };
    if (row.expires_at <= now) return { ok: false, why: 'it expired' };
    return { ok: false, why: 'it is still pending' };
  }

  async list(query: ListApprovalsQuery, agent?: string): Promise<{ items: Approval[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const now = this.clock.now().toISOString();
    const before = decodeCursor(query.cursor);
    const rows = await approvals.listApprovals(this.store.db, { limit: limit + 1, agent, before, status: query.status, now });
    const page = pageOf(rows, limit);
    return { items: page.items.map((row) => this.toWire(row)), next_cursor: page.next_cursor };
  }

  /** An operator reads any approval; an agent credential only its own agent's. */
  async get(caller: Principal, id: string): Promise<Approval> {
    const row = await approvals.findApproval(this.store.db, id);
    // The same answer for another agent's approval as for none: ids do not leak across agents.
    if (row === undefined || (caller.kind === 'agent' && caller.agentSlug !== row.agent)) throw notFound('approval', id);
    return this.toWire(row);
  }

  async decide(caller: Principal, id: string, outcome: 'approved' | 'denied', rationale?: string): Promise<Approval> {
    const row = await approvals.findApproval(this.store.db, id);
    if (row === undefined) throw notFound('approval', id);
    const now = this.clock.now().toISOString();
    if (row.status !== 'pending') throw problem('conflict', `approval ${id} is already ${row.status}`);
    if (row.expires_at <= now) throw problem('conflict', `approval ${id} expired at ${row.expires_at}; the call must be made again`);
    const actor = actorOf(caller);
    await this.audit.transact(async (trx, append) => {
      const decided = await approvals.decidePending(trx, id, { status: outcome, decided_at: now, decided_by: actor, rationale: rationale ?? null });
      if (!decided) throw problem('conflict', `approval ${id} was decided meanwhile`);
      await append({
        actor,
        action: outcome === 'approved' ? 'approval.approve' : 'approval.deny',
        target: id,
        detail: { agent: row.agent, tool: row.tool, rationale: rationale ?? null },
      });
    });
    return this.toWire({ ...row, status: outcome, decided_at: now, decided_by: actor, rationale: rationale ?? null });
  }
}
