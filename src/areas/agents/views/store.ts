// Queries behind the computed agent views: message edges, grants, credentials, keys, decision and
// finding counts, and pages of recorded input and output. Returns plain rows; no rules here.
import type { Kysely, Transaction } from 'kysely';
import type { AgentRow, CapabilityRow, Database } from '../../../infra/store/tables.js';
import type { DelegationEdge } from './lineage.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Message edges (sender → recipient, messages without a recipient left out) since `since`, for
 * the given agents on one side: `from` loads the edges they sent, `to` the edges they received.
 */
export async function messageEdges(db: Db, side: 'from' | 'to', agents: readonly string[], since: string, limit: number): Promise<DelegationEdge[]> {
  if (agents.length === 0 || limit <= 0) return [];
  const rows = await db
    .selectFrom('agent_messages')
    .select((eb) => ['sender', 'recipient', eb.fn.countAll<number | string>().as('messages'), eb.fn.max('at').as('last_at')])
    .where(side === 'from' ? 'sender' : 'recipient', 'in', [...agents])
    .where('recipient', 'is not', null)
    .where('at', '>=', since)
    .groupBy(['sender', 'recipient'])
    .orderBy('sender')
    .orderBy('recipient')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ from: row.sender, to: row.recipient as string, messages: Number(row.messages), last_at: String(row.last_at) }));
}

export async function findAgent(db: Db, slug: string): Promise<AgentRow | undefined> {
  return db.selectFrom('agents').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** The agent's protections column (JSON text). */
export async function findProtections(db: Db, slug: string): Promise<{ protections: string } | undefined> {
  return db.selectFrom('agents').select('protections').where('slug', '=', slug).executeTakeFirst();
}

export async function setProtections(db: Db, slug: string, protections: string, at: string): Promise<void> {
  await db.updateTable('agents').set({ protections, updated_at: at }).where('slug', '=', slug).execute();
}

export async function grantsOf(db: Db, slug: string): Promise<CapabilityRow[]> {
  return db.selectFrom('capabilities').selectAll().where('agent_slug', '=', slug).orderBy('tool_key').execute();
}

/** Impact recorded in the tool registry for the given tool keys. */
export async function toolImpacts(db: Db, keys: readonly string[]): Promise<Map<string, string | null>> {
  if (keys.length === 0) return new Map();
  const rows = await db.selectFrom('tools').select(['key', 'impact']).where('key', 'in', [...keys]).execute();
  return new Map(rows.map((row) => [row.key, row.impact]));
}

export async function credentialsOf(db: Db, slug: string) {
  return db.selectFrom('agent_credentials').select(['expires_at', 'revoked_at', 'last_used_at']).where('agent_slug', '=', slug).execute();
}

/** Whether the agent has a key for signing messages that is current at `now`. */
export async function hasSigningKey(db: Db, slug: string, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('signing_keys')
    .select('id')
    .where('agent_slug', '=', slug)
    .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>', now)]))
    .executeTakeFirst();
  return row !== undefined;
}

export async function sentMessagesSince(db: Db, slug: string, since: string): Promise<boolean> {
  const row = await db.selectFrom('agent_messages').select('id').where('sender', '=', slug).where('at', '>=', since).limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function verdictCounts(db: Db, slug: string, since: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('traces')
    .select((eb) => ['verdict', eb.fn.countAll<number | string>().as('n')])
    .where('agent', '=', slug)
    .where('at', '>=', since)
    .groupBy('verdict')
    .execute();
  return new Map(rows.map((row) => [row.verdict, Number(row.n)]));
}

export async function openFindingCounts(db: Db, slug: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('findings')
    .select((eb) => ['severity', eb.fn.countAll<number | string>().as('n')])
    .where('agent', '=', slug)
    .where('status', '=', 'open')
    .groupBy('severity')
    .execute();
  return new Map(rows.map((row) => [row.severity, Number(row.n)]));
}

export interface RecordedText {
  id: string;
  at: string;
  surface: string;
  verdict: string;
  content: string | null;
}

/**
 * One page of the agent's input and output decisions since `since`, newest first, after the
 * `before` position. Pages keep memory bounded: each text may be up to a million characters.
 */
export async function recordedTexts(
  db: Db,
  slug: string,
  since: string,
  before: { at: string; id: string } | null,
  limit: number,
): Promise<RecordedText[]> {
  let query = db
    .selectFrom('traces')
    .select(['id', 'at', 'surface', 'verdict', 'content'])
    .where('agent', '=', slug)
    .where('surface', 'in', ['input', 'output'])
    .where('at', '>=', since)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
  if (before !== null) {
    query = query.where((eb) => eb.or([eb('at', '<', before.at), eb.and([eb('at', '=', before.at), eb('id', '<', before.id)])]));
  }
  return query.execute();
}
