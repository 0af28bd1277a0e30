// Change proposals: every saved policy version opens one, with its rule-level diff, its replay over
// recent traffic (evidence) and the lint of the set it would make (proof). People decide it with a
// note; an approved proposal is applied (the version goes live), verified afterwards (false rolls
// it back), or rolled back with a reason. A loosening needs approvers other than its author: two
// different people at org level, one below. Statuses: pending, approved, rejected, canary (a canary
// of its version is running), applied, verified, rolled_back.
import type { Transaction } from 'kysely';
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { Store } from '../../infra/store/db.js';
import { readJson, writeJson } from '../../infra/store/json-columns.js';
import type { Database, ProposalsTable } from '../../infra/store/tables.js';
import {
  findLiveVersion,
  findProposal,
  findProposalCanaryState,
  findProposalForVersion,
  findProposalTarget,
  insertDecision,
  insertProposal,
  listDecisions,
  listDecisionsInOrder,
  listDecisionsOf,
  listProposals,
  setVersionStatus,
  updateProposal,
} from './store.js';

export type ProposalRow = ProposalsTable;
type Trx = Transaction<Database>;

/** What the proposals need from the policy lifecycle (set after both are built: they refer to each other). */
export interface PolicyLifecycle {
  makeLive(trx: Trx, key: string, version: number | null, at: string): Promise<void>;
  sync(): Promise<void>;
  /** Ends a running canary of the policy without making its candidate live; false when none runs. */
  stopCanary(trx: Trx, key: string, at: string, why: string): Promise<boolean>;
}

export interface NewProposal {
  key: string;
  level: string;
  scopeId: string;
  fromVersion: number | null;
  toVersion: number;
  loosening: boolean;
  title: string;
  diff: unknown;
  evidence: unknown;
  proof: unknown;
  actor: string;
  at: string;
}

export interface ProposalView {
  id: string;
  kind: string;
  status: string;
  scope_level: string;
  scope_id: string;
  policy_key: string;
  from_version: number | null;
  to_version: number;
  loosening: boolean;
  approvals_needed: number;
  approvals: number;
  title: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  applied_at: string | null;
  verified_note: string | null;
  rollback_reason: string | null;
}

export interface ProposalDetail extends ProposalView {
  diff: unknown;
  evidence: unknown;
  proof: unknown;
  decisions: Array<{ actor: string; approve: boolean; note: string; at: string }>;
}

const LIVE_STATUSES = ['applied', 'verified'];

export class ProposalService {
  private lifecycle: PolicyLifecycle | null = null;

  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  bind(lifecycle: PolicyLifecycle): void {
    this.lifecycle = lifecycle;
  }

  private get policies(): PolicyLifecycle {
    if (this.lifecycle === null) throw new Error('ProposalService used before bind()');
    return this.lifecycle;
  }

  async create(trx: Trx, input: NewProposal): Promise<ProposalRow> {
    const row: ProposalRow = {
      id: newId('prop'),
      kind: 'policy_version',
      status: 'pending',
      scope_level: input.level,
      scope_id: input.scopeId,
      policy_key: input.key,
      from_version: input.fromVersion,
      to_version: input.toVersion,
      loosening: input.loosening ? 1 : 0,
      approvals_needed: input.loosening && input.level === 'org' ? 2 : 1,
      title: input.title,
      diff: writeJson(input.diff),
      evidence: writeJson(input.evidence),
      proof: writeJson(input.proof),
      created_by: input.actor,
      created_at: input.at,
      updated_at: input.at,
      applied_at: null,
      verified_note: null,
      rollback_reason: null,
    };
    await insertProposal(trx, row);
    return row;
  }

  async forVersion(key: string, version: number): Promise<ProposalRow | undefined> {
    return findProposalForVersion(this.store.db, key, version);
  }

  async markApplied(trx: Trx, id: string, at: string): Promise<void> {
    await updateProposal(trx, id, { status: 'applied', applied_at: at, updated_at: at });
    const row = await findProposalTarget(trx, id);
    await setVersionStatus(trx, row.policy_key, row.to_version, 'approved');
  }

