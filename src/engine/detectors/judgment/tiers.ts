// Judgment tiers: OpenAI-compatible chat-completions endpoints named in `judgment_tiers` or the
// stored judgment posture. A tier is one string, `<base-url>|<model>` or
// `<base-url>|<model>|<API_KEY_ENV>` (the name of an environment variable holding its key, never
// the key itself), e.g. `http://127.0.0.1:8000/v1|llama-guard`. `deterministic` may be listed and
// is dropped: the pattern detectors are the implicit last tier and always run.
// A tier is local when its host is a loopback or private address (payloads stay on the machine or
// network); any other host, names included, is hosted and needs `allow_egress`.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

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

/** Address ranges (ipaddr.js names) whose payloads stay on the machine or its network. */
const LOCAL_RANGES = new Set(['loopback', 'private', 'linkLocal', 'uniqueLocal']);

/** Loopback, private (RFC 1918, unique-local) and link-local addresses, and localhost names. */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  // Only literal addresses in their standard forms (as URL writes them); a name is hosted.
  if (isIP(host) === 0) return false;
  let address = ipaddr.parse(host);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  return LOCAL_RANGES.has(address.range());
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
