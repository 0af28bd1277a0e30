// Queries behind GET /api/obligations: the dated obligations loaded from the catalogue and the records
// the computed obligations are derived from. Returns plain rows.
import type { Kysely } from 'kysely';
import type { Database, ObligationsTable } from '../../infra/store/tables.js';

type Db = Kysely<Database>;

export async function listObligations(db: Db): Promise<ObligationsTable[]> {
  return db.selectFrom('obligations').selectAll().orderBy('due_at').orderBy('key').execute();
}

/** Every assessment's agent, time and next review, newest first (the service keeps each agent's newest). */
export async function riskReviews(db: Db): Promise<Array<{ id: string; agent: string; assessed_at: string; next_review_at: string }>> {
  return db.selectFrom('risk_assessments').select(['id', 'agent', 'assessed_at', 'next_review_at']).orderBy('assessed_at', 'desc').orderBy('id', 'desc').execute();
}

export async function lastReadyEvidence(db: Db): Promise<{ id: string; scope: string; created_at: string } | undefined> {
  return db
    .selectFrom('evidence_packages')
    .select(['id', 'scope', 'created_at'])
    .where('status', '=', 'ready')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function lastCheckpoint(db: Db): Promise<{ id: string; seq: number; at: string } | undefined> {
  return db.selectFrom('audit_checkpoints').select(['id', 'seq', 'at']).orderBy('at', 'desc').orderBy('seq', 'desc').limit(1).executeTakeFirst();
}

/** Suppressions in force that end by themselves. */
export async function expiringSuppressions(db: Db): Promise<
  Array<{ id: string; scope: string; agent: string | null; detector_key: string | null; entity_type: string | null; expires_at: string; created_by: string }>
> {
  const rows = await db
    .selectFrom('guardrail_suppressions')
    .select(['id', 'scope', 'agent', 'detector_key', 'entity_type', 'expires_at', 'created_by'])
    .where('deleted_at', 'is', null)
    .where('expires_at', 'is not', null)
    .orderBy('expires_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...row, expires_at: row.expires_at as string }));
}

export async function activeLegalHolds(db: Db): Promise<Array<{ id: string; name: string; created_at: string; created_by: string }>> {
  return db.selectFrom('legal_holds').select(['id', 'name', 'created_at', 'created_by']).where('released_at', 'is', null).orderBy('created_at').orderBy('id').execute();
}
