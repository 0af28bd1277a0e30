// Raw secrets are random, shown once and stored as SHA-256 digests. They carry 256 bits of
// entropy, so a fast digest is enough (no password-style stretching is needed) and keeps the
// authenticated hot path cheap.
import { createHash, randomBytes } from 'node:crypto';

/** Prefixes let people and secret scanners tell what a leaked value is. */
export const SECRET_PREFIX = {
  operator: 'ppt_op_',
  traffic: 'ppt_tr_',
  agent: 'ppt_ag_',
} as const;

export function mintSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function digestSecret(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}

/** What may be shown of a secret after it was minted: its prefix and a few characters. */
export function secretHint(raw: string): string {
  return `${raw.slice(0, 11)}…`;
}
