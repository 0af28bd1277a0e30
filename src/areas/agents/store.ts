// Queries for agents, identities and capabilities (grants), the registry revision, and the per-agent
// usage counter. Returns plain rows.
import { sql, type InsertResult, type Kysely, type Transaction, type UpdateResult } from 'kysely';
import { newId } from '../../infra/lib/ids.js';
import type { AgentRow, CapabilityRow, Database, IdentityRow, ToolRow } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

const REVISION_KEY = 'agents.revision';

/** Marks agents or grants as changed, inside the transaction that changed them. */
export async function bumpRevision(db: Db, at: string): Promise<void> {
  await db
    .insertInto('meta')
    .values({ key: REVISION_KEY, value: newId('rev'), updated_at: at })
    .onConflict((conflict) => conflict.column('key').doUpdateSet({ value: newId('rev'), updated_at: at }))
    .execute();
}

// The registry view's reads (RegistryDirectory): not async, so the view's reload and tick keep
// their one await per query.

export function readRevision(db: Db): Promise<{ value: string } | undefined> {
  return db.selectFrom('meta').select('value').where('key', '=', REVISION_KEY).executeTakeFirst();
}

export function loadAgents(db: Db): Promise<AgentRow[]> {
  return db.selectFrom('agents').selectAll().execute();
}

export function loadCapabilities(db: Db): Promise<CapabilityRow[]> {
  return db.selectFrom('capabilities').selectAll().execute();
}

export function loadTools(db: Db): Promise<ToolRow[]> {
  return db.selectFrom('tools').selectAll().execute();
}

/** What traffic has taught about an agent so far. */
export function findSighting(db: Db, slug: string): Promise<Pick<AgentRow, 'seen_tools' | 'seen_models' | 'first_seen_at'> | undefined> {
  return db.selectFrom('agents').select(['seen_tools', 'seen_models', 'first_seen_at']).where('slug', '=', slug).executeTakeFirst();
}

/** A name first seen in traffic; a row that appeared meanwhile wins. */
export function insertSeenAgent(db: Db, row: AgentRow): Promise<InsertResult[]> {
  return db
    .insertInto('agents')
    .values(row)
    .onConflict((conflict) => conflict.column('slug').doNothing())
    .execute();
}

export function updateSighting(db: Db, slug: string, changes: Pick<AgentRow, 'last_seen_at' | 'first_seen_at' | 'seen_tools' | 'seen_models'>): Promise<UpdateResult[]> {
  return db.updateTable('agents').set(changes).where('slug', '=', slug).execute();
}

