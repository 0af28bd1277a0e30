// Storage of policies and their saved versions, and the reload of what is live into the registry.
// Every process reads the same rows (sync every second), so several gateways agree on what is in
// force; a change made here is also applied to this process's registry at once.
import type { Kysely, Transaction, Updateable } from 'kysely';
import { parsePack } from '../../engine/policy/parse.js';
import { policySignature, type BoundPolicy, type Compose, type PolicyLevel, type PolicyRegistry, type RunningCanary } from '../../engine/policy/registry.js';
import type { Mode, Pack } from '../../engine/policy/schema.js';
import type { Store } from '../../infra/store/db.js';
import { readJson } from '../../infra/store/json-columns.js';
import type {
  Database,
  PoliciesTable,
  PolicyCanariesTable,
  PolicyVersionsTable,
  ProposalDecisionsTable,
  ProposalsTable,
  SimulationsTable,
} from '../../infra/store/tables.js';

export type PolicyRow = PoliciesTable;
export type VersionRow = PolicyVersionsTable;
type Db = Kysely<Database> | Transaction<Database>;

/** Parsed packs by `key@version`: saved versions never change, so each is parsed once per process. */
const parsed = new Map<string, Pack>();

export function packOf(row: Pick<VersionRow, 'key' | 'version' | 'text' | 'mode'>): Pack {
  const cacheKey = `${row.key}@${row.version}`;
  let pack = parsed.get(cacheKey);
  if (pack === undefined) {
    pack = { ...parsePack(row.text), key: row.key, version: row.version, mode: row.mode as Mode };
    parsed.set(cacheKey, pack);
  }
  return pack;
}

export class PolicyStore {
  constructor(readonly store: Store) {}

  get db(): Kysely<Database> {
    return this.store.db;
  }

  async policy(key: string, db: Db = this.db): Promise<PolicyRow | undefined> {
    return findPolicy(db, key);
  }

  async policies(db: Db = this.db): Promise<PolicyRow[]> {
    return db.selectFrom('policies').selectAll().orderBy('key').execute();
  }

  async version(key: string, version: number, db: Db = this.db): Promise<VersionRow | undefined> {
    return db.selectFrom('policy_versions').selectAll().where('key', '=', key).where('version', '=', version).executeTakeFirst();
  }

  async versions(key: string, db: Db = this.db): Promise<VersionRow[]> {
    return db.selectFrom('policy_versions').selectAll().where('key', '=', key).orderBy('version', 'desc').execute();
  }

  async nextVersion(key: string, db: Db): Promise<number> {
    const row = await db.selectFrom('policy_versions').select((eb) => eb.fn.max('version').as('top')).where('key', '=', key).executeTakeFirst();
    return Number(row?.top ?? 0) + 1;
  }

  /** The live set: every bound policy with a live version, with its pack. */
  async live(db: Db = this.db): Promise<BoundPolicy[]> {
    const rows = await db
      .selectFrom('policies')
      .innerJoin('policy_versions', (join) => join.onRef('policy_versions.key', '=', 'policies.key').onRef('policy_versions.version', '=', 'policies.live_version'))
      .select([
        'policies.key',
        'policies.level',
        'policies.scope_id',
        'policies.compose',
        'policies.mode',
        'policies.origin',
        'policy_versions.version',
        'policy_versions.text',
        'policy_versions.mode as version_mode',
      ])
      .where('policies.bound', '=', 1)
      .orderBy('policies.created_at')
      .orderBy('policies.key')
      .execute();
    return rows.map((row) => ({
      key: row.key,
      level: row.level as PolicyLevel,
      scopeId: row.scope_id,
      compose: row.compose as Compose,
      mode: row.mode as Mode,
      version: row.version,
      pack: packOf({ key: row.key, version: row.version, text: row.text, mode: row.version_mode }),
      origin: row.origin,
    }));
  }

  async runningCanaries(db: Db = this.db): Promise<RunningCanary[]> {
    const rows = await db
      .selectFrom('policy_canaries')
      .innerJoin('policy_versions', (join) =>
        join.onRef('policy_versions.key', '=', 'policy_canaries.key').onRef('policy_versions.version', '=', 'policy_canaries.candidate_version'),
      )
      .select(['policy_canaries.id', 'policy_canaries.key', 'policy_canaries.steps', 'policy_canaries.step_index', 'policy_versions.version', 'policy_versions.text', 'policy_versions.mode'])
      .where('policy_canaries.state', '=', 'running')
      .execute();
    return rows.map((row) => {
      const steps = readJson<number[]>(row.steps, []);
      return {
        id: row.id,
        key: row.key,
        candidateVersion: row.version,
        candidate: packOf({ key: row.key, version: row.version, text: row.text, mode: row.mode }),
        percent: steps[row.step_index] ?? 0,
      };
    });
  }

