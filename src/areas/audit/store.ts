// Kysely queries over the audit chain for listing and verification; returns plain rows (seq is a
// number on both engines: store/db.ts parses PostgreSQL's bigint).
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Store } from '../../infra/store/db.js';
import type { AuditCheckpointRow, AuditCheckpointsTable, AuditEntriesTable, AuditEntryRow, Database } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface EntryFilter {
  action?: string;
  actor?: string;
  target?: string;
  startSeq?: number;
  endSeq?: number;
  /** Only entries with a seq below this one (the next page, newest first). */
  beforeSeq?: number;
}

export class AuditStore {
  constructor(private readonly store: Store) {}

  /** Newest first. */
  async list(filter: EntryFilter, limit: number): Promise<AuditEntryRow[]> {
    let query = this.store.db.selectFrom('audit_entries').selectAll();
    if (filter.action !== undefined) query = query.where('action', '=', filter.action);
    if (filter.actor !== undefined) query = query.where('actor', '=', filter.actor);
    if (filter.target !== undefined) query = query.where('target', '=', filter.target);
    if (filter.startSeq !== undefined) query = query.where('seq', '>=', filter.startSeq);
    if (filter.endSeq !== undefined) query = query.where('seq', '<=', filter.endSeq);
    if (filter.beforeSeq !== undefined) query = query.where('seq', '<', filter.beforeSeq);
    return query.orderBy('seq', 'desc').limit(limit).execute();
  }

  /** In seq order: entries with fromSeq ≤ seq ≤ toSeq, at most `limit`. */
  async page(fromSeq: number, toSeq: number, limit: number): Promise<AuditEntryRow[]> {
    return this.store.db
      .selectFrom('audit_entries')
      .selectAll()
      .where('seq', '>=', fromSeq)
      .where('seq', '<=', toSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
  }

  /** The entry with the lowest seq above `seq`, if any. */
  async after(seq: number): Promise<AuditEntryRow | undefined> {
    return this.store.db.selectFrom('audit_entries').selectAll().where('seq', '>', seq).orderBy('seq').limit(1).executeTakeFirst();
  }

  async hashAt(seq: number): Promise<string | undefined> {
    return (await this.store.db.selectFrom('audit_entries').select('hash').where('seq', '=', seq).executeTakeFirst())?.hash;
  }

  /** The stored hash, action and target by seq, for the seqs given that exist. */
  async entriesAt(seqs: number[]): Promise<Map<number, { hash: string; action: string; target: string | null }>> {
    const entries = new Map<number, { hash: string; action: string; target: string | null }>();
    // In chunks: a parameter per seq, and the engines cap parameters per statement.
    for (let index = 0; index < seqs.length; index += 500) {
      const chunk = seqs.slice(index, index + 500);
      const rows = await this.store.db.selectFrom('audit_entries').select(['seq', 'hash', 'action', 'target']).where('seq', 'in', chunk).execute();
      for (const row of rows) entries.set(Number(row.seq), { hash: row.hash, action: row.action, target: row.target });
    }
    return entries;
  }

  /** The seq of the newest entry, 0 when the chain is empty. */
  async headSeq(): Promise<number> {
    const row = await this.store.db.selectFrom('audit_entries').select('seq').orderBy('seq', 'desc').limit(1).executeTakeFirst();
    return row?.seq ?? 0;
  }
}

/** The head of the chain (seq and hash of the newest entry); call it under the audit lock. */
export async function findChainHead(db: Db): Promise<{ seq: number; hash: string } | undefined> {
  return db.selectFrom('audit_entries').select(['seq', 'hash']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
}

export async function insertAuditEntries(db: Db, rows: Insertable<AuditEntriesTable>[]): Promise<void> {
  await db.insertInto('audit_entries').values(rows).execute();
}

export async function insertCheckpoint(db: Db, row: Insertable<AuditCheckpointsTable>): Promise<void> {
  await db.insertInto('audit_checkpoints').values(row).execute();
}

/** The checkpoint over the highest seq (newest id among equals). */
export async function findLatestCheckpoint(db: Db): Promise<AuditCheckpointRow | undefined> {
  return db.selectFrom('audit_checkpoints').selectAll().orderBy('seq', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

/** Checkpoints whose seq is in [startSeq, endSeq] (no upper bound when endSeq is null), by seq. */
export async function listCheckpointsInRange(db: Db, startSeq: number, endSeq: number | null): Promise<AuditCheckpointRow[]> {
  let query = db.selectFrom('audit_checkpoints').selectAll().where('seq', '>=', startSeq);
  if (endSeq !== null) query = query.where('seq', '<=', endSeq);
  return query.orderBy('seq').orderBy('id').execute();
}

/** One statement: the caller keeps the list within the engines' parameter cap. */
export async function listCheckpointsByIds(db: Db, ids: string[]): Promise<AuditCheckpointRow[]> {
  return db.selectFrom('audit_checkpoints').selectAll().where('id', 'in', ids).execute();
}
