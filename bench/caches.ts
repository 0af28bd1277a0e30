// Micro-benchmarks behind issue 14's "hand-written parts a package does well": bounded caches
// (hand-written Map vs lru-cache), the SSRF address check (hand-written vs ipaddr.js) and the SSE
// parser (hand-written vs eventsource-parser). The hand-written versions are kept here as the
// baseline; the SSRF check and the SSE parser of src/ are the package-backed ones. Each figure is the best of seven rounds after a warm-up.
// Run: npx tsx bench/caches.ts
import { createHash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { LRUCache } from 'lru-cache';
import { SseParser } from '../src/areas/proxy/sse.js';
import { internalHost } from '../src/engine/pipeline/actions/http.js';

const ROUNDS = 7;

/** Operations per second of fn over ops calls: the best of ROUNDS rounds. */
function opsPerSecond(ops: number, fn: (i: number) => void): number {
  for (let i = 0; i < ops; i += 1) fn(i);
  let best = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < ops; i += 1) fn(i);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    best = Math.max(best, ops / seconds);
  }
  return best;
}

const fmt = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : `${(n / 1e3).toFixed(1)} k`);

function row(label: string, before: number, after: number, extra = ''): void {
  const ratio = after / before;
  console.log(`  ${label.padEnd(44)} hand ${fmt(before).padStart(9)}/s   pkg ${fmt(after).padStart(9)}/s   pkg/hand ${ratio.toFixed(2)}${extra}`);
}

// A deterministic skewed key mix: a few keys carry most of the traffic (Zipf, s = 1.1).
function zipfKeys(universe: number, count: number, make: (rank: number) => string, seed = 7): string[] {
  const weights = Array.from({ length: universe }, (_, i) => 1 / (i + 1) ** 1.1);
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative: number[] = [];
  let sum = 0;
  for (const w of weights) cumulative.push((sum += w / total));
  let state = seed;
  const random = (): number => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const names = Array.from({ length: universe }, (_, i) => make(i));
  const keys: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const r = random();
    let lo = 0;
    let hi = universe - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < r) lo = mid + 1;
      else hi = mid;
    }
    keys.push(names[lo] as string);
  }
  return keys;
}

// --- 1. memo caches: get, compute and set on a miss -----------------------------------------------

/** The hand-written pattern of fingerprint.ts, tools.ts, sql.ts and generic.ts: clear all at the limit. */
function clearingMemo<V>(limit: number, compute: (key: string) => V): { get: (key: string) => V; misses: () => number } {
  const map = new Map<string, V>();
  let misses = 0;
  return {
    get(key) {
      const cached = map.get(key);
      if (cached !== undefined) return cached;
      misses += 1;
      const value = compute(key);
      if (map.size >= limit) map.clear();
      map.set(key, value);
      return value;
    },
    misses: () => misses,
  };
}

function lruMemo<V extends object | string>(limit: number, compute: (key: string) => V): { get: (key: string) => V; misses: () => number } {
  const lru = new LRUCache<string, V>({ max: limit });
  let misses = 0;
  return {
    get(key) {
      const cached = lru.get(key);
      if (cached !== undefined) return cached;
      misses += 1;
      const value = compute(key);
      lru.set(key, value);
      return value;
    },
    misses: () => misses,
  };
}

/** missMicros: a modelled cost of the real computation on a miss (SQL parsing), added per miss. */
function memoCase(label: string, limit: number, universe: number, make: (rank: number) => string, compute: (key: string) => object | string, missMicros = 0): void {
  const keys = zipfKeys(universe, 1 << 16, make);
  const mask = keys.length - 1;
  const hand = clearingMemo(limit, compute);
  const pkg = lruMemo(limit, compute);
  const before = opsPerSecond(1 << 19, (i) => hand.get(keys[i & mask] as string));
  const after = opsPerSecond(1 << 19, (i) => pkg.get(keys[i & mask] as string));
  const calls = (1 << 19) * (ROUNDS + 1);
  const rate = (m: number): string => `${((100 * m) / calls).toFixed(1)}%`;
  row(label, before, after, `   misses hand ${rate(hand.misses())} pkg ${rate(pkg.misses())}`);
  if (missMicros > 0) {
    const perCall = (opsPerSec: number, m: number): string => `${(1e6 / opsPerSec + (missMicros * m) / calls).toFixed(2)} µs`;
    console.log(`  ${''.padEnd(44)} with ${missMicros} µs per miss: hand ${perCall(before, hand.misses())} pkg ${perCall(after, pkg.misses())} per call`);
  }
}

