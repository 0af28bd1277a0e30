// SQL of chat alerts: the channel (chat_alert_channels, one row `default`, its URL sealed), what was
// posted (chat_alerts_sent, one row per finding fingerprint) and the new findings to announce.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, FindingsTable } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export const CHANNEL_ID = 'default';

export interface ChannelRow {
  id: string;
  url_sealed: string;
  url_masked: string;
  min_severity: string;
  updated_by: string;
  updated_at: string;
}

export type AlertFindingRow = Pick<Selectable<FindingsTable>, 'id' | 'fingerprint' | 'type' | 'severity' | 'status' | 'title' | 'subject' | 'agent' | 'at' | 'occurrences'>;

const FINDING_COLUMNS = ['id', 'fingerprint', 'type', 'severity', 'status', 'title', 'subject', 'agent', 'at', 'occurrences'] as const;

export async function findChannel(db: Db): Promise<ChannelRow | undefined> {
  return db.selectFrom('chat_alert_channels').selectAll().where('id', '=', CHANNEL_ID).executeTakeFirst();
}

/** Creates or replaces the one channel. */
export async function saveChannel(db: Db, row: ChannelRow): Promise<void> {
  const { id: _id, ...changes } = row;
  await db
    .insertInto('chat_alert_channels')
    .values(row)
    .onConflict((conflict) => conflict.column('id').doUpdateSet(changes))
    .execute();
}

export async function deleteChannel(db: Db): Promise<boolean> {
  const result = await db.deleteFrom('chat_alert_channels').where('id', '=', CHANNEL_ID).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Open findings first seen at or after `since`, severe enough (rank at least `minRank`) or of a
 * type always announced, that no alert was claimed for yet: oldest first, at most `limit`. Reads
 * through the index on `at`; the claimed ones are left out here so that a backlog moves on.
 */
export async function unalertedFindings(db: Db, input: { since: string; minRank: number; alwaysTypes: readonly string[]; limit: number }): Promise<AlertFindingRow[]> {
  return db
    .selectFrom('findings')
    .select(FINDING_COLUMNS)
    .where('at', '>=', input.since)
    .where('status', '=', 'open')
    .where((eb) => eb.or([eb('severity_rank', '>=', input.minRank), eb('type', 'in', [...input.alwaysTypes])]))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('chat_alerts_sent').select('chat_alerts_sent.fingerprint').whereRef('chat_alerts_sent.fingerprint', '=', 'findings.fingerprint'))))
    .orderBy('at')
    .orderBy('id')
    .limit(input.limit)
    .execute();
}

/**
 * Claims the alert of a finding fingerprint: true when this caller inserted the row, false when
 * another sweep (in this or any process) already had. One alert per fingerprint, ever.
 */
export async function claimAlert(db: Db, row: { fingerprint: string; finding_id: string | null; kind: string; created_at: string }): Promise<boolean> {
  const result = await db
    .insertInto('chat_alerts_sent')
    .values({ ...row, job_id: null })
    .onConflict((conflict) => conflict.column('fingerprint').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function setAlertJob(db: Db, fingerprint: string, jobId: string): Promise<void> {
  await db.updateTable('chat_alerts_sent').set({ job_id: jobId }).where('fingerprint', '=', fingerprint).execute();
}

/** The finding an alert job announces: by id, or by fingerprint when the id is unknown. */
export async function findFinding(db: Db, id: string, fingerprint: string): Promise<AlertFindingRow | undefined> {
  const byId = id === '' ? undefined : await db.selectFrom('findings').select(FINDING_COLUMNS).where('id', '=', id).executeTakeFirst();
  if (byId !== undefined || fingerprint === '') return byId;
  return db.selectFrom('findings').select(FINDING_COLUMNS).where('fingerprint', '=', fingerprint).executeTakeFirst();
}