  /** Reloads the registry from storage when anything changed. */
  async reload(registry: PolicyRegistry): Promise<void> {
    const [policies, canaries] = await Promise.all([this.live(), this.runningCanaries()]);
    const next = policySignature(policies, canaries);
    if (next !== registry.signature()) registry.load(policies, canaries);
  }
}

/** What an evidence package records of the policies in force, read from the registry. */
export function policySnapshot(registry: PolicyRegistry): Array<{ key: string; version: number; mode: string; fail_mode: string; rules: Array<{ id: string; effect: string; enabled: boolean; mode: string }> }> {
  return registry.list().map((policy) => ({
    key: policy.key,
    version: policy.version,
    mode: policy.mode,
    fail_mode: policy.pack.fail_mode ?? 'open',
    rules: policy.pack.rules.map((rule) => ({ id: rule.id, effect: rule.effect, enabled: rule.enabled !== false, mode: rule.mode ?? policy.mode })),
  }));
}

// ---- policies and versions ----

export async function findPolicy(db: Db, key: string): Promise<PolicyRow | undefined> {
  return db.selectFrom('policies').selectAll().where('key', '=', key).executeTakeFirst();
}

export async function findPolicyKey(db: Db, key: string): Promise<{ key: string } | undefined> {
  return db.selectFrom('policies').select('key').where('key', '=', key).executeTakeFirst();
}

export async function listPolicyKeys(db: Db): Promise<Array<{ key: string }>> {
  return db.selectFrom('policies').select('key').execute();
}

export async function findLiveVersion(db: Db, key: string): Promise<{ live_version: number | null } | undefined> {
  return db.selectFrom('policies').select(['live_version']).where('key', '=', key).executeTakeFirst();
}

export async function insertPolicy(db: Db, row: PolicyRow): Promise<void> {
  await db.insertInto('policies').values(row).execute();
}

/** Inserts unless a policy with the key exists (another process may be seeding at the same time). */
export async function insertPolicyIfMissing(db: Db, row: PolicyRow): Promise<void> {
  await db
    .insertInto('policies')
    .values(row)
    .onConflict((conflict) => conflict.column('key').doNothing())
    .execute();
}

export async function updatePolicy(db: Db, key: string, changes: Updateable<PoliciesTable>): Promise<void> {
  await db.updateTable('policies').set(changes).where('key', '=', key).execute();
}

export async function insertVersion(db: Db, row: VersionRow): Promise<void> {
  await db.insertInto('policy_versions').values(row).execute();
}

export async function insertVersionIfMissing(db: Db, row: VersionRow): Promise<void> {
  await db
    .insertInto('policy_versions')
    .values(row)
    .onConflict((conflict) => conflict.columns(['key', 'version']).doNothing())
    .execute();
}

export async function findVersionStatus(db: Db, key: string, version: number): Promise<{ status: string } | undefined> {
  return db.selectFrom('policy_versions').select(['status']).where('key', '=', key).where('version', '=', version).executeTakeFirst();
}

export async function setVersionStatus(db: Db, key: string, version: number, status: string): Promise<void> {
  await db.updateTable('policy_versions').set({ status }).where('key', '=', key).where('version', '=', version).execute();
}

export async function listPendingVersions(db: Db): Promise<Array<{ key: string; version: number }>> {
  return db.selectFrom('policy_versions').select(['key', 'version']).where('status', '=', 'pending').orderBy('version').execute();
}

/** Modes set before policies were versioned (the policy_state table), by key. */
export async function listLegacyModes(db: Db): Promise<Array<{ key: string; mode: string }>> {
  return db.selectFrom('policy_state').select(['key', 'mode']).execute();
}

// ---- canaries ----

