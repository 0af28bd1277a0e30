// Judgment tiers: OpenAI-compatible chat-completions endpoints named in `judgment_tiers` or the
// stored judgment posture. A tier is one string, `<base-url>|<model>` or
// `<base-url>|<model>|<API_KEY_ENV>` (the name of an environment variable holding its key, never
// the key itself), e.g. `http://127.0.0.1:8000/v1|llama-guard`. `deterministic` may be listed and
// is dropped: the pattern detectors are the implicit last tier and always run.
// A tier is local when its host is a loopback or private address (payloads stay on the machine or
// network); any other host, names included, is hosted and needs `allow_egress`.
import { isIP } from 'node:net';

export const DETERMINISTIC_TIER = 'deterministic';

export interface JudgmentTier {
  /** The string it was read from. */
  spec: string;
  /** The chat-completions URL called. */
  endpoint: string;
  model: string;
  apiKeyEnv: string | null;
  kind: 'local' | 'hosted';
  /** `host/model`, for reasons and explanations (no path, no key). */
  name: string;
}

const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;

/** Loopback, private (RFC 1918, unique-local) and link-local addresses, and localhost names. */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  if (family === 4) {
    const [a, b] = host.split('.').map(Number) as [number, number];
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (family === 6) {
    if (host === '::1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
    if (mapped !== null) return isLocalHost(mapped[1] as string);
    // URL writes an IPv4-mapped address in hex: ::ffff:7f00:1 is 127.0.0.1.
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
    if (hex !== null) {
      const high = parseInt(hex[1] as string, 16);
      const low = parseInt(hex[2] as string, 16);
      return isLocalHost(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
    }
    return /^f[cd][0-9a-f]{0,2}:/.test(host) || /^fe[89ab][0-9a-f]?:/.test(host);
  }
  return false;
}

/** Reads one tier string; a string it cannot read gives the reason. */
export function parseTier(spec: string): JudgmentTier | { error: string } {
  const parts = spec.split('|').map((part) => part.trim());
  const [base, model, keyEnv] = parts;
  if (parts.length < 2 || parts.length > 3 || base === undefined || model === undefined || model === '') {
    return { error: `tier "${spec}" is not <base-url>|<model> or <base-url>|<model>|<API_KEY_ENV>` };
  }
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return { error: `tier "${spec}": "${base}" is not a URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: `tier "${spec}": the URL must be http or https` };
  if (url.username !== '' || url.password !== '') return { error: `tier "${spec}": no credentials in the URL; name an environment variable instead` };
  if (url.search !== '' || url.hash !== '') return { error: `tier "${spec}": the URL takes no query or fragment` };
  if (keyEnv !== undefined && !ENV_NAME.test(keyEnv)) return { error: `tier "${spec}": "${keyEnv}" is not an environment variable name` };
  const path = url.pathname.replace(/\/+$/, '');
  const endpoint = `${url.origin}${path.endsWith('/chat/completions') ? path : `${path}/chat/completions`}`;
  return {
    spec,
    endpoint,
    model,
    apiKeyEnv: keyEnv ?? null,
    kind: isLocalHost(url.hostname) ? 'local' : 'hosted',
    name: `${url.host}/${model}`,
  };
}

/** Drops `deterministic` (implicit) and blank entries, keeping the order. */
export function explicitTiers(specs: readonly string[]): string[] {
  return specs.map((spec) => spec.trim()).filter((spec) => spec !== '' && spec !== DETERMINISTIC_TIER);
}
