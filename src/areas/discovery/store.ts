// SQL of discovery: agents seen in traffic (traces), OTLP spans (spans) and code (discovery_sites)
// that are not approved in the registry (agents), aggregated in the database; external scanner
// submissions (discovery_submissions, discovery_sites with origin `submit`).
import { sql, type Expression, type Kysely, type Selectable, type SqlBool, type Transaction } from 'kysely';
import type { Database, DiscoverySiteRow, DiscoverySubmissionsTable } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Site kinds that say an agent lives where they are, even when they name none. */
export const AGENT_SITE_KINDS = ['framework', 'model_client', 'mcp_server', 'tool', 'prompt', 'agent'] as const;
/** OpenTelemetry SDKs name a service they were not told about `unknown_service[:process]`. */
const UNNAMED_SERVICE = 'unknown_service%';
/** Rows inserted per statement (13 parameters each, under either database's limit). */
const INSERT_BATCH = 200;

export interface SeenAggregate {
  agent: string;
  count: number;
  first_seen_at: string;
  last_seen_at: string;
}

export interface CodeAggregate extends SeenAggregate {
  origin: string;
}

export interface NamedCount {
  agent: string;
  value: string;
  count: number;
}

export interface SiteLocation {
  agent: string;
  origin: string;
  location: string;
  path: string | null;
  line: number | null;
  kind: string;
  name: string;
}

const approvedSlugs = (db: Db) => db.selectFrom('agents').select('slug').where('status', '=', 'approved');

/** Agents in decisions since `since` that are not approved, latest seen first. */
export async function trafficAgents(db: Db, since: string, limit: number): Promise<SeenAggregate[]> {
  const rows = await db
    .selectFrom('traces')
    .select((eb) => ['agent', eb.fn.countAll().as('count'), eb.fn.min('at').as('first_seen_at'), eb.fn.max('at').as('last_seen_at')])
    .where('at', '>=', since)
    .where('agent', 'not in', approvedSlugs(db))
    .groupBy('agent')
    .orderBy((eb) => eb.fn.max('at'), 'desc')
    .orderBy('agent')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ agent: row.agent, count: Number(row.count), first_seen_at: String(row.first_seen_at), last_seen_at: String(row.last_seen_at) }));
}

/** Tools (or surfaces) of these agents' decisions since `since`, with how often. */
export async function trafficValues(db: Db, since: string, agents: readonly string[], column: 'tool' | 'surface', limit: number): Promise<NamedCount[]> {
  if (agents.length === 0) return [];
  const rows = await db
    .selectFrom('traces')
    .select((eb) => ['agent', eb.ref(column).as('value'), eb.fn.countAll().as('count')])
    .where('at', '>=', since)
    .where('agent', 'in', [...agents])
    .where(column, 'is not', null)
    .groupBy(['agent', column])
    .orderBy('count', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ agent: row.agent, value: String(row.value), count: Number(row.count) }));
}

/** Agents named by spans received since `since` that are not approved (unnamed SDK services left out). */
export async function spanAgents(db: Db, since: string, limit: number): Promise<SeenAggregate[]> {
  const rows = await db
    .selectFrom('spans')
    .select((eb) => ['agent', eb.fn.countAll().as('count'), eb.fn.min('received_at').as('first_seen_at'), eb.fn.max('received_at').as('last_seen_at')])
    .where('received_at', '>=', since)
    .where('agent', 'is not', null)
    .where('agent', 'not like', UNNAMED_SERVICE)
    .where('agent', 'not in', approvedSlugs(db))
    .groupBy('agent')
    .orderBy((eb) => eb.fn.max('received_at'), 'desc')
    .orderBy('agent')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ agent: row.agent as string, count: Number(row.count), first_seen_at: String(row.first_seen_at), last_seen_at: String(row.last_seen_at) }));
}

/** The agent a code site stands for: its hint, else the repository or source it was found in. */
const siteAgent = sql<string>`coalesce(agent_hint, location)`;

function codeSiteFilter(since: string): Expression<SqlBool> {
  return sql<SqlBool>`last_seen_at >= ${since} and (agent_hint is not null or kind in (${sql.join([...AGENT_SITE_KINDS])}))`;
}

/** Agents seen in code sites since `since`, per origin, that are not approved. */
export async function codeAgents(db: Db, since: string, limit: number): Promise<CodeAggregate[]> {
  const rows = await db
    .selectFrom('discovery_sites')
    .select((eb) => [siteAgent.as('agent'), 'origin', eb.fn.countAll().as('count'), eb.fn.min('first_seen_at').as('first_seen_at'), eb.fn.max('last_seen_at').as('last_seen_at')])
    .where(codeSiteFilter(since))
    .where(siteAgent, 'not in', approvedSlugs(db))
    .groupBy([siteAgent, 'origin'])
    .orderBy((eb) => eb.fn.max('last_seen_at'), 'desc')
    .orderBy(siteAgent)
    .limit(limit)
    .execute();
  return rows.map((row) => ({ agent: row.agent, origin: row.origin, count: Number(row.count), first_seen_at: String(row.first_seen_at), last_seen_at: String(row.last_seen_at) }));
}

/** Up to `perAgent` code sites of each of these agents, latest first. */
export async function codeLocations(db: Db, since: string, agents: readonly string[], perAgent: number): Promise<SiteLocation[]> {
  if (agents.length === 0) return [];
  const ranked = await sql<SiteLocation & { rank: number }>`
    select agent, origin, location, path, line, kind, name from (
      select ${siteAgent} as agent, origin, location, path, line, kind, name,
        row_number() over (partition by ${siteAgent} order by last_seen_at desc, id) as rank
      from discovery_sites
      where ${codeSiteFilter(since)} and ${siteAgent} in (${sql.join([...agents])})
    ) ranked
    where rank <= ${perAgent}
    order by agent, rank`.execute(db);
  return ranked.rows.map((row) => ({ ...row, line: row.line === null ? null : Number(row.line) }));
}

/** Which of these slugs are approved agents. */
export async function approvedAmong(db: Db, slugs: readonly string[]): Promise<Set<string>> {
  if (slugs.length === 0) return new Set();
  const rows = await approvedSlugs(db).where('slug', 'in', [...slugs]).execute();
  return new Set(rows.map((row) => row.slug));
}

/** Which of these fingerprints already have a finding (any status). */
export async function existingFingerprints(db: Db, fingerprints: readonly string[]): Promise<Set<string>> {
  if (fingerprints.length === 0) return new Set();
  const rows = await db.selectFrom('findings').select('fingerprint').where('fingerprint', 'in', [...fingerprints]).execute();
  return new Set(rows.map((row) => row.fingerprint));
}

export async function insertSubmission(db: Db, row: Selectable<DiscoverySubmissionsTable>): Promise<void> {
  await db.insertInto('discovery_submissions').values(row).execute();
}

export async function insertSites(db: Db, rows: readonly DiscoverySiteRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    await db
      .insertInto('discovery_sites')
      .values(rows.slice(start, start + INSERT_BATCH))
      .execute();
  }
}
