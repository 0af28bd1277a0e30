// Queries for rule examples (rule_examples) and the trace facts they copy. Returns plain rows.
import type { Kysely, Transaction } from 'kysely';
import type { Database, RuleExamplesTable } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;

/** A rule's examples, newest first, after the `before` id. */
export async function listRuleExamples(db: Db, ruleId: string, limit: number, before: string | undefined): Promise<RuleExamplesTable[]> {
  let select = db.selectFrom('rule_examples').selectAll().where('rule_id', '=', ruleId).orderBy('id', 'desc').limit(limit);
  if (before !== undefined) select = select.where('id', '<', before);
  return select.execute();
}

/** A rule's examples in id order, at most `limit`: the set a check evaluates. */
export async function ruleExamplesToCheck(db: Db, ruleId: string, limit: number): Promise<RuleExamplesTable[]> {
  return db.selectFrom('rule_examples').selectAll().where('rule_id', '=', ruleId).orderBy('id').limit(limit).execute();
}

/** The recorded facts of a decision (its trace), if the trace is still kept. */
export async function findTraceFacts(db: Db, decisionId: string): Promise<{ id: string; facts: string | null } | undefined> {
  return db.selectFrom('traces').select(['id', 'facts']).where('id', '=', decisionId).executeTakeFirst();
}

/** The example that already pins this decision for this rule, if any. */
export async function findExampleOfDecision(db: Db, ruleId: string, decisionId: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('rule_examples').select('id').where('rule_id', '=', ruleId).where('decision_id', '=', decisionId).executeTakeFirst();
}

export async function findRuleExample(db: Db, ruleId: string, exampleId: string): Promise<RuleExamplesTable | undefined> {
  return db.selectFrom('rule_examples').selectAll().where('id', '=', exampleId).where('rule_id', '=', ruleId).executeTakeFirst();
}

export async function insertRuleExample(db: Db, row: RuleExamplesTable): Promise<void> {
  await db.insertInto('rule_examples').values(row).execute();
}

export async function deleteRuleExample(db: Db, exampleId: string): Promise<void> {
  await db.deleteFrom('rule_examples').where('id', '=', exampleId).execute();
}