export async function findLatestCanary(db: Db, key: string): Promise<PolicyCanariesTable | undefined> {
  return db.selectFrom('policy_canaries').selectAll().where('key', '=', key).orderBy('started_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
}

export async function findRunningCanary(db: Db, key: string): Promise<PolicyCanariesTable | undefined> {
  return db.selectFrom('policy_canaries').selectAll().where('key', '=', key).where('state', '=', 'running').executeTakeFirst();
}

export async function findRunningCanaryId(db: Db, key: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('policy_canaries').select('id').where('key', '=', key).where('state', '=', 'running').executeTakeFirst();
}

export async function findRunningCanaryRef(db: Db, key: string): Promise<{ id: string; proposal_id: string | null } | undefined> {
  return db.selectFrom('policy_canaries').select(['id', 'proposal_id']).where('key', '=', key).where('state', '=', 'running').executeTakeFirst();
}

/** The state of the newest canary tracked on a proposal. */
export async function findProposalCanaryState(db: Db, proposalId: string): Promise<{ state: string } | undefined> {
  return db.selectFrom('policy_canaries').select(['state']).where('proposal_id', '=', proposalId).orderBy('started_at', 'desc').executeTakeFirst();
}

export async function insertCanary(db: Db, row: PolicyCanariesTable): Promise<void> {
  await db.insertInto('policy_canaries').values(row).execute();
}

/** Changes a canary only while it still runs (a concurrent rollback wins). */
export async function updateRunningCanary(db: Db, id: string, changes: Updateable<PolicyCanariesTable>): Promise<void> {
  await db.updateTable('policy_canaries').set(changes).where('id', '=', id).where('state', '=', 'running').execute();
}

export async function markCanaryRolledBack(db: Db, id: string, at: string): Promise<void> {
  await db.updateTable('policy_canaries').set({ state: 'rolled_back', ended_at: at }).where('id', '=', id).execute();
}

/** Calls marked with a canary cohort since a time, and how many of them were blocked. */
export async function canaryCohortCounts(db: Db, mark: string, since: string): Promise<{ calls: number; blocked: number }> {
  const row = await db
    .selectFrom('traces')
    .select((eb) => [eb.fn.countAll<number>().as('calls'), eb.fn.sum<number>(eb.case().when('verdict', '=', 'block').then(1).else(0).end()).as('blocked')])
    .where('canary', '=', mark)
    .where('at', '>=', since)
    .executeTakeFirst();
  return { calls: Number(row?.calls ?? 0), blocked: Number(row?.blocked ?? 0) };
}

// ---- proposals ----

export interface ProposalFilter {
  status?: string;
  kind?: string;
  scope_level?: string;
  scope_id?: string;
}

export async function insertProposal(db: Db, row: ProposalsTable): Promise<void> {
  await db.insertInto('proposals').values(row).execute();
}

export async function findProposal(db: Db, id: string): Promise<ProposalsTable | undefined> {
  return db.selectFrom('proposals').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The newest proposal of a saved version. */
export async function findProposalForVersion(db: Db, key: string, version: number): Promise<ProposalsTable | undefined> {
  return db.selectFrom('proposals').selectAll().where('policy_key', '=', key).where('to_version', '=', version).orderBy('created_at', 'desc').executeTakeFirst();
}

export async function findProposalTarget(db: Db, id: string): Promise<{ policy_key: string; to_version: number }> {
  return db.selectFrom('proposals').select(['policy_key', 'to_version']).where('id', '=', id).executeTakeFirstOrThrow();
}

export async function listProposals(db: Db, filter: ProposalFilter, limit: number): Promise<ProposalsTable[]> {
  let select = db.selectFrom('proposals').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit);
  if (filter.status !== undefined) select = select.where('status', '=', filter.status);
  if (filter.kind !== undefined) select = select.where('kind', '=', filter.kind);
  if (filter.scope_level !== undefined) select = select.where('scope_level', '=', filter.scope_level);
  if (filter.scope_id !== undefined) select = select.where('scope_id', '=', filter.scope_id);
  return select.execute();
}

export async function updateProposal(db: Db, id: string, changes: Updateable<ProposalsTable>): Promise<void> {
  await db.updateTable('proposals').set(changes).where('id', '=', id).execute();
}

/** Rolls back a proposal that is in canary (a proposal decided otherwise meanwhile is left alone). */
export async function rollBackCanaryProposal(db: Db, id: string, reason: string, at: string): Promise<void> {
  await db.updateTable('proposals').set({ status: 'rolled_back', rollback_reason: reason, updated_at: at }).where('id', '=', id).where('status', '=', 'canary').execute();
}

export async function insertDecision(db: Db, row: ProposalDecisionsTable): Promise<void> {
  await db.insertInto('proposal_decisions').values(row).execute();
}

export async function listDecisions(db: Db, proposalId: string): Promise<ProposalDecisionsTable[]> {
  return db.selectFrom('proposal_decisions').selectAll().where('proposal_id', '=', proposalId).execute();
}

export async function listDecisionsInOrder(db: Db, proposalId: string): Promise<ProposalDecisionsTable[]> {
  return db.selectFrom('proposal_decisions').selectAll().where('proposal_id', '=', proposalId).orderBy('at').execute();
}

export async function listDecisionsOf(db: Db, proposalIds: string[]): Promise<Array<{ proposal_id: string; actor: string; approve: number }>> {
  return db.selectFrom('proposal_decisions').select(['proposal_id', 'actor', 'approve']).where('proposal_id', 'in', proposalIds).execute();
}

// ---- simulations ----

export async function insertSimulation(db: Db, row: SimulationsTable): Promise<void> {
  await db.insertInto('simulations').values(row).execute();
}

/** Recorded decisions to replay, newest first. */
export async function listReplayTraces(
  db: Db,
  filter: { since: string; limit: number; agent?: string },
): Promise<Array<{ id: string; at: string; agent: string; surface: string; verdict: string; environment: string | null; facts: string | null }>> {
  let query = db
    .selectFrom('traces')
    .select(['id', 'at', 'agent', 'surface', 'verdict', 'environment', 'facts'])
    .where('at', '>=', filter.since)
    .orderBy('at', 'desc')
    .limit(filter.limit);
  if (filter.agent !== undefined) query = query.where('agent', '=', filter.agent);
  return query.execute();
}
