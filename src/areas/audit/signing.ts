// Ed25519 signatures over audit checkpoints, as pure functions: the gateway signs and checks with
// them, and `parapet audit verify --package` checks an evidence package with them offline.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../../infra/lib/canonical-json.js';

export const SIGNING_ALGORITHM = 'ed25519';
/** The action of the entry a checkpoint seals; its target is the checkpoint's id. */
export const CHECKPOINT_ACTION = 'audit.checkpoint';
/** Names what a signature covers, so that a signature over anything else never passes for one. */
export const CHECKPOINT_FORMAT = 'parapet.audit-checkpoint/2';
// The fixed PKCS#8 header of an Ed25519 private key (RFC 8410): the 32-byte seed follows it.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The public half of the signing key, as the gateway publishes it. */
export interface PublicKeyInfo {
  algorithm: typeof SIGNING_ALGORITHM;
  key_id: string;
  /** SubjectPublicKeyInfo, PEM: what `openssl pkeyutl -verify` and node:crypto read. */
  public_key_pem: string;
}

export interface CheckpointSigningKey {
  keyId: string;
  privateKey: KeyObject;
  info: PublicKeyInfo;
}

/** What a checkpoint signature covers. */
export interface UnsignedCheckpoint {
  id: string;
  seq: number;
  hash: string;
  at: string;
  key_id: string;
}

/** The bytes an Ed25519 checkpoint signature is over: RFC 8785 canonical JSON, UTF-8. */
export function checkpointMessage(checkpoint: UnsignedCheckpoint): Buffer {
  const { id, seq, hash, at, key_id } = checkpoint;
  return Buffer.from(canonicalJson({ format: CHECKPOINT_FORMAT, id, seq, hash, at, key_id }), 'utf8');
}

/** The key from a 32-byte seed; key_id is the first 16 hex characters of sha256 of the raw public key. */
export function signingKeyFromSeed(seed: Buffer): CheckpointSigningKey {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey);
  const keyId = publicKeyId(publicKey);
  return {
    keyId,
    privateKey,
    info: { algorithm: SIGNING_ALGORITHM, key_id: keyId, public_key_pem: publicKey.export({ format: 'pem', type: 'spki' }).toString() },
  };
}

export function publicKeyId(publicKey: KeyObject): string {
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  return createHash('sha256').update(raw).digest('hex').slice(0, 16);
}

/** The signature, base64url. */
export function signCheckpoint(key: CheckpointSigningKey, checkpoint: UnsignedCheckpoint): string {
  return sign(null, checkpointMessage(checkpoint), key.privateKey).toString('base64url');
}

/** Whether `publicKeyPem` signed exactly this checkpoint; false for anything malformed. */
export function verifyCheckpointSignature(publicKeyPem: string, checkpoint: UnsignedCheckpoint & { signature: string }): boolean {
  if (typeof checkpoint.signature !== 'string' || !BASE64URL.test(checkpoint.signature)) return false;
  try {
    const publicKey = createPublicKey(publicKeyPem);
    if (publicKey.asymmetricKeyType !== 'ed25519' || publicKeyId(publicKey) !== checkpoint.key_id) return false;
    const signature = Buffer.from(checkpoint.signature, 'base64url');
    // Only the one canonical spelling counts: base64url's last character carries unused bits, so
    // several strings decode to the same bytes, and an edited signature must never still verify.
    if (signature.toString('base64url') !== checkpoint.signature) return false;
    return verify(null, checkpointMessage(checkpoint), publicKey, signature);
  } catch {
    return false;
  }
}
