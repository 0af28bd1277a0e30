// Storage of policies and their saved versions, and the reload of what is live into the registry.
// Every process reads the same rows (sync every second), so several gateways agree on what is in
// force; a change made here is also applied to this process's registry at once.
import type { Kysely, Transaction } from 'kysely';
import { parsePack } from '../../engine/policy/parse.js';
import { policySignature, type BoundPolicy, type Compose, type PolicyLevel, type PolicyRegistry, type RunningCanary } from '../../engine/policy/registry.js';
import type { Mode, Pack } from '../../engine/policy/schema.js';
import type { Store } from '../../infra/store/db.js';
import type { Database, PoliciesTable, PolicyVersionsTable } from '../../infra/store/tables.js';

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
    return db.selectFrom('policies').selectAll().where('key', '=', key).executeTakeFirst();
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
      const steps = JSON.parse(row.steps) as number[];
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
