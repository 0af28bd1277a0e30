// Queries for agents, identities and capabilities (grants). Returns plain rows.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { AgentRow, CapabilityRow, Database, IdentityRow } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

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
