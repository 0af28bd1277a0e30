// Frozen in time: at most one pending approval per agent, tool and canonical arguments. A pending
// approval carries `pending_key` (a hash of the three); a unique index on it makes the database
// refuse a second one, whichever gateway process tries. Deciding or lapsing an approval clears its
// key (NULLs do not collide, on SQLite and PostgreSQL alike). Existing pending approvals: the newest
// of each call takes the key.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';

/** As src/approvals/service.ts computes it on the day of this migration. */
const pendingKeyOf = (agent: string, tool: string, argumentsSha256: string): string =>
  createHash('sha256').update(JSON.stringify([agent, tool, argumentsSha256])).digest('hex');

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('approvals').addColumn('pending_key', 'text').execute();
  const pending = (await db
    .selectFrom('approvals')
    .select(['id', 'agent', 'tool', 'arguments_sha256'])
    .where('status', '=', 'pending')
    .where('expires_at', '>', new Date().toISOString())
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute()) as Array<{ id: string; agent: string; tool: string; arguments_sha256: string }>;
  const keyed = new Set<string>();
  for (const row of pending) {
    const key = pendingKeyOf(row.agent, row.tool, row.arguments_sha256);
    if (keyed.has(key)) continue;
    keyed.add(key);
    await db.updateTable('approvals').set({ pending_key: key }).where('id', '=', row.id).execute();
  }
  await db.schema.createIndex('approvals_pending_key').unique().on('approvals').column('pending_key').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('approvals_pending_key').execute();
  await db.schema.alterTable('approvals').dropColumn('pending_key').execute();
}