  async list(query: { status?: string; kind?: string; scope_level?: string; scope_id?: string; limit?: number }): Promise<ProposalView[]> {
    const rows = await listProposals(this.store.db, query, query.limit ?? 50);
    const counts = await this.approvalCounts(rows);
    return rows.map((row) => this.view(row, counts.get(row.id) ?? 0));
  }

  async get(id: string): Promise<ProposalDetail> {
    const row = await this.row(id);
    const decisions = await listDecisionsInOrder(this.store.db, id);
    return {
      ...this.view(row, countingApprovals(row, decisions)),
      diff: readJson<unknown>(row.diff, null),
      evidence: readJson<unknown>(row.evidence, null),
      proof: readJson<unknown>(row.proof, null),
      decisions: decisions.map((decision) => ({ actor: decision.actor, approve: decision.approve === 1, note: decision.note, at: decision.at })),
    };
  }

  async decide(caller: Principal, id: string, body: { approve: boolean; note: string }): Promise<ProposalDetail> {
    const actor = actorOf(caller);
    const person = personOf(caller);
    const at = this.clock.now().toISOString();
    await this.audit.transact(async (trx, append) => {
      const row = await findProposal(trx, id);
      if (row === undefined) throw notFound('proposal', id);
      if (row.status !== 'pending') throw problem('conflict', `proposal ${id} is ${row.status}; only a pending proposal is decided`);
      const decisions = await listDecisions(trx, id);
      if (decisions.some((decision) => personOfActor(decision.actor) === person)) {
        throw problem('conflict', `${actor} has already decided proposal ${id}; a second approval must come from a different person`);
      }
      if (body.approve && row.loosening === 1 && personOfActor(row.created_by) === person) {
        throw problem('conflict', `proposal ${id} loosens policy ${row.policy_key}; its author cannot approve it`);
      }
      await insertDecision(trx, { id: newId('pdec'), proposal_id: id, actor, approve: body.approve ? 1 : 0, note: body.note, at });
      let status = row.status;
      if (!body.approve) status = 'rejected';
      else if (countingApprovals(row, [...decisions, { actor, approve: 1 }]) >= row.approvals_needed) status = 'approved';
      if (status !== row.status) {
        await updateProposal(trx, id, { status, updated_at: at });
        await setVersionStatus(trx, row.policy_key, row.to_version, status === 'rejected' ? 'rejected' : 'approved');
      }
      await append({ actor, action: body.approve ? 'proposal.approve' : 'proposal.reject', target: id, detail: { note: body.note, status, policy: `${row.policy_key}@${row.to_version}` } });
    });
    return this.get(id);
  }

  /** Makes an approved proposal's version live, or settles one whose canary finished (the canary made it live). */
  async apply(caller: Principal, id: string): Promise<ProposalDetail> {
    const at = this.clock.now().toISOString();
    await this.audit.transact(async (trx, append) => {
      const row = await findProposal(trx, id);
      if (row === undefined) throw notFound('proposal', id);
      if (row.status === 'canary') {
        const canary = await findProposalCanaryState(trx, id);
        if (canary?.state === 'running') throw problem('conflict', `the canary of proposal ${id} is still running; advance it to the end or roll it back`);
        if (canary?.state !== 'completed') throw problem('conflict', `the canary of proposal ${id} did not finish (${canary?.state ?? 'none'})`);
      } else if (row.status !== 'approved') {
        throw problem('conflict', `proposal ${id} is ${row.status}; only an approved proposal is applied`);
      } else {
        await this.policies.makeLive(trx, row.policy_key, row.to_version, at);
      }
      await updateProposal(trx, id, { status: 'applied', applied_at: at, updated_at: at });
      await append({ actor: actorOf(caller), action: 'proposal.apply', target: id, detail: { policy: `${row.policy_key}@${row.to_version}`, from_version: row.from_version } });
    });
    await this.policies.sync();
    return this.get(id);
  }

  async verify(caller: Principal, id: string, body: { verified: boolean; note: string }): Promise<ProposalDetail> {
    if (!body.verified) return this.rollback(caller, id, { reason: body.note }, 'verify');
    const at = this.clock.now().toISOString();
    await this.audit.transact(async (trx, append) => {
      const row = await findProposal(trx, id);
      if (row === undefined) throw notFound('proposal', id);
      if (row.status !== 'applied') throw problem('conflict', `proposal ${id} is ${row.status}; only an applied proposal is verified`);
      await updateProposal(trx, id, { status: 'verified', verified_note: body.note, updated_at: at });
      await append({ actor: actorOf(caller), action: 'proposal.verify', target: id, detail: { verified: true, note: body.note } });
    });
    return this.get(id);
  }

