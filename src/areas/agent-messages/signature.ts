// The signature of an inter-agent message (spec 01 §5 rule 4 leaves algorithm and signed content
// open; this is our choice, documented in the README):
//
//   signature = HMAC-SHA256(signing_key, "parapet-msg-v1\n" + sender + "\n" + (recipient ?? "") + "\n"
//                                         + nonce + "\n" + timestamp + "\n" + sha256hex(content))
//
// - signing_key: the value POST /api/agents/{slug}/signing-key returned, as UTF-8 bytes, prefix
//   `ppt_sk_` included (no decoding step for agents to get wrong).
// - timestamp: seconds since the epoch, written as JSON writes the number (`1795000000`,
//   `1795000000.5`; whole seconds are the portable choice).
// - sha256hex(content): lowercase hex of the SHA-256 of the content's UTF-8 bytes, so that the
//   signed text stays small and a newline in the content cannot shift the fields.
// - The signature travels as lowercase hex (64 characters); base64url (43) is accepted too.
// The leading context string keeps a signature over a message from being valid for anything else.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNING_KEY_PREFIX = 'ppt_sk_';
export const SIGNATURE_CONTEXT = 'parapet-msg-v1';

export interface SignedFields {
  sender: string;
  recipient?: string | null;
  nonce: string;
  timestamp: number;
  content: string;
}

export function signedText(fields: SignedFields): string {
  const contentDigest = createHash('sha256').update(fields.content, 'utf8').digest('hex');
  return [SIGNATURE_CONTEXT, fields.sender, fields.recipient ?? '', fields.nonce, String(fields.timestamp), contentDigest].join('\n');
}

/**
 * What an agent sends as `signature`.
 * @example signMessage(signingKey, { sender: 'planner', recipient: 'executor', nonce: randomUUID(), timestamp: Math.floor(Date.now() / 1000), content })
 */
export function signMessage(signingKey: string, fields: SignedFields): string {
  return createHmac('sha256', signingKey).update(signedText(fields), 'utf8').digest('hex');
}

/** The 32 bytes a presented signature stands for, or null when it is neither hex nor base64url. */
export function parseSignature(signature: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(signature)) return Buffer.from(signature, 'hex');
  if (/^[A-Za-z0-9_-]{43}$/.test(signature)) {
    const bytes = Buffer.from(signature, 'base64url');
    return bytes.length === 32 ? bytes : null;
  }
  return null;
}

/** Constant-time comparison, so response timing does not reveal how much of a forgery was right. */
export function signatureMatches(signingKey: string, fields: SignedFields, presented: Buffer): boolean {
  const expected = createHmac('sha256', signingKey).update(signedText(fields), 'utf8').digest();
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
