// Signed audit checkpoints: the gateway seals the head of the chain (seq and hash) with an HMAC
// under a key derived from its secret key. The key is not in the database, so someone who can
// only write the database can rewrite the chain consistently but cannot forge a checkpoint over
// the rewritten head; a checkpoint that no longer matches the stored entry at its seq gives it away.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../lib/canonical-json.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { Sealer } from '../lib/sealed.js';
import type { Store } from '../store/db.js';
import type { AuditCheckpointRow } from '../store/tables.js';
import type { AuditLog } from './log.js';

/** HKDF info of the checkpoint key: a new version names a new key. */
export const CHECKPOINT_KEY_PURPOSE = 'parapet audit checkpoint v1';
const HEX_SIGNATURE = /^[0-9a-f]{64}$/;

export interface Checkpoint {
  id: string;
  /** The seq of the chain head it seals (the `audit.checkpoint` entry itself). */
  seq: number;
  /** The stored hash of the entry at `seq`. */
  hash: string;
  /** When it was sealed. */
  at: string;
  /** First 16 hex characters of sha256(key): which key signed, without revealing it. */
  key_id: string;
  /** HMAC-SHA256(key, canonicalJson({ seq, hash, at })), hex. */
  signature: string;
  created_by: string;
}

/**
 * Creates and checks checkpoints. Evidence packages seal themselves with `create` too.
 * @example const checkpoint = await checkpoints.create('operator:ops'); checkpoints.verifySignature(checkpoint) // true
 */
export class AuditCheckpoints {
  private key: { bytes: Buffer; id: string } | undefined;

  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly sealer: Sealer,
    private readonly clock: Clock,
  ) {}

  /**
   * Appends an `audit.checkpoint` entry and seals the head including it, in one audit transaction:
   * no other entry can come between the two, in this process or another.
   */
  async create(actor: string): Promise<Checkpoint> {
    const { id: keyId } = this.signingKey();
    const id = newId('chk');
    return this.audit.transact(async (trx, append) => {
      const head = await append({ actor, action: 'audit.checkpoint', target: id, detail: { key_id: keyId } });
      const at = this.clock.now().toISOString();
      const checkpoint: Checkpoint = {
        id,
        seq: head.seq,
        hash: head.hash,
        at,
        key_id: keyId,
        signature: this.sign(head.seq, head.hash, at),
        created_by: actor,
      };
      await trx.insertInto('audit_checkpoints').values(checkpoint).execute();
      return checkpoint;
    });
  }

  /** Whether this gateway's key signed exactly this seq, hash and time. */
  verifySignature(checkpoint: Checkpoint): boolean {
    if (checkpoint.key_id !== this.signingKey().id || !HEX_SIGNATURE.test(checkpoint.signature)) return false;
    const expected = Buffer.from(this.sign(checkpoint.seq, checkpoint.hash, checkpoint.at), 'hex');
    return timingSafeEqual(expected, Buffer.from(checkpoint.signature, 'hex'));
  }

  async latest(): Promise<Checkpoint | null> {
    const row = await this.store.db.selectFrom('audit_checkpoints').selectAll().orderBy('seq', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
    return row === undefined ? null : toCheckpoint(row);
  }

  /** Checkpoints whose seq is in [startSeq, endSeq] (no upper bound when endSeq is null), by seq. */
  async inRange(startSeq: number, endSeq: number | null): Promise<Checkpoint[]> {
    let query = this.store.db.selectFrom('audit_checkpoints').selectAll().where('seq', '>=', startSeq);
    if (endSeq !== null) query = query.where('seq', '<=', endSeq);
    const rows = await query.orderBy('seq').orderBy('id').execute();
    return rows.map(toCheckpoint);
  }

  private sign(seq: number, hash: string, at: string): string {
    return createHmac('sha256', this.signingKey().bytes).update(canonicalJson({ seq, hash, at })).digest('hex');
  }

  // Derived on first use: a gateway that never checkpoints never needs the key file.
  private signingKey(): { bytes: Buffer; id: string } {
    if (this.key === undefined) {
      const bytes = this.sealer.deriveKey(CHECKPOINT_KEY_PURPOSE);
      this.key = { bytes, id: createHash('sha256').update(bytes).digest('hex').slice(0, 16) };
    }
    return this.key;
  }
}

function toCheckpoint(row: AuditCheckpointRow): Checkpoint {
  return { ...row, seq: Number(row.seq) };
}
