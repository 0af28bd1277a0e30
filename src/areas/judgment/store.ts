// Queries for the stored judgment posture (judgment_posture, one row). Returns plain rows.
import type { Kysely, Transaction } from 'kysely';
import type { Database, JudgmentPostureTable } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

export const POSTURE_ROW_ID = 'current';

export async function readPosture(db: Db): Promise<JudgmentPostureTable | undefined> {
  return db.selectFrom('judgment_posture').selectAll().where('id', '=', POSTURE_ROW_ID).executeTakeFirst();
}

export async function writePosture(db: Db, row: JudgmentPostureTable): Promise<void> {
  const { id: _id, ...rest } = row;
  await db
    .insertInto('judgment_posture')
    .values(row)
    .onConflict((conflict) => conflict.column('id').doUpdateSet(rest))
    .execute();
}
