// HTTP arguments: which host a request goes to, whether it reads or writes, and whether the host is
// one the operator knows or an internal address an agent should never reach (SSRF). Uses the
// WHATWG URL parser, which also normalises the tricks (decimal and hex IPv4, IPv4-mapped IPv6), and
// ipaddr.js for the address ranges. No I/O here: hosts are judged by name, never resolved.
import ipaddr from 'ipaddr.js';
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
  // A host from a shell command is not normalised by the URL parser: ipaddr.js reads the same
  // shorthand forms (127.1, 2130706433, 0x7f.0.0.1, 0177.0.0.1) as the system resolver would.
  // Every IPv4 form starts with a digit: names skip the parser (which throws on them).
  const first = name.charCodeAt(0);
  if (first < 48 || first > 57) return null;
  const address = parseOrNull(ipaddr.IPv4, name);
  return address === null ? null : internalIpv4(address);
}

/** One parse, no isValid first: that would parse twice. */
function parseOrNull<T>(family: { parse(text: string): T }, text: string): T | null {
  try {
    return family.parse(text);
  } catch {
    return null;
  }
}

function internalIpv4(address: ipaddr.IPv4): { why: string; metadata: boolean } | null {
  switch (address.range()) {
    case 'linkLocal':
      return { why: 'a link-local cloud metadata address', metadata: true };
    case 'loopback':
      return { why: 'loopback', metadata: false };
    case 'unspecified':
      return { why: 'this host (0.0.0.0/8)', metadata: false };
    case 'private':
      return { why: 'a private address', metadata: false };
    case 'carrierGradeNat':
      return { why: 'a carrier-grade NAT address', metadata: false };
    default:
      return null;
  }
}

const EC2_METADATA_V6 = ipaddr.IPv6.parse('fd00:ec2::254');

function internalIpv6(text: string): { why: string; metadata: boolean } | null {
  const address = text.includes(':') ? parseOrNull(ipaddr.IPv6, text) : null;
  if (address === null) return null;
  switch (address.range()) {
    case 'loopback':
    case 'unspecified':
      return { why: 'loopback', metadata: false };
    case 'uniqueLocal':
      return address.match(EC2_METADATA_V6, 128) ? { why: 'a cloud metadata address', metadata: true } : { why: 'a private (ULA) address', metadata: false };
    case 'linkLocal':
      return { why: 'a link-local address', metadata: false };
    // IPv4-mapped (::ffff:127.0.0.1, which the URL parser writes ::ffff:7f00:1): judged as the IPv4 address.
    case 'ipv4Mapped':
      return internalIpv4(address.toIPv4Address());
    default:
      return null;
  }
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
