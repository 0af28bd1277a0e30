// Validators for secrets.native: entropy, placeholder rejection, JWT header decoding, PEM body
// checks, provider checksums. Each returns a verdict a detection can quote in its explanation. Hot
// path: no I/O here; every function is linear in the length of the (already bounded) candidate.
import { crc32 } from 'node:zlib';

/** Shannon entropy in bits per character. */
export function shannonEntropy(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** How many of lower case, upper case, digits and symbols occur. */
export function characterClasses(value: string): number {
  let lower = 0;
  let upper = 0;
  let digit = 0;
  let other = 0;
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charCodeAt(i);
    if (c >= 97 && c <= 122) lower = 1;
    else if (c >= 65 && c <= 90) upper = 1;
    else if (c >= 48 && c <= 57) digit = 1;
    else other = 1;
  }
  return lower + upper + digit + other;
}

/** Share of the most frequent character: `xxxx…`, `0000…TUVWXYZ` score near 1. */
export function dominantCharacterShare(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<string, number>();
  let best = 0;
  for (const ch of value) {
    const n = (counts.get(ch) ?? 0) + 1;
    counts.set(ch, n);
    if (n > best) best = n;
  }
  return best / value.length;
}

/**
 * Share of characters that sit in ascending or descending runs (`abcdef`, `123456`, `ZYXW`) of at
 * least four. Alphabet strings and keyboard-walk test values are almost entirely runs.
 */
export function sequentialShare(value: string): number {
  if (value.length < 4) return 0;
  let inRuns = 0;
  let runLength = 1;
  let direction = 0;
  const flush = (): void => {
    if (runLength >= 4) inRuns += runLength;
  };
  for (let i = 1; i < value.length; i += 1) {
    const step = value.charCodeAt(i) - value.charCodeAt(i - 1);
    if ((step === 1 || step === -1) && (direction === 0 || direction === step)) {
      runLength += 1;
      direction = step;
    } else {
      flush();
      runLength = 1;
      direction = 0;
      if (step === 1 || step === -1) {
        runLength = 2;
        direction = step;
      }
    }
  }
  flush();
  return Math.min(1, inRuns / value.length);
}

// Words that mark a value as a stand-in rather than a credential. Matched case-insensitively as
// substrings, so they are chosen to be unlikely inside random key material.
const PLACEHOLDER_WORDS = [
  'example',
  'placeholder',
  'changeme',
  'change_me',
  'change-me',
  'your_',
  'your-',
  'yourkey',
  'yourtoken',
  'yoursecret',
  'yourapikey',
  'my_api_key',
  'insert',
  'redacted',
  'dummy',
  'sample',
  'replace',
  'fixme',
  'todo',
  'notreal',
  'not_real',
  'not-a-real',
  'fake_',
  'xxxx',
  'abcdefghij',
  '1234567890abcdef',
  '********',
  '••••',
  '....',
  '…',
];

// Whole values that are configuration words, not secrets.
const PLACEHOLDER_VALUES = new Set([
  'password',
  'passwd',
  'pass',
  'secret',
  'token',
  'apikey',
  'api_key',
  'api-key',
  'key',
  'null',
  'none',
  'nil',
  'undefined',
  'true',
  'false',
  'test',
  'testing',
  'tests',
  'admin',
  'root',
  'user',
  'username',
  'guest',
  'default',
  'empty',
  'string',
  'required',
  'optional',
  'hidden',
  'secure',
  'private',
  'public',
  'mysecret',
  'mypassword',
  'password123',
  'secret123',
  'qwerty',
  'letmein',
  'welcome',
  'foobar',
  'foo',
  'bar',
  'baz',
  'value',
  'tbd',
  'n/a',
]);

export interface Verdict {
  ok: boolean;
  /** Short reason for the explanation, e.g. `entropy 4.31 bits/char`. */
  note: string;
}

/**
 * Rejects template variables (`${VAR}`, `{{ x }}`, `$(cmd)`, `%s`, `<your-key>`, `[PASSWORD]`),
 * placeholder words, masked values and repeated characters. Returns the reason when rejected.
 */
export function placeholderReason(value: string): string | undefined {
  const lower = value.toLowerCase();
  if (value.length === 0) return 'empty';
  if (PLACEHOLDER_VALUES.has(lower)) return `placeholder word "${value}"`;
  if (value.startsWith('$') || value.includes('${') || value.includes('$(') || value.includes('{{')) {
    return 'template variable';
  }
  if (value.startsWith('<') || value.endsWith('>') || value.startsWith('[') || value.startsWith('%')) {
    return 'placeholder brackets';
  }
  if (/^\{[A-Za-z_ .-]{1,60}\}?$/.test(value)) return 'placeholder braces';
  if (value.includes('%s') || value.includes('%(')) return 'format string';
  if (/^(?:process\.env|os\.environ|os\.getenv|env\.|config\.|settings\.|secrets\.)/i.test(value)) {
    return 'code reference';
  }
  for (const word of PLACEHOLDER_WORDS) if (lower.includes(word)) return `placeholder text "${word}"`;
  if (/(.)\1{5,}/.test(value) && dominantCharacterShare(value) > 0.3) return 'repeated characters';
  if (dominantCharacterShare(value) > 0.5 && value.length >= 8) return 'one character dominates';
  if (value.length >= 10 && sequentialShare(value) >= 0.9) return 'sequential characters';
  // `…abcdefgh…`, `…12345678…`: a run that random key material all but never holds.
  if (value.length >= 16 && longestSequentialRun(value) >= 8) return 'alphabet or digit run';
  return undefined;
}

