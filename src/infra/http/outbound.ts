// Calls the gateway makes to addresses operators configure (chat webhooks, code hosts, hosted-API
// documents, monitors): https only, never a loopback, private, link-local or metadata address
// (checked on the URL and again on every address DNS answers, at connect time, so that a name
// cannot be rebound to an inner address), a timeout, a cap on what is read, and redirects only
// within the same origin. `allowPrivate` (the setting outbound_allow_private) lifts the address and
// scheme rules for closed networks and tests; it never lifts the timeout or the cap.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent, request, type Dispatcher } from 'undici';

export interface OutboundPolicy {
  /** http:// and loopback/private addresses allowed (outbound_allow_private). */
  allowPrivate: boolean;
}

export interface OutboundRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  /** Bytes of the answer read at most; the rest is dropped and `truncated` set. */
  maxBytes?: number;
  /** Same-origin redirects followed at most (0: none); a redirect elsewhere is never followed. */
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface OutboundAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The answer was longer than maxBytes. */
  truncated: boolean;
  /** The URL that answered (after same-origin redirects). */
  url: string;
}

/** Refused by policy before or while connecting: the message says why (safe to show operators). */
export class OutboundRefused extends Error {
  override readonly name = 'OutboundRefused';
}

export const DEFAULT_OUTBOUND_TIMEOUT_MS = 10_000;
export const DEFAULT_OUTBOUND_MAX_BYTES = 1_048_576;

const FORBIDDEN_RANGES = new Set(['unspecified', 'broadcast', 'multicast', 'linkLocal', 'loopback', 'private', 'uniqueLocal', 'carrierGradeNat', 'reserved', 'ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo']);

/** Why an address may not be called under the policy, or null. */
export function forbiddenAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return FORBIDDEN_RANGES.has(range) ? `${address} is a ${range} address` : null;
}

/** Why the URL may not be called under the policy, or null. Names are judged again when resolved. */
export function outboundUrlProblem(raw: string, policy: OutboundPolicy): string | null {
  if (!URL.canParse(raw)) return 'not a URL';
  const url = new URL(raw);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `scheme ${url.protocol} is not http(s)`;
  if (url.username !== '' || url.password !== '') return 'credentials in the URL are not accepted';
  if (policy.allowPrivate) return null;
  if (url.protocol !== 'https:') return 'only https URLs are called (outbound_allow_private permits http)';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || host.endsWith('.local')) return `${host} is a local name`;
  const forbidden = forbiddenAddress(host);
  return forbidden === null ? null : `${forbidden} (outbound_allow_private permits it)`;
}

/** A DNS lookup that refuses to hand out an address the policy forbids. */
export function guardedLookup(hostname: string, options: object, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) {
      callback(error, []);
      return;
    }
    const list = addresses as LookupAddress[];
    for (const { address } of list) {
      const forbidden = forbiddenAddress(address);
      if (forbidden !== null) {
        callback(Object.assign(new OutboundRefused(`${hostname} resolves to ${forbidden}`), { code: 'EOUTBOUNDREFUSED' }), []);
        return;
      }
    }
    const wantsAll = (options as { all?: boolean }).all === true;
    if (wantsAll) callback(null, list);
    else callback(null, (list[0] as LookupAddress).address, (list[0] as LookupAddress).family);
  });
}

let publicAgent: Agent | undefined;
/** The dispatcher for calls under a policy that forbids inner addresses (shared: it pools connections). */
function dispatcherFor(policy: OutboundPolicy): Dispatcher | undefined {
  if (policy.allowPrivate) return undefined;
  publicAgent ??= new Agent({ connect: { lookup: guardedLookup as never } });
  return publicAgent;
}

function refusedCause(error: unknown): OutboundRefused | null {
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 5; depth += 1) {
    if (current instanceof OutboundRefused) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/**
 * One outbound call under the policy. Throws OutboundRefused when the policy forbids the URL, an
 * address it resolves to or a redirect; other failures (timeout, connection) throw as they come.
 */
export async function outboundRequest(raw: string, policy: OutboundPolicy, options: OutboundRequest = {}): Promise<OutboundAnswer> {
  const problem = outboundUrlProblem(raw, policy);
  if (problem !== null) throw new OutboundRefused(problem);
  const timeoutMs = options.timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_OUTBOUND_MAX_BYTES;
  const signal = options.signal === undefined ? AbortSignal.timeout(timeoutMs) : AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]);
  const dispatcher = dispatcherFor(policy);
  let url = new URL(raw);
  const origin = url.origin;
  for (let hop = 0; ; hop += 1) {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        ...(options.body === undefined ? {} : { body: options.body }),
        signal,
        ...(dispatcher === undefined ? {} : { dispatcher }),
      });
    } catch (error) {
      const refused = refusedCause(error);
      if (refused !== null) throw refused;
      throw error;
    }
    const location = response.headers.location;
    if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
      discard(response.body);
      const next = URL.canParse(location, url.href) ? new URL(location, url) : undefined;
      if (next === undefined || next.origin !== origin) throw new OutboundRefused(`HTTP ${response.statusCode} redirects to another origin (${next?.origin ?? 'an unreadable location'}); not followed`);
      if (hop >= (options.maxRedirects ?? 0)) throw new OutboundRefused(`HTTP ${response.statusCode} redirect not followed (at most ${options.maxRedirects ?? 0})`);
      url = next;
      continue;
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    let truncated = false;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      const room = maxBytes - bytes;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        bytes = maxBytes;
        truncated = true;
        discard(response.body);
        break;
      }
      chunks.push(chunk);
      bytes += chunk.length;
    }
    return { status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString('utf8'), truncated, url: url.href };
  }
}

/** Stops reading a body; undici reports the stop as an error event, which is expected here. */
function discard(body: { on(event: 'error', listener: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}
