// SQL of red-team campaigns: campaign rows, their results (one per probe sent), the agent's
// previous campaign and the listing.
import type { Kysely, Transaction } from 'kysely';
import type { Database, RedteamCampaignRow, RedteamResultRow } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Rows per INSERT: 17 parameters each stays well under both drivers' parameter limits. */
const RESULT_CHUNK = 200;

export async function insertCampaign(db: Db, row: RedteamCampaignRow): Promise<void> {
  await db.insertInto('redteam_campaigns').values(row).execute();
}

export async function insertResults(db: Db, rows: readonly RedteamResultRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += RESULT_CHUNK) {
    await db.insertInto('redteam_results').values(rows.slice(start, start + RESULT_CHUNK)).execute();
  }
}

/** Campaigns, newest first; of one agent when `agent` is given. */
export async function listCampaigns(db: Db, filter: { agent?: string; limit: number }): Promise<RedteamCampaignRow[]> {
  let query = db.selectFrom('redteam_campaigns').selectAll();
  if (filter.agent !== undefined) query = query.where('agent', '=', filter.agent);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}

/** The agent's latest completed campaign with this runner (and target, for target runs): what a new one compares with. */
export async function latestCompleted(db: Db, agent: string, runner: string, targetId: string | null): Promise<RedteamCampaignRow | undefined> {
  let query = db.selectFrom('redteam_campaigns').selectAll().where('agent', '=', agent).where('runner', '=', runner).where('status', '=', 'completed');
  if (targetId !== null) query = query.where('target_id', '=', targetId);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export async function findCampaign(db: Db, id: string): Promise<RedteamCampaignRow | undefined> {
  return db.selectFrom('redteam_campaigns').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Results of a campaign with one outcome and kind, in the order they were sent. */
export async function resultsOf(db: Db, campaignId: string, filter: { outcome: string; kind: string; limit: number }): Promise<RedteamResultRow[]> {
  return db
    .selectFrom('redteam_results')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .where('outcome', '=', filter.outcome)
    .where('kind', '=', filter.kind)
    .orderBy('at')
    .orderBy('id')
    .limit(filter.limit)
    .execute();
}