/** Length of the longest run of consecutive ascending or descending characters. */
export function longestSequentialRun(value: string): number {
  let best = value.length > 0 ? 1 : 0;
  let run = 1;
  let direction = 0;
  for (let i = 1; i < value.length; i += 1) {
    const step = value.charCodeAt(i) - value.charCodeAt(i - 1);
    if ((step === 1 || step === -1) && (direction === 0 || direction === step)) {
      run += 1;
      direction = step;
    } else if (step === 1 || step === -1) {
      run = 2;
      direction = step;
    } else {
      run = 1;
      direction = 0;
    }
    if (run > best) best = run;
  }
  return best;
}

/** Share of printable ASCII (and tab, newline) in a decoded string. */
export function printableShare(decoded: string): number {
  if (decoded.length === 0) return 0;
  let printable = 0;
  for (let i = 0; i < decoded.length; i += 1) {
    const code = decoded.charCodeAt(i);
    if ((code >= 32 && code < 127) || code === 9 || code === 10 || code === 13) printable += 1;
  }
  return printable / decoded.length;
}

/**
 * Entropy check for key material: longer strings must carry more bits per character. Hex strings
 * top out at 4 bits/char, so they get a lower bar.
 */
export function entropyVerdict(value: string, bonus = 0): Verdict {
  const bits = shannonEntropy(value);
  const isHex = /^[0-9a-fA-F-]+$/.test(value);
  let threshold: number;
  if (value.length < 12) threshold = 2.6;
  else if (value.length < 20) threshold = isHex ? 2.7 : 3.0;
  else threshold = isHex ? 3.0 : 3.3;
  threshold -= bonus;
  const note = `entropy ${bits.toFixed(2)} bits/char (min ${threshold.toFixed(1)})`;
  return { ok: bits >= threshold, note };
}

/** Placeholder rejection then entropy: the default validator for prefixed tokens. */
export function keyMaterialVerdict(value: string, entropyBonus = 0): Verdict {
  const reason = placeholderReason(value);
  if (reason !== undefined) return { ok: false, note: reason };
  return entropyVerdict(value, entropyBonus);
}

function base64UrlDecode(segment: string): string | undefined {
  const normal = segment.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normal)) return undefined;
  try {
    return Buffer.from(normal, 'base64').toString('latin1');
  } catch {
    return undefined;
  }
}

/**
 * A JWT's first segment must decode to a JSON object naming an `alg` (or at least `typ`). A header
 * that decodes to `{"…` but is damaged still counts, at lower confidence, since it is shaped like a
 * token someone pasted.
 */
export function jwtHeaderVerdict(token: string): Verdict & { strict: boolean } {
  const dot = token.indexOf('.');
  const header = base64UrlDecode(dot === -1 ? token : token.slice(0, dot));
  if (header === undefined) return { ok: false, strict: false, note: 'header is not base64url' };
  try {
    const parsed: unknown = JSON.parse(header);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const alg = (parsed as Record<string, unknown>).alg;
      if (typeof alg === 'string') return { ok: true, strict: true, note: `header alg ${alg}` };
      if ('typ' in parsed || 'kid' in parsed) return { ok: true, strict: false, note: 'header without alg' };
    }
    return { ok: false, strict: false, note: 'header JSON has no alg' };
  } catch {
    if (header.startsWith('{"') && (header.includes('"alg"') || header.includes('"typ"'))) {
      return { ok: true, strict: false, note: 'damaged header naming alg/typ' };
    }
    return { ok: false, strict: false, note: 'header is not JSON' };
  }
}

/** `Basic` credentials must decode to printable `user:password`. */
export function basicAuthVerdict(encoded: string): Verdict {
  if (!/^[A-Za-z0-9+/]{4,}={0,2}$/.test(encoded)) return { ok: false, note: 'not base64' };
  const decoded = Buffer.from(encoded, 'base64').toString('latin1');
  let printable = 0;
  for (let i = 0; i < decoded.length; i += 1) {
    const code = decoded.charCodeAt(i);
    if (code >= 32 && code < 127) printable += 1;
  }
  // A credential is printable text; tolerate a stray byte from a damaged paste.
  if (!decoded.includes(':') || printable < decoded.length * 0.9) {
    return { ok: false, note: 'does not decode to user:password' };
  }
  const colon = decoded.indexOf(':');
  const reason = placeholderReason(decoded.slice(colon + 1) || decoded.slice(0, colon));
  if (reason !== undefined) return { ok: false, note: `decoded credential is a ${reason}` };
  return { ok: true, note: 'decodes to user:password' };
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  while (rest > 0) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, '0');
}

/**
 * GitHub (`ghp_`, `gho_`, …) and npm tokens end in six base62 characters of the CRC32 of the 30
 * random characters before them. A match makes the token near-certain; a mismatch proves nothing
 * (test fixtures and docs use random strings), so callers only raise confidence on it.
 */
export function githubStyleChecksumOk(token: string): boolean {
  const body = token.slice(token.indexOf('_') + 1);
  if (body.length !== 36) return false;
  return base62(crc32(body.slice(0, 30)), 6) === body.slice(30);
}
