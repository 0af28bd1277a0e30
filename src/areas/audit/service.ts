// Reading and verifying the audit chain, and sealing its head with a checkpoint. Verification
// walks the chain in pages, so its memory does not grow with the chain.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { problem } from '../../infra/http/problems.js';
import { storableValue } from '../../infra/lib/storable-text.js';
import type { Store } from '../../infra/store/db.js';
import type { AuditEntryRow } from '../../infra/store/tables.js';
import type { AuditCheckpoints, Checkpoint } from './checkpoints.js';
import { GENESIS_HASH, entryHash } from './log.js';
import type { AuditEntry, AuditVerification, BadEntryReason, CheckpointReference, ListAuditEntriesQuery, SignedHead, VerifyAuditBody, VerifyAuditQuery } from './schemas.js';
import { CHECKPOINT_ACTION } from './signing.js';
import { AuditStore } from './store.js';

/** Entries read per query while verifying. */
export const VERIFY_PAGE = 1000;
const CURSOR = /^[1-9][0-9]{0,15}$/;

export class AuditService {
  private readonly entries: AuditStore;

  constructor(
    store: Store,
    private readonly checkpoints: AuditCheckpoints,
  ) {
    this.entries = new AuditStore(store);
  }

  async list(query: ListAuditEntriesQuery): Promise<{ items: AuditEntry[]; next_cursor: string | null }> {
    const limit = query.limit ?? 100;
    const rows = await this.entries.list(
      {
        ...(query.action === undefined ? {} : { action: query.action }),
        ...(query.actor === undefined ? {} : { actor: query.actor }),
        ...(query.target === undefined ? {} : { target: query.target }),
        ...(query.start_seq === undefined ? {} : { startSeq: query.start_seq }),
        ...(query.end_seq === undefined ? {} : { endSeq: query.end_seq }),
        ...(query.cursor === undefined ? {} : { beforeSeq: decodeSeqCursor(query.cursor) }),
      },
      limit + 1,
    );
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return { items: items.map(toWire), next_cursor: rows.length > limit && last !== undefined ? encodeSeqCursor(last.seq) : null };
  }

  async checkpoint(caller: Principal): Promise<Checkpoint> {
    return this.checkpoints.create(actorOf(caller));
  }

  /** The latest signed checkpoint and the public key that checks it: a head to keep elsewhere. */
  async head(): Promise<SignedHead> {
    const checkpoint = await this.checkpoints.latest();
    if (checkpoint === null) throw problem('unknown-id', 'the audit chain has no checkpoint yet: POST /api/audit/checkpoint seals its head');
    return { checkpoint, public_key: this.checkpoints.publicKey() };
  }

  /**
   * Walks [start_seq, end_seq] in seq order and names the first entry that does not verify; then
   * checks the checkpoints of the range against their signatures and the stored chain.
   */
  async verify(query: VerifyAuditQuery, body: VerifyAuditBody = {}): Promise<AuditVerification> {
    if (query.start_seq !== undefined && query.end_seq !== undefined && query.start_seq > query.end_seq) {
      throw problem('invalid-request', 'start_seq is after end_seq', [{ field: '/querystring/start_seq', message: 'must not be greater than end_seq' }]);
    }
    const start = query.start_seq ?? 1;
    // Entries appended while the walk runs are not part of it: the range ends at today's head.
    const head = await this.entries.headSeq();
    const end = Math.min(query.end_seq ?? head, head);

    let checked = 0;
    let firstBad: AuditVerification['first_bad'] = null;
    let referenced: CheckpointReference[] = [];
    if (start <= end) {
      const walk = await this.walk(start, end);
      checked = walk.checked;
      firstBad = walk.firstBad;
      referenced = walk.referenced;
    }

    // With no end_seq, checkpoints past the head are checked too: a cut-off tail leaves no gap in
    // the chain, only a checkpoint whose entry is gone.
    const checkpoints = await this.checkpoints.inRange(start, query.end_seq ?? null);
    const checkedCheckpoints = await this.checkAgainstChain(checkpoints);
    const checkpointsOk = checkedCheckpoints.every((checkpoint) => checkpoint.signature_valid && checkpoint.matches_chain);

    // Every audit.checkpoint entry names its checkpoint: a row deleted (to hide a rewritten and
    // re-hashed chain from its signature) leaves the entry behind.
    const stored = await this.checkpoints.byIds(referenced.map((reference) => reference.id));
    const missing = referenced.filter((reference) => stored.get(reference.id)?.seq !== reference.seq);

    const exportedHead = body.head === undefined ? null : await this.checkHead(body.head);
    const headOk = exportedHead === null || (exportedHead.signature_valid && exportedHead.matches_chain && exportedHead.stored);
    return {
      ok: firstBad === null && checkpointsOk && missing.length === 0 && headOk,
      checked,
      start_seq: start,
      end_seq: end,
      first_bad: firstBad,
      checkpoints: checkedCheckpoints,
      missing_checkpoints: missing,
      head: exportedHead,
    };
  }

