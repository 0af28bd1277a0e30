// HTTP arguments: which host a request goes to, whether it reads or writes, and whether the host is
// one the operator knows or an internal address an agent should never reach (SSRF). Uses the
// WHATWG URL parser, which also normalises the tricks (decimal and hex IPv4, IPv4-mapped IPv6).
// No I/O here: hosts are judged by name, never resolved.
import type { BlastRadius, Sink } from './types.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Normalises one knownHosts entry: lower case, no scheme, port, path or trailing dot. */
function normaliseHostEntry(entry: string): string {
  let host = entry.trim().toLowerCase();
  const scheme = host.indexOf('://');
  if (scheme >= 0) host = host.slice(scheme + 3);
  const slash = host.indexOf('/');
  if (slash >= 0) host = host.slice(0, slash);
  if (!host.startsWith('[')) {
    const colon = host.indexOf(':');
    if (colon >= 0) host = host.slice(0, colon);
  }
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** Is host (lower case, as URL.hostname gives it) allowed by knownHosts? "*.x.com" matches subdomains only. */
export function hostKnown(host: string, knownHosts: readonly string[]): boolean {
  const bare = host.endsWith('.') ? host.slice(0, -1) : host;
  for (const raw of knownHosts) {
    const entry = normaliseHostEntry(raw);
    if (entry.length === 0) continue;
    if (entry.startsWith('*.')) {
      if (bare.endsWith(entry.slice(1)) && bare.length > entry.length - 1) return true;
    } else if (bare === entry) {
      return true;
    }
  }
  return false;
}

/** Why a host is internal (loopback, private, link-local, cloud metadata), or null when public. */
export function internalHost(host: string): { why: string; metadata: boolean } | null {
  let name = host.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name === 'metadata.google.internal' || name === 'metadata' || name === 'instance-data') {
    return { why: 'a cloud metadata address', metadata: true };
  }
  if (name === 'localhost' || name.endsWith('.localhost')) return { why: 'loopback', metadata: false };
  if (name.endsWith('.internal') || name.endsWith('.local') || name.endsWith('.lan')) return { why: 'an internal name', metadata: false };
  if (name.startsWith('[')) return internalIpv6(name.slice(1, -1));
  const octets = ipv4(name);
  return octets ? internalIpv4(octets) : null;
}

function ipv4(name: string): number[] | null {
  const parts = name.split('.');
  if (parts.length !== 4) return null;
  const octets: number[] = [];
  for (const part of parts) {
    if (part.length === 0 || part.length > 3) return null;
    const value = Number(part);
    if (!Number.isInteger(value) || value < 0 || value > 255) return null;
    octets.push(value);
  }
  return octets;
}

function internalIpv4([a = 0, b = 0]: number[]): { why: string; metadata: boolean } | null {
  if (a === 169 && b === 254) return { why: 'a link-local cloud metadata address', metadata: true };
  if (a === 127) return { why: 'loopback', metadata: false };
  if (a === 0) return { why: 'this host (0.0.0.0/8)', metadata: false };
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return { why: 'a private address', metadata: false };
  if (a === 100 && b >= 64 && b <= 127) return { why: 'a carrier-grade NAT address', metadata: false };
  return null;
}

function internalIpv6(address: string): { why: string; metadata: boolean } | null {
  if (address === '::1' || address === '::') return { why: 'loopback', metadata: false };
  if (address === 'fd00:ec2::254') return { why: 'a cloud metadata address', metadata: true };
  if (address.startsWith('fc') || address.startsWith('fd')) return { why: 'a private (ULA) address', metadata: false };
  if (address.startsWith('fe8') || address.startsWith('fe9') || address.startsWith('fea') || address.startsWith('feb')) {
    return { why: 'a link-local address', metadata: false };
  }
  // IPv4-mapped: the URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1.
  if (address.startsWith('::ffff:')) {
    const groups = address.slice(7).split(':');
    if (groups.length === 2) {
      const high = parseInt(groups[0] ?? '', 16);
      const low = parseInt(groups[1] ?? '', 16);
      if (Number.isFinite(high) && Number.isFinite(low)) return internalIpv4([high >> 8, high & 255, low >> 8, low & 255]);
    }
  }
  return null;
}

export interface HostJudgement {
  radius: BlastRadius;
  reason: string;
}

/**
 * Reach of sending (write) or fetching (read) to host. Internal addresses are SSRF whatever the
 * method; an operator may list an internal host as known, but never a metadata address.
 */
export function judgeHost(host: string, write: boolean, knownHosts: readonly string[]): HostJudgement {
  const internal = internalHost(host);
  const known = hostKnown(host, knownHosts);
  if (internal && (internal.metadata || !known)) {
    return { radius: 'broad', reason: `SSRF: ${host} is ${internal.why}` };
  }
  if (write) {
    return known
      ? { radius: 'narrow', reason: `sends data to ${host}, a known host` }
      : { radius: 'broad', reason: `sends data to ${host}, not a known host: data leaves to an unknown destination` };
  }
  return known ? { radius: 'none', reason: `reads from ${host}, a known host` } : { radius: 'narrow', reason: `reads from ${host}` };
}

/** Analyses one URL argument sent with method (upper case). */
export function analyseUrl(sink: Sink, argument: string, text: string, method: string, truncated: boolean): void {
  const write = WRITE_METHODS.has(method);
  const kind = write ? 'http.write' : 'http.read';
  const destructive = method === 'DELETE';
  const failClosed = (why: string): void => {
    sink.unanalysable.push(`${argument}: ${why}`);
    sink.findings.push({ kind, argument, radius: 'total', destructive: true, reason: `${why}; treated as destructive with total reach` });
  };
  if (truncated) return failClosed('url over 64 KB');
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return failClosed('url did not parse');
  }
  const scheme = url.protocol;
  if (scheme === 'file:') {
    sink.findings.push({ kind, argument, radius: 'broad', destructive, reason: `SSRF: a file: URL reads the gateway's own files (${url.pathname.slice(0, 80)})` });
    return;
  }
  if (scheme !== 'http:' && scheme !== 'https:' && scheme !== 'ws:' && scheme !== 'wss:') {
    sink.findings.push({ kind, argument, radius: 'broad', destructive, reason: `SSRF: the ${scheme} scheme can speak to internal services` });
    return;
  }
  const judgement = judgeHost(url.hostname, write, sink.knownHosts);
  const reason = `${method} ${judgement.reason}${destructive ? '; DELETE removes the resource' : ''}`;
  sink.findings.push({ kind, argument, radius: judgement.radius, destructive, reason });
}

/** Upper-case method from a value, or '' when it is not a method name. */
export function methodOf(value: unknown): string {
  if (typeof value !== 'string' || value.length > 16) return '';
  const method = value.trim().toUpperCase();
  return /^[A-Z]+$/.test(method) ? method : '';
}
