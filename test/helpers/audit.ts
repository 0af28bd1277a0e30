// Reading the audit chain of a test gateway: how many entries there are (to prove that a request
// changed nothing) and what was recorded about one target.
import type { TestGateway } from './gateway.js';

/** The number of audit entries, to prove that a request changed nothing. */
export async function auditCount(gateway: TestGateway): Promise<number> {
  return Number((await gateway.store.db.selectFrom('audit_entries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** The audit entries about one target, oldest first. */
export async function auditOf(gateway: TestGateway, target: string): Promise<Array<{ action: string; actor: string; detail: any }>> {
  const rows = await gateway.store.db.selectFrom('audit_entries').selectAll().where('target', '=', target).orderBy('seq').execute();
  return rows.map((row) => ({ action: row.action, actor: row.actor, detail: JSON.parse(row.detail) }));
}
