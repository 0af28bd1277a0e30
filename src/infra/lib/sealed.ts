// Sealed secrets: small secrets the gateway must read back (agent signing keys, later connector
// and webhook secrets) are stored encrypted with AES-256-GCM, never in the clear. Hashing is not
// enough for them: HMAC verification needs the key itself.
//
// Format: `v1.<iv>.<tag>.<ciphertext>`, each part base64url. The version prefix is also the
// GCM additional data, so a value cannot be relabelled as another format version.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_FILE = 'secret-key';
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export class SealedSecretError extends Error {
  override name = 'SealedSecretError';
}

export interface SealerOptions {
  /** The `secret_key` setting: at least 32 characters, or null to use the key file. */
  secretKey: string | null;
  /** Where the key file `secret-key` lives when `secretKey` is null. */
  dataDir: string;
}

/**
 * Encrypts and decrypts small secrets with one 256-bit key. The key is derived on first use, so a
 * gateway that never stores a sealed secret never creates a key file.
 * @example const sealer = new Sealer({ secretKey: config.secret_key, dataDir: config.data_dir }); sealer.unseal(sealer.seal('x'))
 */
export class Sealer {
  private key: Buffer | undefined;

  constructor(private readonly options: SealerOptions) {}

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keyBytes(), iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(VERSION, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  /** Throws SealedSecretError when the value is malformed, was changed, or was sealed under another key. */
  unseal(sealed: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION || !parts.slice(1).every((part) => BASE64URL.test(part))) {
      throw new SealedSecretError(`not a ${VERSION} sealed secret`);
    }
    const [, ivText, tagText, ciphertextText] = parts as [string, string, string, string];
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SealedSecretError('sealed secret has a bad iv or tag');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.keyBytes(), iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(VERSION, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      // GCM says only "unable to authenticate": the value was altered or the key is not the one it was sealed with.
      throw new SealedSecretError('sealed secret does not authenticate: it was altered or sealed under another secret_key');
    }
  }

  /**
   * A 32-byte key for one purpose, derived from the secret key with HKDF-SHA256 (RFC 5869, `info`
   * = purpose), so that a key used elsewhere (an HMAC over audit checkpoints) is never the
   * encryption key itself and keys of different purposes are unrelated.
   * @example sealer.deriveKey('parapet audit checkpoint v1')
   */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.keyBytes(), Buffer.alloc(0), Buffer.from(purpose, 'utf8'), 32));
  }

  private keyBytes(): Buffer {
    this.key ??= deriveKey(this.options.secretKey ?? readOrCreateKeyFile(this.options.dataDir));
    return this.key;
  }
}

/** SHA-256 turns any secret string of at least 32 characters into exactly 32 key bytes. */
function deriveKey(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/**
 * Reads `<dataDir>/secret-key`, creating it (mode 0600) on first use. The file holds 32 random bytes
 * as base64url text and the key is derived from that text exactly as from `secret_key`, so an
 * operator can move to `PARAPET_SECRET_KEY=<file contents>` (several processes on one database)
 * without re-sealing anything.
 */
export function readOrCreateKeyFile(dataDir: string): string {
  const file = path.join(dataDir, KEY_FILE);
  try {
    return readKeyFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  // Written whole to a private temporary file, then linked into place: link fails if another
  // process won the race, and nobody ever reads a half-written key.
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  return readKeyFile(file);
}

function readKeyFile(file: string): string {
  const text = readFileSync(file, 'utf8').trim();
  if (text.length < 32) throw new SealedSecretError(`${file} holds fewer than 32 characters; remove it only if nothing was sealed with it`);
  return text;
}
