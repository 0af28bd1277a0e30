// Canaries: a candidate version decides a growing share of the calls its policy applies to, step by
// step. Each call in the canary's window is marked on its trace (`<id>:candidate` or `<id>:baseline`),
// so `advance` compares the two cohorts' block rates since the step began: with too few calls or too
// little time it holds; a candidate that blocks more than `max_block_rate_delta` above the baseline,
// or less than the baseline by more than `max_block_rate_drop`, is rolled back by itself; otherwise
// the canary moves to the next step, and past the last one the candidate is live.
import type { Transaction } from 'kysely';
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { Store } from '../../infra/store/db.js';
import { readJson, writeJson } from '../../infra/store/json-columns.js';
import type { Database, PolicyCanariesTable } from '../../infra/store/tables.js';
import type { CanaryStartBody } from './schemas.js';
import {
  canaryCohortCounts,
  findLatestCanary,
  findPolicy,
  findPolicyKey,
  findRunningCanary,
  findRunningCanaryId,
  findRunningCanaryRef,
  findVersionStatus,
  insertCanary,
  markCanaryRolledBack,
  rollBackCanaryProposal,
  updateProposal,
  updateRunningCanary,
} from './store.js';

type Trx = Transaction<Database>;

export interface CanaryCohort {
  calls: number;
  blocked: number;
  block_rate: number | null;
}

export interface CanaryCheck {
  at: string;
  outcome: 'advanced' | 'held' | 'rolled_back' | 'completed';
  why: string;
  candidate: CanaryCohort;
  baseline: CanaryCohort;
  dwell_seconds: number;
}

export interface CanaryView {
  id: string;
  key: string;
  state: string;
  baseline_version: number;
  candidate_version: number;
  steps: number[];
  step_index: number;
  percent: number;
  max_block_rate_delta: number;
  max_block_rate_drop: number;
  min_dwell_seconds: number;
  min_sample: number;
  proposal_id: string | null;
  started_at: string;
  step_started_at: string;
  ended_at: string | null;
  last_check: CanaryCheck | null;
  created_by: string;
}

export interface CanaryLifecycle {
  makeLive(trx: Trx, key: string, version: number, at: string): Promise<void>;
  sync(): Promise<void>;
  /** The proposal of a saved version, to check a loosening was approved and to track the canary on it. */
  proposalFor(key: string, version: number): Promise<{ id: string; status: string; loosening: number; approvals_needed: number } | undefined>;
}

export const DEFAULT_STEPS = [5, 25, 50, 100];

