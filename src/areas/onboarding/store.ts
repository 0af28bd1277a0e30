// Queries behind the onboarding checklist: each answers "since when", or nothing yet. Plain rows.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/store/tables.js';

type Db = Kysely<Database>;

const first = (row: { at: string | null } | undefined): string | null => (row?.at === undefined || row.at === null ? null : String(row.at));

export async function adminTokens(db: Db): Promise<Array<{ created_by: string; created_at: string; expires_at: string | null; revoked_at: string | null }>> {
  return db
    .selectFrom('api_tokens')
    .select(['created_by', 'created_at', 'expires_at', 'revoked_at'])
    .where('kind', '=', 'operator')
    .where('role', '=', 'admin')
    .orderBy('created_at')
    .execute();
}

export async function firstTrafficToken(db: Db): Promise<string | null> {
  return first(await db.selectFrom('api_tokens').select((eb) => eb.fn.min('created_at').as('at')).where('kind', '=', 'traffic').executeTakeFirst());
}

/** Registered: created through the registry or approved, not merely seen in traffic (pending). */
export async function firstRegisteredAgent(db: Db): Promise<string | null> {
  return first(await db.selectFrom('agents').select((eb) => eb.fn.min('created_at').as('at')).where('status', '=', 'approved').executeTakeFirst());
}

export async function firstDecision(db: Db): Promise<string | null> {
  return first(await db.selectFrom('traces').select((eb) => eb.fn.min('at').as('at')).executeTakeFirst());
}

export async function baselineModes(db: Db): Promise<Array<{ mode: string; updated_at: string }>> {
  return db.selectFrom('policies').select(['mode', 'updated_at']).where('key', '=', 'baseline').execute();
}

export async function firstGrant(db: Db): Promise<string | null> {
  return first(await db.selectFrom('capabilities').select((eb) => eb.fn.min('created_at').as('at')).executeTakeFirst());
}

export async function firstCheckpoint(db: Db): Promise<string | null> {
  return first(await db.selectFrom('audit_checkpoints').select((eb) => eb.fn.min('at').as('at')).executeTakeFirst());
}

export async function firstEvidencePackage(db: Db): Promise<string | null> {
  return first(await db.selectFrom('evidence_packages').select((eb) => eb.fn.min('completed_at').as('at')).where('status', '=', 'ready').executeTakeFirst());
}

/** The first control computation; undefined when the control_results table does not exist. */
export async function firstControlResult(db: Db): Promise<string | null | undefined> {
  try {
    return first(await db.selectFrom('control_results').select((eb) => eb.fn.min('computed_at').as('at')).executeTakeFirst());
  } catch {
    return undefined;
  }
}
