// Memory entries (spec 01 §3 "Memory entry"): every memory write is recorded with its subject,
// provenance and who vouches for it. Unverified entries decay: they expire after
// `memory_unverified_ttl_seconds` even when the writer asked for longer. Operators revoke an entry
// (it is pulled at once) or verify it (it stops decaying and keeps only its own ttl_seconds).
// Writes are queued off the request path; revoke and verify are audited with the change.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { notFound, problem } from '../../infra/http/problems.js';
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { WriteQueue, type WriteQueueOptions } from '../../infra/lib/write-queue.js';
import type { Store } from '../../infra/store/db.js';
import type { MemoryEntriesTable, MemoryEntryRow } from '../../infra/store/tables.js';
import type { ListMemoryQuery, MemoryEntry, MemoryStatus, RevokeMemoryBody, VerifyMemoryBody } from './schemas.js';
import * as memory from './store.js';

export interface MemoryWrite {
  agent: string;
  subject?: string | null;
  /** Already redacted (or null) by the caller, as `record_content` allows. */
  content: string | null;
  contentSha256: string;
  provenance?: Record<string, string>;
  taintSource?: string | null;
  verifiedBy?: string | null;
  ttlSeconds?: number | null;
  sessionId?: string | null;
  verdict: string;
  decisionId: string;
}

export interface MemoryServiceOptions extends WriteQueueOptions {
  /** `memory_unverified_ttl_seconds`: the longest an unverified entry stays active. */
  unverifiedTtlSeconds: number;
}

export class MemoryService {
  private readonly queue: WriteQueue<MemoryEntriesTable>;

  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly options: MemoryServiceOptions,
  ) {
    this.queue = new WriteQueue((rows) => memory.insertEntries(store.db, rows), { ...options, waitForRoom: true });
  }

  /** Queues a memory write for recording; returns the entry id it will have. */
  recordWrite(entry: MemoryWrite): string {
    const id = newId('mem');
    const created = this.clock.now();
    const verifiedBy = entry.verifiedBy ?? null;
    const verified = verifiedBy !== null;
    const ttl = entry.ttlSeconds ?? null;
    // An entry nobody vouches for decays on the unverified time-to-live, whatever ttl it asked for.
    const lifetime = verified ? ttl : Math.min(ttl ?? Number.POSITIVE_INFINITY, this.options.unverifiedTtlSeconds);
    this.queue.push({
      id,
      agent: entry.agent,
      subject: entry.subject ?? null,
      content: entry.content,
      content_sha256: entry.contentSha256,
      provenance: JSON.stringify(entry.provenance ?? {}),
      taint_source: entry.taintSource ?? null,
      verified_by: verifiedBy,
      verified_at: verified ? created.toISOString() : null,
      ttl_seconds: ttl,
      verdict: entry.verdict,
      decision_id: entry.decisionId,
      session_id: entry.sessionId ?? null,
      created_at: created.toISOString(),
      expires_at: lifetime === null ? null : afterSeconds(created, lifetime),
      revoked_at: null,
      revoked_by: null,
    });
    return id;
  }

  /** Undefined while the queue has room; past its bound, resolves once writes made room (nothing is dropped). */
  room(): Promise<void> | undefined {
    return this.queue.room();
  }

  async flush(): Promise<void> {
    await this.queue.flush();
  }

  async close(): Promise<void> {
    await this.queue.close();
  }

  async list(query: ListMemoryQuery): Promise<{ items: MemoryEntry[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const now = this.clock.now().toISOString();
    const rows = await memory.listEntries(this.store.db, {
      agent: query.agent,
      activeAt: query.active_only === true ? now : undefined,
      before: decodeCursor(query.cursor),
      limit: limit + 1,
    });
    const page = pageOf(rows, limit);
    return { items: page.items.map((row) => this.toWire(row, now)), next_cursor: page.next_cursor };
  }

  /** Pulls an entry at once; a second revocation is a conflict. */
  async revoke(caller: Principal, id: string, body: RevokeMemoryBody): Promise<MemoryEntry> {
    const row = await memory.findEntry(this.store.db, id);
    if (row === undefined) throw notFound('memory entry', id);
    if (row.revoked_at !== null) throw problem('conflict', `memory entry ${id} is already revoked`);
    const at = this.clock.now().toISOString();
    const by = actorOf(caller);
    await this.audit.transact(async (trx, append) => {
      if (!(await memory.markRevoked(trx, id, at, by))) throw problem('conflict', `memory entry ${id} is already revoked`);
      await append({
        actor: by,
        action: 'memory.revoke',
        target: id,
        detail: { agent: row.agent, subject: row.subject, ...(body.reason === undefined ? {} : { reason: body.reason }) },
      });
    });
    return this.toWire({ ...row, revoked_at: at, revoked_by: by }, at);
  }

  /**
   * Vouches for an entry: it stops decaying on the unverified time-to-live and keeps only its own
   * ttl_seconds from creation (none: it does not expire). A revoked entry stays revoked (409).
   */
  async verify(caller: Principal, id: string, body: VerifyMemoryBody): Promise<MemoryEntry> {
    const row = await memory.findEntry(this.store.db, id);
    if (row === undefined) throw notFound('memory entry', id);
    if (row.revoked_at !== null) throw problem('conflict', `memory entry ${id} is revoked and cannot be verified`);
    const now = this.clock.now().toISOString();
    const change = {
      verified_by: body.verified_by ?? actorOf(caller),
      verified_at: now,
      expires_at: row.ttl_seconds === null ? null : afterSeconds(new Date(row.created_at), row.ttl_seconds),
    };
    await this.audit.transact(async (trx, append) => {
      if (!(await memory.markVerified(trx, id, change))) {
        throw problem('conflict', `memory entry ${id} is revoked and cannot be verified`);
      }
      await append({
        actor: actorOf(caller),
        action: 'memory.verify',
        target: id,
        detail: { agent: row.agent, subject: row.subject, verified_by: change.verified_by, expires_at: change.expires_at },
      });
    });
    return this.toWire({ ...row, ...change }, now);
  }

  private toWire(row: MemoryEntryRow, now: string): MemoryEntry {
    return {
      id: row.id,
      agent: row.agent,
      subject: row.subject,
      content: row.content,
      content_sha256: row.content_sha256,
      provenance: JSON.parse(row.provenance) as Record<string, string>,
      taint_source: row.taint_source,
      verified_by: row.verified_by,
      verified_at: row.verified_at,
      ttl_seconds: row.ttl_seconds === null ? null : Number(row.ttl_seconds),
      verdict: row.verdict,
      decision_id: row.decision_id,
      session_id: row.session_id,
      created_at: row.created_at,
      expires_at: row.expires_at,
      revoked_at: row.revoked_at,
      revoked_by: row.revoked_by,
      status: statusOf(row, now),
    };
  }
}

/** Revoked wins over blocked, blocked over expired: the strongest reason an entry is not in use. */
export function statusOf(row: Pick<MemoryEntryRow, 'revoked_at' | 'verdict' | 'expires_at'>, now: string): MemoryStatus {
  if (row.revoked_at !== null) return 'revoked';
  if (row.verdict === 'block') return 'blocked';
  if (row.expires_at !== null && row.expires_at <= now) return 'expired';
  return 'active';
}

function afterSeconds(from: Date, seconds: number): string {
  return new Date(from.getTime() + seconds * 1000).toISOString();
}