const sha = (key: string): string => createHash('sha256').update(key).digest('hex');
const fingerprintKey = (rank: number): string => JSON.stringify(['secret.exposed', `agent-${rank % 97}`, `rule-${rank}`, 'output']);
const toolName = (rank: number): string => `mcp__server_${rank % 13}__tool_name_${rank}`;
const identifier = (rank: number): string => `SERVICE_${rank}_API_KEY`;
const cheapVerdict = (key: string): object => ({ ok: key.length > 12, secretWord: 'key', vendorOnly: false });

// --- 2. the credential resolver: a TTL'd entry, hits checked against a clock ------------------------

interface CredentialEntry {
  principal: object;
  hash: string;
  expiresAtMs: number;
  cachedUntilMs: number;
}

function resolverCase(): void {
  const tokens = Array.from({ length: 200 }, (_, i) => `ppt_${sha(String(i)).slice(0, 40)}`);
  const keys = zipfKeys(tokens.length, 1 << 16, (rank) => tokens[rank] as string);
  const mask = keys.length - 1;
  const now = Date.now();
  const entry = (raw: string): CredentialEntry => ({ principal: { kind: 'traffic', raw }, hash: sha(raw), expiresAtMs: Infinity, cachedUntilMs: now + 3_600_000 });
  const map = new Map<string, CredentialEntry>();
  const lru = new LRUCache<string, CredentialEntry>({ max: 10_000 });
  for (const raw of tokens) {
    map.set(raw, entry(raw));
    lru.set(raw, entry(raw));
  }
  const hit = (found: CredentialEntry | undefined, nowMs: number): object | null | undefined => {
    if (found === undefined || found.cachedUntilMs <= nowMs) return undefined;
    return found.expiresAtMs <= nowMs ? null : found.principal;
  };
  const before = opsPerSecond(1 << 20, (i) => hit(map.get(keys[i & mask] as string), Date.now()));
  const after = opsPerSecond(1 << 20, (i) => hit(lru.get(keys[i & mask] as string), Date.now()));
  row('resolver hit (200 tokens, clock read)', before, after);

  // A burst of distinct credentials past the limit: the hand-written cache forgets all of them.
  const flood = Array.from({ length: 30_000 }, (_, i) => `ppt_flood_${i}`);
  const burst = (limit: number, useLru: boolean): number => {
    const m = new Map<string, CredentialEntry>();
    const l = new LRUCache<string, CredentialEntry>({ max: limit });
    let lookups = 0;
    for (let pass = 0; pass < 3; pass += 1) {
      for (let i = 0; i < flood.length; i += 1) {
        // The busy 200 tokens keep coming between the flood's one-off credentials.
        for (const raw of [flood[i] as string, tokens[i % tokens.length] as string]) {
          const found = useLru ? l.get(raw) : m.get(raw);
          if (found !== undefined) continue;
          lookups += 1;
          if (useLru) l.set(raw, entry(raw));
          else {
            if (m.size >= limit) m.clear();
            m.set(raw, entry(raw));
          }
        }
      }
    }
    return lookups;
  };
  console.log(`  resolver under a flood of 30k one-off credentials x3: database lookups of the 200 busy tokens hand ${burst(10_000, false) - 90_000}, pkg ${burst(10_000, true) - 90_000}`);
}

// --- 3. the schema cache of json.ts: already an LRU (delete + set on a hit) ----------------------

function schemaCase(): void {
  const texts = Array.from({ length: 100 }, (_, i) => JSON.stringify({ type: 'object', properties: { [`field${i}`]: { type: 'string' } }, required: [`field${i}`] }));
  const keys = zipfKeys(texts.length, 1 << 16, (rank) => texts[rank] as string);
  const mask = keys.length - 1;
  const limit = 64;
  const map = new Map<string, object>();
  const lru = new LRUCache<string, object>({ max: limit });
  const compiled = {};
  const before = opsPerSecond(1 << 19, (i) => {
    const text = keys[i & mask] as string;
    const found = map.get(text);
    if (found !== undefined) {
      map.delete(text);
      map.set(text, found);
      return;
    }
    map.set(text, compiled);
    if (map.size > limit) map.delete(map.keys().next().value as string);
  });
  const after = opsPerSecond(1 << 19, (i) => {
    const text = keys[i & mask] as string;
    if (lru.get(text) === undefined) lru.set(text, compiled);
  });
  row('schema LRU (100 schemas, 64 kept)', before, after);
}

// --- 4. the detection cache: per-surface maps under a character budget ---------------------------

