// The audit chain: every operator change appends an entry whose hash covers the previous hash and
// the canonical JSON (RFC 8785) of the entry. Appends are serialised by the database (an advisory
// lock on PostgreSQL, the single writer on SQLite), never by process memory.
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import { canonicalJson } from '../lib/canonical-json.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { Store } from '../store/db.js';
import type { Database } from '../store/tables.js';

export const GENESIS_HASH = '0'.repeat(64);
const LOCK = 'parapet.audit';

export interface AuditInput {
  actor: string;
  action: string;
  target?: string | null;
  detail?: Record<string, unknown>;
}

/** Appends one entry inside a transaction that already holds the audit lock. */
export type AppendAudit = (entry: AuditInput) => Promise<void>;

export function entryHash(
  prevHash: string,
  entry: { seq: number; id: string; at: string; actor: string; action: string; target: string | null; detail: unknown },
): string {
  return createHash('sha256')
    .update(prevHash)
    .update(canonicalJson(entry))
    .digest('hex');
}

export class AuditLog {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs an operator change and its audit entries in one transaction: both happen or neither.
   * @example await audit.transact(async (trx, append) => { await insert(trx); await append({ actor, action: 'token.create' }) })
   */
  async transact<T>(work: (trx: Transaction<Database>, append: AppendAudit) => Promise<T>): Promise<T> {
    return this.store.withLock(LOCK, async (trx) => {
      const append: AppendAudit = (entry) => this.appendIn(trx, entry);
      return work(trx, append);
    });
  }

  async append(entry: AuditInput): Promise<void> {
    await this.transact((_trx, append) => append(entry));
  }

  private async appendIn(trx: Transaction<Database>, input: AuditInput): Promise<void> {
    const head = await trx
      .selectFrom('audit_entries')
      .select(['seq', 'hash'])
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    const entry = {
      seq: (head?.seq ?? 0) + 1,
      id: newId('aud'),
      at: this.clock.now().toISOString(),
      actor: input.actor,
      action: input.action,
      target: input.target ?? null,
      detail: input.detail ?? {},
    };
    const prevHash = head?.hash ?? GENESIS_HASH;
    await trx
      .insertInto('audit_entries')
      .values({
        ...entry,
        detail: canonicalJson(entry.detail),
        prev_hash: prevHash,
        hash: entryHash(prevHash, entry),
      })
      .execute();
  }
}