  /** Undoes an applied (or verified) proposal, or stops its running canary: the previous version is live again. */
  async rollback(caller: Principal, id: string, body: { reason: string }, via: 'rollback' | 'verify' = 'rollback'): Promise<ProposalDetail> {
    const at = this.clock.now().toISOString();
    await this.audit.transact(async (trx, append) => {
      const row = await findProposal(trx, id);
      if (row === undefined) throw notFound('proposal', id);
      const allowed = via === 'verify' ? ['applied'] : [...LIVE_STATUSES, 'canary'];
      if (!allowed.includes(row.status)) {
        throw problem('conflict', `proposal ${id} is ${row.status}; ${via === 'verify' ? 'only an applied proposal is verified' : 'only an applied, verified or canaried proposal is rolled back'}`);
      }
      if (row.status === 'canary') {
        await this.policies.stopCanary(trx, row.policy_key, at, body.reason);
      } else {
        const policy = await findLiveVersion(trx, row.policy_key);
        if (policy?.live_version !== row.to_version) {
          throw problem('conflict', `policy ${row.policy_key} is no longer at version ${row.to_version} (live: ${policy?.live_version ?? 'none'}); roll back the newer change instead`);
        }
        await this.policies.makeLive(trx, row.policy_key, row.from_version, at);
      }
      await updateProposal(trx, id, { status: 'rolled_back', rollback_reason: body.reason, updated_at: at });
      await append({
        actor: actorOf(caller),
        action: via === 'verify' ? 'proposal.verify' : 'proposal.rollback',
        target: id,
        detail: { reason: body.reason, restored_version: row.from_version, ...(via === 'verify' ? { verified: false } : {}) },
      });
    });
    await this.policies.sync();
    return this.get(id);
  }

  private async row(id: string): Promise<ProposalRow> {
    const row = await findProposal(this.store.db, id);
    if (row === undefined) throw notFound('proposal', id);
    return row;
  }

  private async approvalCounts(rows: readonly ProposalRow[]): Promise<Map<string, number>> {
    if (rows.length === 0) return new Map();
    const decisions = await listDecisionsOf(
      this.store.db,
      rows.map((row) => row.id),
    );
    return new Map(rows.map((row) => [row.id, countingApprovals(row, decisions.filter((decision) => decision.proposal_id === row.id))]));
  }

  private view(row: ProposalRow, approvals: number): ProposalView {
    return {
      id: row.id,
      kind: row.kind,
      status: row.status,
      scope_level: row.scope_level,
      scope_id: row.scope_id,
      policy_key: row.policy_key,
      from_version: row.from_version,
      to_version: row.to_version,
      loosening: row.loosening === 1,
      approvals_needed: row.approvals_needed,
      approvals,
      title: row.title,
      created_by: row.created_by,
      created_at: row.created_at,
      updated_at: row.updated_at,
      applied_at: row.applied_at,
      verified_note: row.verified_note,
      rollback_reason: row.rollback_reason,
    };
  }
}

/**
 * Approvals that count: one per person; a loosening's author does not count. A person is the
 * owner of the token (tokens of one owner are one person), so two tokens do not make two approvers.
 */
function countingApprovals(row: ProposalRow, decisions: ReadonlyArray<{ actor: string; approve: number }>): number {
  const people = new Set<string>();
  for (const decision of decisions) {
    if (decision.approve !== 1) continue;
    const person = personOfActor(decision.actor);
    if (row.loosening === 1 && person === personOfActor(row.created_by)) continue;
    people.add(person);
  }
  return people.size;
}

function personOf(principal: Principal): string {
  return personOfActor(actorOf(principal));
}

/** `owner (token id)` → owner: the audit actor names the token; the person is its owner. */
function personOfActor(actor: string): string {
  const open = actor.lastIndexOf(' (');
  return open === -1 ? actor : actor.slice(0, open);
}
