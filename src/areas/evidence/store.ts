// Queries for evidence packages: their own rows, and the records of a period a package collects.
// Returns plain rows; JSON columns stay text here.
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type {
  ApprovalRow,
  AuditEntryRow,
  Database,
  EvidencePackageRow,
  EvidencePackagesTable,
  FindingRow,
  PoliciesTable,
  TraceRow,
} from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** A package's period and agents (none: every agent), as stored ISO instants. */
export interface PeriodFilter {
  from: string;
  to: string;
  agents: string[];
}

export type PolicyStateRow = Pick<Selectable<PoliciesTable>, 'key' | 'mode' | 'live_version' | 'level' | 'scope_id' | 'compose' | 'bound' | 'updated_at'>;

/** The seq of the first audit entry at or after `from`, no later than `maxSeq`. */
export async function findFirstAuditSeqSince(db: Db, from: string, maxSeq: number): Promise<{ seq: number } | undefined> {
  return db.selectFrom('audit_entries').select('seq').where('at', '>=', from).where('seq', '<=', maxSeq).orderBy('seq').limit(1).executeTakeFirst();
}

export async function listDecisionsInPeriod(db: Db, period: PeriodFilter): Promise<TraceRow[]> {
  let query = db.selectFrom('traces').selectAll().where('at', '>=', period.from).where('at', '<=', period.to);
  if (period.agents.length > 0) query = query.where('agent', 'in', period.agents);
  return query.orderBy('at').orderBy('id').execute();
}

/** Findings first seen or last seen inside the period. */
export async function listFindingsInPeriod(db: Db, period: PeriodFilter): Promise<FindingRow[]> {
  const { from, to } = period;
  let query = db
    .selectFrom('findings')
    .selectAll()
    .where((eb) => eb.or([eb.and([eb('at', '>=', from), eb('at', '<=', to)]), eb.and([eb('last_seen_at', '>=', from), eb('last_seen_at', '<=', to)])]));
  if (period.agents.length > 0) query = query.where('agent', 'in', period.agents);
  return query.orderBy('at').orderBy('id').execute();
}

export async function listApprovalsInPeriod(db: Db, period: PeriodFilter): Promise<ApprovalRow[]> {
  let query = db.selectFrom('approvals').selectAll().where('created_at', '>=', period.from).where('created_at', '<=', period.to);
  if (period.agents.length > 0) query = query.where('agent', 'in', period.agents);
  return query.orderBy('created_at').orderBy('id').execute();
}

export async function listPolicyStates(db: Db): Promise<PolicyStateRow[]> {
  return db.selectFrom('policies').select(['key', 'mode', 'live_version', 'level', 'scope_id', 'compose', 'bound', 'updated_at']).orderBy('key').execute();
}

/** Audit entries with fromSeq ≤ seq ≤ toSeq, in seq order. */
export async function listAuditEntriesBetween(db: Db, fromSeq: number, toSeq: number): Promise<AuditEntryRow[]> {
  return db.selectFrom('audit_entries').selectAll().where('seq', '>=', fromSeq).where('seq', '<=', toSeq).orderBy('seq').execute();
}

export async function insertEvidencePackage(db: Db, row: Insertable<EvidencePackagesTable>): Promise<void> {
  await db.insertInto('evidence_packages').values(row).execute();
}

/** Newest first; `limit` rows at most. */
export async function listEvidencePackages(db: Db, filter: { status?: string; before?: string; limit: number }): Promise<EvidencePackageRow[]> {
  let query = db.selectFrom('evidence_packages').selectAll().orderBy('id', 'desc').limit(filter.limit);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  return query.execute();
}

export async function findEvidencePackage(db: Db, id: string): Promise<EvidencePackageRow | undefined> {
  return db.selectFrom('evidence_packages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Updates a package; answers the row as it is now, undefined when it is gone. */
export async function updateEvidencePackageReturning(db: Db, id: string, change: Updateable<EvidencePackagesTable>): Promise<EvidencePackageRow | undefined> {
  return db.updateTable('evidence_packages').set(change).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function updateEvidencePackage(db: Db, id: string, change: Updateable<EvidencePackagesTable>): Promise<void> {
  await db.updateTable('evidence_packages').set(change).where('id', '=', id).execute();
}
