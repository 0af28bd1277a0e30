// Signed audit checkpoints: the gateway seals the head of the chain (seq and hash) with an Ed25519
// signature. The private key is derived from the gateway's secret key (HKDF, as every key the
// gateway keeps) and never stored, so someone who can only write the database can rewrite the
// chain consistently but cannot sign a checkpoint over the rewritten head. The public key is
// published (GET /api/audit/head, evidence packages), so an auditor can check checkpoints offline.
// Checkpoints made before Ed25519 carry an HMAC-SHA256 that only the gateway can check.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../../infra/lib/canonical-json.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { Sealer } from '../../infra/lib/sealed.js';
import type { Store } from '../../infra/store/db.js';
import type { AuditCheckpointRow } from '../../infra/store/tables.js';
import type { AuditLog } from './log.js';
import { findLatestCheckpoint, insertCheckpoint, listCheckpointsByIds, listCheckpointsInRange } from './store.js';
import { CHECKPOINT_ACTION, SIGNING_ALGORITHM, signingKeyFromSeed, signCheckpoint, verifyCheckpointSignature, type CheckpointSigningKey, type PublicKeyInfo } from './signing.js';

/** HKDF info of the legacy HMAC key: checkpoints made before Ed25519 are checked with it. */
export const CHECKPOINT_KEY_PURPOSE = 'parapet audit checkpoint v1';
/** HKDF info of the Ed25519 seed: a new version names a new key. */
export const SIGNING_KEY_PURPOSE = 'parapet audit checkpoint ed25519 v2';
const LEGACY_ALGORITHM = 'hmac-sha256';
const HEX_HMAC = /^[0-9a-f]{64}$/;

export interface Checkpoint {
  id: string;
  /** The seq of the chain head it seals (the `audit.checkpoint` entry itself). */
  seq: number;
  /** The stored hash of the entry at `seq`. */
  hash: string;
  /** When it was sealed. */
  at: string;
  /** First 16 hex characters of sha256 of the public key (Ed25519) or of the HMAC key. */
  key_id: string;
  /** ed25519: over the canonical JSON of {format, id, seq, hash, at, key_id}; hmac-sha256 (older checkpoints): over {seq, hash, at}. */
  algorithm: string;
  signature: string;
  created_by: string;
}

/**
 * Creates and checks checkpoints. Evidence packages seal themselves with `create` too.
 * @example const checkpoint = await checkpoints.create('operator:ops'); checkpoints.verifySignature(checkpoint) // true
 */
export class AuditCheckpoints {
  private key: CheckpointSigningKey | undefined;
  private legacyKey: { bytes: Buffer; id: string } | undefined;

  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly sealer: Sealer,
    private readonly clock: Clock,
  ) {}

  /**
   * Appends an `audit.checkpoint` entry (target: the checkpoint's id) and seals the head including
   * it, in one audit transaction: no other entry can come between the two, in this process or
   * another. The entry names the checkpoint, so a checkpoint row deleted later is missed by verify.
   */
  async create(actor: string): Promise<Checkpoint> {
    const key = this.signingKey();
    const id = newId('chk');
    return this.audit.transact(async (trx, append) => {
      const head = await append({ actor, action: CHECKPOINT_ACTION, target: id, detail: { key_id: key.keyId, algorithm: SIGNING_ALGORITHM } });
      const unsigned = { id, seq: head.seq, hash: head.hash, at: this.clock.now().toISOString(), key_id: key.keyId };
      const checkpoint: Checkpoint = { ...unsigned, algorithm: SIGNING_ALGORITHM, signature: signCheckpoint(key, unsigned), created_by: actor };
      await insertCheckpoint(trx, checkpoint);
      return checkpoint;
    });
  }

  /** The public half of this gateway's signing key, as published. */
  publicKey(): PublicKeyInfo {
    return this.signingKey().info;
  }

  /** Whether this gateway's key signed exactly this checkpoint. */
  verifySignature(checkpoint: Checkpoint): boolean {
    if (checkpoint.algorithm === LEGACY_ALGORITHM) return this.verifyLegacy(checkpoint);
    if (checkpoint.algorithm !== SIGNING_ALGORITHM || checkpoint.key_id !== this.signingKey().keyId) return false;
    return verifyCheckpointSignature(this.signingKey().info.public_key_pem, checkpoint);
  }

  async latest(): Promise<Checkpoint | null> {
    const row = await findLatestCheckpoint(this.store.db);
    return row === undefined ? null : toCheckpoint(row);
  }

  /** Checkpoints whose seq is in [startSeq, endSeq] (no upper bound when endSeq is null), by seq. */
  async inRange(startSeq: number, endSeq: number | null): Promise<Checkpoint[]> {
    const rows = await listCheckpointsInRange(this.store.db, startSeq, endSeq);
    return rows.map(toCheckpoint);
  }

  /** The stored checkpoints with these ids. */
  async byIds(ids: string[]): Promise<Map<string, Checkpoint>> {
    const found = new Map<string, Checkpoint>();
    for (let index = 0; index < ids.length; index += 500) {
      const rows = await listCheckpointsByIds(this.store.db, ids.slice(index, index + 500));
      for (const row of rows) found.set(row.id, toCheckpoint(row));
    }
    return found;
  }

  private verifyLegacy(checkpoint: Checkpoint): boolean {
    const key = this.legacySigningKey();
    if (checkpoint.key_id !== key.id || !HEX_HMAC.test(checkpoint.signature)) return false;
    const expected = createHmac('sha256', key.bytes).update(canonicalJson({ seq: checkpoint.seq, hash: checkpoint.hash, at: checkpoint.at })).digest();
    return timingSafeEqual(expected, Buffer.from(checkpoint.signature, 'hex'));
  }

  // Derived on first use: a gateway that never checkpoints never needs the key file.
  private signingKey(): CheckpointSigningKey {
    this.key ??= signingKeyFromSeed(this.sealer.deriveKey(SIGNING_KEY_PURPOSE));
    return this.key;
  }

  private legacySigningKey(): { bytes: Buffer; id: string } {
    if (this.legacyKey === undefined) {
      const bytes = this.sealer.deriveKey(CHECKPOINT_KEY_PURPOSE);
      this.legacyKey = { bytes, id: createHash('sha256').update(bytes).digest('hex').slice(0, 16) };
    }
    return this.legacyKey;
  }
}

function toCheckpoint(row: AuditCheckpointRow): Checkpoint {
  return { ...row, seq: Number(row.seq) };
}