export async function findAgentBySlug(db: Db, slug: string): Promise<AgentRow | undefined> {
  return db.selectFrom('agents').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** By id (agt_…) or slug: the approve/reject routes take either. */
export async function findAgentByIdOrSlug(db: Db, idOrSlug: string): Promise<AgentRow | undefined> {
  return db
    .selectFrom('agents')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .executeTakeFirst();
}

export async function listAgents(
  db: Db,
  filter: { registered?: boolean; environment?: string; before?: string; limit: number },
): Promise<AgentRow[]> {
  let query = db.selectFrom('agents').selectAll().orderBy('id', 'desc').limit(filter.limit);
  if (filter.registered === true) query = query.where('status', '=', 'approved');
  if (filter.registered === false) query = query.where('status', '!=', 'approved');
  if (filter.environment !== undefined) query = query.where('environment', '=', filter.environment);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  return query.execute();
}

export async function listAllAgents(db: Db): Promise<AgentRow[]> {
  return db.selectFrom('agents').selectAll().orderBy('slug').execute();
}

export async function insertAgent(db: Db, row: AgentRow): Promise<void> {
  await db.insertInto('agents').values(row).execute();
}

export async function updateAgent(db: Db, slug: string, changes: Partial<AgentRow>): Promise<void> {
  await db.updateTable('agents').set(changes).where('slug', '=', slug).execute();
}

export async function setIdentityOwner(db: Db, id: string, owner: string | null, at: string): Promise<void> {
  await db.updateTable('identities').set({ owner, updated_at: at }).where('id', '=', id).execute();
}

export async function findIdentity(db: Db, id: string): Promise<IdentityRow | undefined> {
  return db.selectFrom('identities').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findIdentityBySlug(db: Db, slug: string): Promise<IdentityRow | undefined> {
  return db.selectFrom('identities').selectAll().where('agent_slug', '=', slug).executeTakeFirst();
}

export async function insertIdentity(db: Db, row: IdentityRow): Promise<void> {
  await db.insertInto('identities').values(row).execute();
}

export async function listIdentities(db: Db): Promise<IdentityRow[]> {
  return db.selectFrom('identities').selectAll().orderBy('id', 'desc').execute();
}

/** Credentials of the agent that are not revoked (expired ones included). */
export async function unrevokedCredentials(db: Db, slug: string): Promise<Array<{ id: string; secret_hash: string }>> {
  return db.selectFrom('agent_credentials').select(['id', 'secret_hash']).where('agent_slug', '=', slug).where('revoked_at', 'is', null).execute();
}

export async function revokeCredentialsOf(db: Db, slug: string, at: string): Promise<void> {
  await db.updateTable('agent_credentials').set({ revoked_at: at }).where('agent_slug', '=', slug).where('revoked_at', 'is', null).execute();
}

export async function listCapabilities(db: Db, slug: string): Promise<CapabilityRow[]> {
  return db.selectFrom('capabilities').selectAll().where('agent_slug', '=', slug).orderBy('tool_key').execute();
}

export async function listAllCapabilities(db: Db): Promise<CapabilityRow[]> {
  return db.selectFrom('capabilities').selectAll().orderBy('agent_slug').orderBy('tool_key').execute();
}

export async function findCapability(db: Db, slug: string, toolKey: string): Promise<CapabilityRow | undefined> {
  return db.selectFrom('capabilities').selectAll().where('agent_slug', '=', slug).where('tool_key', '=', toolKey).executeTakeFirst();
}

export async function findCapabilityById(db: Db, id: string): Promise<CapabilityRow | undefined> {
  return db.selectFrom('capabilities').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function upsertCapability(db: Db, row: CapabilityRow): Promise<void> {
  await db
    .insertInto('capabilities')
    .values(row)
    .onConflict((conflict) =>
      conflict.columns(['agent_slug', 'tool_key']).doUpdateSet({
        requires_approval: row.requires_approval,
        max_taint: row.max_taint,
        constraints: row.constraints,
        actions: row.actions,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

export async function deleteCapability(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('capabilities').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Tool calls an agent made since `since`, per tool: how many, how many were blocked, first and last. */
export async function observedToolCalls(
  db: Db,
  slug: string,
  since: string,
): Promise<Array<{ tool: string; calls: number; blocked: number; first_at: string; last_at: string }>> {
  const rows = await db
    .selectFrom('traces')
    .select((eb) => [
      'tool',
      eb.fn.countAll<number>().as('calls'),
      eb.fn.sum<number>(sql`case when effective_verdict = 'allow' then 0 else 1 end`).as('blocked'),
      eb.fn.min('at').as('first_at'),
      eb.fn.max('at').as('last_at'),
    ])
    .where('agent', '=', slug)
    .where('surface', '=', 'tool_args')
    .where('tool', 'is not', null)
    .where('at', '>=', since)
    .groupBy('tool')
    .orderBy('tool')
    .execute();
  return rows.map((row) => ({
    tool: row.tool as string,
    calls: Number(row.calls),
    blocked: Number(row.blocked ?? 0),
    first_at: String(row.first_at),
    last_at: String(row.last_at),
  }));
}

/** Counts one call in the agent's window across every process; returns the window's count. */
export async function incrementUsage(db: Db, agent: string, window: string): Promise<number> {
  const row = await db
    .insertInto('agent_usage')
    .values({ agent, window, calls: 1, cost_usd: 0 })
    .onConflict((conflict) => conflict.columns(['agent', 'window']).doUpdateSet({ calls: sql`agent_usage.calls + 1` }))
    .returning('calls')
    .executeTakeFirstOrThrow();
  return Number(row.calls);
}