export class CanaryService {
  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly lifecycle: CanaryLifecycle,
  ) {}

  async get(key: string): Promise<CanaryView> {
    const row = await findLatestCanary(this.store.db, key);
    if (row === undefined) {
      const policy = await findPolicyKey(this.store.db, key);
      throw policy === undefined ? notFound('policy', key) : notFound('canary of policy', key);
    }
    return view(row);
  }

  async start(caller: Principal, key: string, body: CanaryStartBody): Promise<CanaryView> {
    const steps = body.steps ?? DEFAULT_STEPS;
    if (steps.some((step, index) => index > 0 && step <= (steps[index - 1] as number))) {
      throw problem('invalid-request', 'steps must be cohort percentages in increasing order (for example [5, 25, 50, 100])');
    }
    const at = this.clock.now().toISOString();
    const id = newId('can');
    // Read before the transaction: on SQLite the transaction holds the only connection.
    const proposal = await this.lifecycle.proposalFor(key, body.candidate_version);
    await this.audit.transact(async (trx, append) => {
      const policy = await findPolicy(trx, key);
      if (policy === undefined) throw notFound('policy', key);
      if (policy.live_version === null || policy.bound !== 1) throw problem('conflict', `policy ${key} has no live version to compare a candidate with; make a version live first`);
      if (body.candidate_version === policy.live_version) throw problem('conflict', `version ${body.candidate_version} of policy ${key} is already live`);
      const version = await findVersionStatus(trx, key, body.candidate_version);
      if (version === undefined) throw problem('unknown-id', `policy ${key} has no saved version ${body.candidate_version}`);
      if (version.status === 'rejected') throw problem('conflict', `version ${body.candidate_version} of policy ${key} was rejected`);
      const running = await findRunningCanaryId(trx, key);
      if (running !== undefined) throw problem('conflict', `a canary of policy ${key} is already running (${running.id}); advance or roll it back first`);
      if (proposal !== undefined && proposal.loosening === 1 && proposal.status !== 'approved') {
        throw problem('conflict', `version ${body.candidate_version} loosens policy ${key}; its proposal ${proposal.id} needs ${proposal.approvals_needed} approval(s) before a canary`);
      }
      await insertCanary(trx, {
        id,
        key,
        baseline_version: policy.live_version,
        candidate_version: body.candidate_version,
        steps: writeJson(steps),
        step_index: 0,
        max_block_rate_delta: body.max_block_rate_delta ?? 0.05,
        max_block_rate_drop: body.max_block_rate_drop ?? 0.2,
        min_dwell_seconds: body.min_dwell_seconds ?? 300,
        min_sample: body.min_sample ?? 100,
        state: 'running',
        proposal_id: proposal?.id ?? null,
        started_at: at,
        step_started_at: at,
        ended_at: null,
        last_check: null,
        created_by: actorOf(caller),
      });
      if (proposal !== undefined && ['pending', 'approved'].includes(proposal.status)) {
        await updateProposal(trx, proposal.id, { status: 'canary', updated_at: at });
      }
      await append({ actor: actorOf(caller), action: 'policy.canary_start', target: key, detail: { canary: id, candidate_version: body.candidate_version, baseline_version: policy.live_version, steps } });
    });
    await this.lifecycle.sync();
    return this.get(key);
  }

  async advance(caller: Principal, key: string): Promise<CanaryView> {
    const now = this.clock.now();
    const at = now.toISOString();
    const row = await this.running(key);
    const dwell = Math.floor((now.getTime() - Date.parse(row.step_started_at)) / 1000);
    const [candidate, baseline] = await Promise.all([this.cohort(`${row.id}:candidate`, row.step_started_at), this.cohort(`${row.id}:baseline`, row.step_started_at)]);
    const steps = readJson<number[]>(row.steps, []);
    const last = row.step_index >= steps.length - 1;
    let outcome: CanaryCheck['outcome'];
    let why: string;
    const smallest = Math.min(candidate.calls, baseline.calls);
    // The last step sends every call to the candidate, so there is no baseline cohort left to compare.
    const enough = last && (steps[row.step_index] ?? 0) >= 100 ? candidate.calls >= row.min_sample : smallest >= row.min_sample;
    const delta = (candidate.block_rate ?? 0) - (baseline.block_rate ?? 0);
    if (dwell < row.min_dwell_seconds) {
      outcome = 'held';
      why = `the step has run ${dwell} s of the ${row.min_dwell_seconds} s it must dwell`;
    } else if (!enough) {
      outcome = 'held';
      why = `too few calls to compare: candidate ${candidate.calls}, baseline ${baseline.calls}, at least ${row.min_sample} each`;
    } else if (baseline.calls > 0 && delta > row.max_block_rate_delta) {
      outcome = 'rolled_back';
      why = `the candidate blocks ${pct(candidate.block_rate)} against ${pct(baseline.block_rate)}: ${pct(delta)} more, above the limit of ${pct(row.max_block_rate_delta)}`;
    } else if (baseline.calls > 0 && -delta > row.max_block_rate_drop) {
      outcome = 'rolled_back';
      why = `the candidate blocks ${pct(candidate.block_rate)} against ${pct(baseline.block_rate)}: ${pct(-delta)} less, beyond the allowed drop of ${pct(row.max_block_rate_drop)}`;
    } else if (last) {
      outcome = 'completed';
      why = `every step passed; version ${row.candidate_version} is live`;
    } else {
      outcome = 'advanced';
      why = `block rates within limits (candidate ${pct(candidate.block_rate)}, baseline ${pct(baseline.block_rate)}); moving to ${steps[row.step_index + 1]}%`;
    }
    const check: CanaryCheck = { at, outcome, why, candidate, baseline, dwell_seconds: dwell };
    await this.audit.transact(async (trx, append) => {
      const update: Partial<PolicyCanariesTable> = { last_check: writeJson(check) };
      if (outcome === 'advanced') Object.assign(update, { step_index: row.step_index + 1, step_started_at: at });
      if (outcome === 'rolled_back') Object.assign(update, { state: 'rolled_back', ended_at: at });
      if (outcome === 'completed') {
        Object.assign(update, { state: 'completed', ended_at: at });
        await this.lifecycle.makeLive(trx, key, row.candidate_version, at);
      }
      await updateRunningCanary(trx, row.id, update);
      if (row.proposal_id !== null && outcome === 'rolled_back') {
        await updateProposal(trx, row.proposal_id, { status: 'rolled_back', rollback_reason: `canary: ${why}`, updated_at: at });
      }
      await append({ actor: actorOf(caller), action: 'policy.canary_advance', target: key, detail: { canary: row.id, ...check } });
    });
    await this.lifecycle.sync();
    return this.get(key);
  }

  async rollback(caller: Principal, key: string): Promise<CanaryView> {
    await this.existing(key);
    const at = this.clock.now().toISOString();
    await this.audit.transact(async (trx, append) => {
      const stopped = await this.stop(trx, key, at, 'rolled back by an operator');
      if (!stopped) throw problem('conflict', `no canary of policy ${key} is running`);
      await append({ actor: actorOf(caller), action: 'policy.canary_rollback', target: key, detail: {} });
    });
    await this.lifecycle.sync();
    return this.get(key);
  }

  /** Ends the running canary of a policy (its proposal, if any, is rolled back); false when none runs. */
  async stop(trx: Trx, key: string, at: string, why: string): Promise<boolean> {
    const row = await findRunningCanaryRef(trx, key);
    if (row === undefined) return false;
    await markCanaryRolledBack(trx, row.id, at);
    if (row.proposal_id !== null) {
      await rollBackCanaryProposal(trx, row.proposal_id, why, at);
    }
    return true;
  }

  private async running(key: string): Promise<PolicyCanariesTable> {
    const row = await findRunningCanary(this.store.db, key);
    if (row === undefined) {
      await this.existing(key);
      throw problem('conflict', `no canary of policy ${key} is running`);
    }
    return row;
  }

  private async existing(key: string): Promise<void> {
    const policy = await findPolicyKey(this.store.db, key);
    if (policy === undefined) throw notFound('policy', key);
  }

  private async cohort(mark: string, since: string): Promise<CanaryCohort> {
    const { calls, blocked } = await canaryCohortCounts(this.store.db, mark, since);
    return { calls, blocked, block_rate: calls === 0 ? null : blocked / calls };
  }
}

const pct = (value: number | null): string => (value === null ? 'n/a' : `${(value * 100).toFixed(1)}%`);

function view(row: PolicyCanariesTable): CanaryView {
  const steps = readJson<number[]>(row.steps, []);
  return {
    id: row.id,
    key: row.key,
    state: row.state,
    baseline_version: row.baseline_version,
    candidate_version: row.candidate_version,
    steps,
    step_index: row.step_index,
    percent: row.state === 'running' ? (steps[row.step_index] ?? 0) : 0,
    max_block_rate_delta: row.max_block_rate_delta,
    max_block_rate_drop: row.max_block_rate_drop,
    min_dwell_seconds: row.min_dwell_seconds,
    min_sample: row.min_sample,
    proposal_id: row.proposal_id,
    started_at: row.started_at,
    step_started_at: row.step_started_at,
    ended_at: row.ended_at,
    last_check: readJson<CanaryCheck | null>(row.last_check, null),
    created_by: row.created_by,
  };
}