  /** Each checkpoint's signature, and whether the entry at its seq is its own and still has its hash. */
  private async checkAgainstChain(checkpoints: Checkpoint[]): Promise<AuditVerification['checkpoints']> {
    const stored = await this.entries.entriesAt([...new Set(checkpoints.map((checkpoint) => checkpoint.seq))]);
    return checkpoints.map((checkpoint) => {
      const entry = stored.get(checkpoint.seq);
      return {
        id: checkpoint.id,
        seq: checkpoint.seq,
        signature_valid: this.checkpoints.verifySignature(checkpoint),
        matches_chain: entry !== undefined && entry.hash === checkpoint.hash && entry.action === CHECKPOINT_ACTION && entry.target === checkpoint.id,
      };
    });
  }

  /**
   * A head exported earlier (GET /api/audit/head) and kept outside the database: signed by this
   * gateway, still the hash of the chain at its seq, and still stored. A chain rewritten and
   * re-hashed since fails here even when every checkpoint row was removed with it.
   */
  private async checkHead(exported: SignedHead): Promise<NonNullable<AuditVerification['head']>> {
    // Looked up as the databases would store it: a NUL in a made-up id must not reach PostgreSQL.
    const { checkpoint } = storableValue(exported);
    const [checked] = await this.checkAgainstChain([checkpoint]);
    const stored = (await this.checkpoints.byIds([checkpoint.id])).get(checkpoint.id);
    return {
      id: checkpoint.id,
      seq: checkpoint.seq,
      signature_valid: checked?.signature_valid ?? false,
      matches_chain: checked?.matches_chain ?? false,
      stored: stored !== undefined && stored.seq === checkpoint.seq && stored.hash === checkpoint.hash && stored.signature === checkpoint.signature,
    };
  }

  private async walk(start: number, end: number): Promise<{ checked: number; firstBad: AuditVerification['first_bad']; referenced: CheckpointReference[] }> {
    // A range that starts mid-chain links to the stored hash of the entry before it; when that
    // entry is missing, the first entry of the range has nothing to link to (a gap).
    let previousHash: string | undefined = start === 1 ? GENESIS_HASH : await this.entries.hashAt(start - 1);
    let expectedSeq = start;
    let checked = 0;
    const referenced: CheckpointReference[] = [];
    const bad = (row: AuditEntryRow, reason: BadEntryReason) => ({ checked, firstBad: { seq: row.seq, id: row.id, reason }, referenced });

    while (expectedSeq <= end) {
      const page = await this.entries.page(expectedSeq, end, VERIFY_PAGE);
      for (const row of page) {
        checked += 1;
        const reason = badReason(row, expectedSeq, previousHash);
        if (reason !== null) return bad(row, reason);
        if (row.action === CHECKPOINT_ACTION && row.target !== null) referenced.push({ id: row.target, seq: row.seq });
        previousHash = row.hash;
        expectedSeq = row.seq + 1;
      }
      if (page.length < VERIFY_PAGE) break;
    }
    if (expectedSeq <= end) {
      // Entries up to `end` are missing at the end of the range: the break shows at the next entry.
      const next = await this.entries.after(expectedSeq - 1);
      if (next !== undefined) {
        checked += 1;
        return bad(next, 'gap');
      }
    }
    return { checked, firstBad: null, referenced };
  }
}

/**
 * Why one entry does not verify, or null. The order matters: a missing seq is a gap, a prev_hash
 * that is not the previous entry's hash is a broken link (rows deleted and renumbered, inserted
 * or reordered: the entry moved), and only an entry in its right place is checked for alteration.
 */
export function badReason(row: AuditEntryRow, expectedSeq: number, previousHash: string | undefined): BadEntryReason | null {
  if (row.seq !== expectedSeq || previousHash === undefined) return 'gap';
  if (row.prev_hash !== previousHash) return row.seq === 1 ? 'first entry prev_hash not genesis' : 'broken link';
  const detail = parseDetail(row.detail);
  if (detail === undefined) return 'hash mismatch';
  const recomputed = entryHash(row.prev_hash, {
    seq: row.seq,
    id: row.id,
    at: row.at,
    actor: row.actor,
    action: row.action,
    target: row.target,
    detail,
  });
  return recomputed === row.hash ? null : 'hash mismatch';
}

function parseDetail(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function toWire(row: AuditEntryRow): AuditEntry {
  const detail = parseDetail(row.detail);
  return {
    seq: row.seq,
    id: row.id,
    at: row.at,
    actor: row.actor,
    action: row.action,
    target: row.target,
    // The gateway stores only JSON objects here; a row altered outside it still lists (verify names it).
    detail: isObject(detail) ? detail : { unparsed: row.detail },
    prev_hash: row.prev_hash,
    hash: row.hash,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function encodeSeqCursor(seq: number): string {
  return Buffer.from(String(seq), 'utf8').toString('base64url');
}

function decodeSeqCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!CURSOR.test(text)) {
    throw problem('invalid-request', 'cursor is not one this gateway issued', [{ field: '/querystring/cursor', message: 'unknown cursor' }]);
  }
  return Number(text);
}