function detectionCase(): void {
  const surfaces = ['input', 'output', 'tool_args', 'tool_result'] as const;
  const texts = Array.from({ length: 2000 }, (_, i) => `${'You are a helpful assistant. '.repeat(30)}${i}`);
  const keys = zipfKeys(texts.length, 1 << 16, (rank) => texts[rank] as string);
  const mask = keys.length - 1;
  const budget = 1_000_000;
  const result = { detections: [], runs: [], degraded: [] };
  // Hand-written: one Map per surface, a hit moves the entry to the end, eviction from the largest.
  const bySurface = new Map<string, Map<string, { size: number }>>();
  let chars = 0;
  const before = opsPerSecond(1 << 18, (i) => {
    const surface = surfaces[i & 3] as string;
    const text = keys[i & mask] as string;
    let entries = bySurface.get(surface);
    const found = entries?.get(text);
    if (found !== undefined) {
      entries!.delete(text);
      entries!.set(text, found);
      return;
    }
    if (entries === undefined) bySurface.set(surface, (entries = new Map()));
    entries.set(text, { size: text.length + 64 });
    chars += text.length + 64;
    while (chars > budget) {
      let largest: Map<string, { size: number }> | undefined;
      for (const e of bySurface.values()) if (largest === undefined || e.size > largest.size) largest = e;
      const oldest = largest!.entries().next().value as [string, { size: number }];
      largest!.delete(oldest[0]);
      chars -= oldest[1].size;
    }
  });
  // lru-cache: one cache under the same budget, keyed by surface and text.
  const lru = new LRUCache<string, typeof result>({ maxSize: budget, sizeCalculation: (_v, key) => key.length + 64 });
  const after = opsPerSecond(1 << 18, (i) => {
    const key = `${surfaces[i & 3] as string}\u0000${keys[i & mask] as string}`;
    if (lru.get(key) === undefined) lru.set(key, result);
  });
  row('detection cache (4 surfaces, 900-char texts)', before, after);
}

// --- 5. SSRF address check: hand-written parsing vs ipaddr.js -------------------------------------

function ipCase(): void {
  const kinds: Array<[string, string[]]> = [
    ['names', ['api.example.com', 'localhost', 'metadata.google.internal', 'github.com']],
    ['IPv4 literals', ['10.0.0.5', '169.254.169.254', '8.8.8.8', '192.168.1.20']],
    ['IPv6 literals', ['[::1]', '[::ffff:7f00:1]', '[2001:db8::1]', '[fd00:ec2::254]']],
  ];
  for (const [kind, list] of kinds) {
    const before = opsPerSecond(1 << 19, (i) => handInternalHost(list[i & 3] as string));
    const after = opsPerSecond(1 << 19, (i) => internalHost(list[i & 3] as string));
    row(`internalHost, ${kind}`, before, after);
  }
}

/** The hand-written check of http.ts before ipaddr.js (the baseline). */
function handInternalHost(host: string): { why: string; metadata: boolean } | null {
  let name = host.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name === 'metadata.google.internal' || name === 'metadata' || name === 'instance-data') return { why: 'a cloud metadata address', metadata: true };
  if (name === 'localhost' || name.endsWith('.localhost')) return { why: 'loopback', metadata: false };
  if (name.endsWith('.internal') || name.endsWith('.local') || name.endsWith('.lan')) return { why: 'an internal name', metadata: false };
  if (name.startsWith('[')) {
    const address = name.slice(1, -1);
    if (address === '::1' || address === '::') return { why: 'loopback', metadata: false };
    if (address === 'fd00:ec2::254') return { why: 'a cloud metadata address', metadata: true };
    if (address.startsWith('fc') || address.startsWith('fd')) return { why: 'a private (ULA) address', metadata: false };
    if (address.startsWith('fe8') || address.startsWith('fe9') || address.startsWith('fea') || address.startsWith('feb')) return { why: 'a link-local address', metadata: false };
    if (address.startsWith('::ffff:')) {
      const groups = address.slice(7).split(':');
      if (groups.length === 2) {
        const high = parseInt(groups[0] ?? '', 16);
        const low = parseInt(groups[1] ?? '', 16);
        if (Number.isFinite(high) && Number.isFinite(low)) return handIpv4([high >> 8, high & 255]);
      }
    }
    return null;
  }
  const parts = name.split('.');
  if (parts.length !== 4) return null;
  const octets: number[] = [];
  for (const part of parts) {
    if (part.length === 0 || part.length > 3) return null;
    const value = Number(part);
    if (!Number.isInteger(value) || value < 0 || value > 255) return null;
    octets.push(value);
  }
  return handIpv4(octets);
}

