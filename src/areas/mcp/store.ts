// Kysely queries for the MCP registry: servers, their listed tools, and the wildcard grants that
// cover a server's tools. Returns plain rows.
import type { Kysely, Transaction } from 'kysely';
import type { Database, McpServerRow, McpToolRow } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export function findServer(db: Db, name: string): Promise<McpServerRow | undefined> {
  return db.selectFrom('mcp_servers').selectAll().where('name', '=', name).executeTakeFirst();
}

export function listServers(db: Db, limit: number, after: string | undefined): Promise<McpServerRow[]> {
  let query = db.selectFrom('mcp_servers').selectAll().orderBy('name').limit(limit);
  if (after !== undefined) query = query.where('name', '>', after);
  return query.execute();
}

export async function upsertServer(db: Db, row: McpServerRow): Promise<void> {
  const { name: _name, created_at: _created, created_by: _by, ...changes } = row;
  await db
    .insertInto('mcp_servers')
    .values(row)
    .onConflict((conflict) => conflict.column('name').doUpdateSet(changes))
    .execute();
}

export async function markScanned(db: Db, name: string, at: string, serverVersion: string | null): Promise<void> {
  await db.updateTable('mcp_servers').set({ last_scanned_at: at, server_version: serverVersion }).where('name', '=', name).execute();
}

export function toolsOf(db: Db, servers: readonly string[]): Promise<McpToolRow[]> {
  if (servers.length === 0) return Promise.resolve([]);
  return db.selectFrom('mcp_tools').selectAll().where('server', 'in', servers).orderBy('server').orderBy('name').execute();
}

export function findTool(db: Db, server: string, name: string): Promise<McpToolRow | undefined> {
  return db.selectFrom('mcp_tools').selectAll().where('server', '=', server).where('name', '=', name).executeTakeFirst();
}

export async function insertTool(db: Db, row: McpToolRow): Promise<void> {
  await db.insertInto('mcp_tools').values(row).execute();
}

export async function updateTool(db: Db, server: string, name: string, changes: Partial<McpToolRow>): Promise<void> {
  await db.updateTable('mcp_tools').set(changes).where('server', '=', server).where('name', '=', name).execute();
}

export async function deleteTool(db: Db, server: string, name: string): Promise<void> {
  await db.deleteFrom('mcp_tools').where('server', '=', server).where('name', '=', name).execute();
}

/** Grants whose key covers every tool of a server: `*` and `mcp:<server>/*`. */
export function wildcardGrants(db: Db, keys: readonly string[]): Promise<Array<{ id: string; agent_slug: string; tool_key: string }>> {
  return db.selectFrom('capabilities').select(['id', 'agent_slug', 'tool_key']).where('tool_key', 'in', keys).orderBy('agent_slug').execute();
}