function handIpv4([a = 0, b = 0]: number[]): { why: string; metadata: boolean } | null {
  if (a === 169 && b === 254) return { why: 'a link-local cloud metadata address', metadata: true };
  if (a === 127) return { why: 'loopback', metadata: false };
  if (a === 0) return { why: 'this host (0.0.0.0/8)', metadata: false };
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return { why: 'a private address', metadata: false };
  if (a === 100 && b >= 64 && b <= 127) return { why: 'a carrier-grade NAT address', metadata: false };
  return null;
}

// --- 6. SSE: a streamed answer of small `data:` events cut at arbitrary byte boundaries -----------

/** The hand-written parser of src/areas/proxy/sse.ts (the baseline). */
class HandSseParser {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  private data: string[] = [];

  push(chunk: Buffer | string): string[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const events: string[] = [];
    let newline: number;
    while ((newline = this.buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = this.buffer.slice(0, newline);
      const width = this.buffer.startsWith('\r\n', newline) ? 2 : 1;
      if (width === 1 && this.buffer[newline] === '\r' && newline === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(newline + width);
      if (line === '') {
        if (this.data.length > 0) events.push(this.data.join('\n'));
        this.data = [];
      } else if (line.startsWith('data:')) {
        this.data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
    }
    return events;
  }
}

function sseCase(label: string, eventCount: number, maxChunk: number, crlf: boolean): void {
  const eol = crlf ? '\r\n' : '\n';
  let text = '';
  for (let i = 0; i < eventCount; i += 1) {
    const delta = i % 50 === 0 ? 'héllo ✓' : `tok${i}`;
    text += `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${delta}"}}]}${eol}${eol}`;
  }
  text += `data: [DONE]${eol}${eol}`;
  const bytes = Buffer.from(text);
  // Cut points as a network delivers them: 1 to maxChunk bytes, wherever they fall.
  const chunks: Buffer[] = [];
  let state = 11;
  for (let at = 0; at < bytes.length; ) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const size = 1 + (state % maxChunk);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  const run = (make: () => { push(chunk: Buffer): string[] }): number => {
    const parser = make();
    let count = 0;
    for (const chunk of chunks) count += parser.push(chunk).length;
    if (count !== eventCount + 1) throw new Error(`${label}: ${count} events, expected ${eventCount + 1}`);
    return count;
  };
  const before = opsPerSecond(20, () => run(() => new HandSseParser())) * bytes.length;
  const after = opsPerSecond(20, () => run(() => new SseParser())) * bytes.length;
  const mb = (bps: number): string => `${(bps / 1e6).toFixed(0)} MB/s`;
  console.log(`  ${label.padEnd(44)} hand ${mb(before).padStart(9)}     pkg ${mb(after).padStart(9)}     pkg/hand ${(after / before).toFixed(2)}`);
}

console.log('memo caches (get, compute on a miss, set):');
memoCase('fingerprint: 10k kept, 5k keys, sha256', 10_000, 5_000, fingerprintKey, sha);
memoCase('fingerprint: 10k kept, 40k keys, sha256', 10_000, 40_000, fingerprintKey, sha);
memoCase('tool profile: 1024 kept, 300 tools', 1024, 300, toolName, cheapVerdict);
memoCase('tool profile: 1024 kept, 5k tools', 1024, 5_000, toolName, cheapVerdict);
memoCase('sql verdict: 512 kept, 300 statements', 512, 300, (rank) => `SELECT * FROM orders WHERE id = ${rank}`, cheapVerdict, 200);
memoCase('sql verdict: 512 kept, 3k statements', 512, 3_000, (rank) => `SELECT * FROM orders WHERE id = ${rank}`, cheapVerdict, 200);
memoCase('secret name: 2048 kept, 1k names', 2048, 1_000, identifier, cheapVerdict);
memoCase('secret name: 2048 kept, 20k names', 2048, 20_000, identifier, cheapVerdict);
console.log('credential resolver:');
resolverCase();
console.log('LRUs already hand-written:');
schemaCase();
detectionCase();
console.log('SSRF address check:');
ipCase();
console.log('SSE parser (bytes per second):');
sseCase('2000 events, chunks of 1-64 bytes', 2000, 64, false);
sseCase('2000 events, chunks of 1-1500 bytes', 2000, 1500, false);
sseCase('2000 events, CRLF, chunks of 1-1500 bytes', 2000, 1500, true);
sseCase('2000 events, chunks of 1 byte', 2000, 1, false);
