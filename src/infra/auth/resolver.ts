// Turns a raw credential into a Principal. Hot path: a verified credential is kept in memory for
// `auth_cache_ms` (at most 2 s). The process that revokes forgets the credential at once and
// announces it on the change bus (topic `credentials`, with the secret's digest), and the other
// processes forget it on that message; without the bus a revocation still takes effect everywhere
// within `auth_cache_ms`.
// The cache is keyed by the presented value, so a hit costs no digest; a sweep drops entries
// soon after they lapse, so presented values do not linger in memory. Last-use times are
// collected in memory and written in one batch.
import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';
import { SECRET_PREFIX, digestSecret } from '../lib/secrets.js';
import type { Store } from '../store/db.js';
import type { ChangePublisher } from '../store/notify.js';
import type { Principal } from './principal.js';
import { findActiveAgentCredentialByHash, findActiveTokenByHash, markAgentCredentialsUsed, markTokensUsed } from './store.js';

interface CacheEntry {
  principal: Principal;
  hash: string;
  expiresAtMs: number;
  cachedUntilMs: number;
}

const MAX_CACHED = 10_000;
const USAGE_FLUSH_MS = 15_000;
const SWEEP_MS = 5_000;

export class CredentialResolver {
  private readonly rawByHash = new Map<string, string>();
  // Least recently used goes first when full, so a burst of new credentials does not send every
  // busy one back to the database; an entry leaving takes its reverse index along.
  private readonly cache = new LRUCache<string, CacheEntry>({ max: MAX_CACHED, dispose: (entry) => this.rawByHash.delete(entry.hash) });
  private readonly usedTokens = new Set<string>();
  private readonly usedCredentials = new Set<string>();
  private readonly timers: NodeJS.Timeout[];

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly cacheMs: number,
    private readonly changes?: ChangePublisher,
  ) {
    this.timers = [
      setInterval(() => void this.flushUsage().catch(() => undefined), USAGE_FLUSH_MS),
      setInterval(() => this.sweep(), SWEEP_MS),
    ];
    for (const timer of this.timers) timer.unref();
  }

  /** Resolves a raw credential; null when it is unknown, revoked or expired. */
  async resolve(raw: string): Promise<Principal | null> {
    const cached = this.cached(raw);
    return cached !== undefined ? cached : this.lookup(raw);
  }

  /**
   * The answer from this process's cache, without I/O: a principal, null (known to be expired),
   * or undefined when the database must be asked (`lookup`).
   */
  cached(raw: string): Principal | null | undefined {
    const entry = this.cache.get(raw);
    if (entry === undefined) return undefined;
    const nowMs = this.clock.now().getTime();
    if (entry.cachedUntilMs <= nowMs) return undefined;
    if (entry.expiresAtMs <= nowMs) return null;
    this.noteUse(entry.principal);
    return entry.principal;
  }

  async lookup(raw: string): Promise<Principal | null> {
    const hash = digestSecret(raw);
    const principal = raw.startsWith(SECRET_PREFIX.agent) ? await this.lookupAgent(hash) : await this.lookupToken(hash);
    if (principal === null) {
      this.forget(hash);
      return null;
    }
    const nowMs = this.clock.now().getTime();
    const expiresAtMs = principal.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(principal.expiresAt);
    if (expiresAtMs <= nowMs) return null;
    this.cache.set(raw, { principal, hash, expiresAtMs, cachedUntilMs: nowMs + this.cacheMs });
    this.rawByHash.set(hash, raw);
    this.noteUse(principal);
    return principal;
  }

  /** After a revocation committed: drops the credential here at once and tells the other processes. */
  forget(secretHash: string): void {
    this.evict(secretHash);
    this.changes?.publish('credentials', secretHash);
  }

  /** Drops a credential from this process's cache (another process revoked it). */
  evict(secretHash: string): void {
    const raw = this.rawByHash.get(secretHash);
    if (raw === undefined) return;
    this.cache.delete(raw);
    this.rawByHash.delete(secretHash);
  }

  /** Drops every cached credential: revocations may have been missed. */
  evictAll(): void {
    this.cache.clear();
    this.rawByHash.clear();
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.flushUsage();
  }

  private sweep(): void {
    const nowMs = this.clock.now().getTime();
    const lapsed: string[] = [];
    for (const [raw, entry] of this.cache.entries()) if (entry.cachedUntilMs <= nowMs) lapsed.push(raw);
    for (const raw of lapsed) this.cache.delete(raw);
  }

  private async lookupToken(hash: string): Promise<Principal | null> {
    const row = await findActiveTokenByHash(this.store.db, hash);
    if (row === undefined) return null;
    const common = { tokenId: row.id, tokenHash: hash, name: row.name, owner: row.owner, expiresAt: row.expires_at };
    if (row.kind === 'traffic' || row.role === null) return { kind: 'traffic', ...common };
    return { kind: 'operator', role: row.role, ...common };
  }

  private async lookupAgent(hash: string): Promise<Principal | null> {
    const row = await findActiveAgentCredentialByHash(this.store.db, hash);
    if (row === undefined) return null;
    return {
      kind: 'agent',
      credentialId: row.id,
      identityId: row.identity_id,
      agentSlug: row.agent_slug,
      expiresAt: row.expires_at,
    };
  }

  private noteUse(principal: Principal): void {
    if (principal.kind === 'agent') this.usedCredentials.add(principal.credentialId);
    else this.usedTokens.add(principal.tokenId);
  }

  /** Writes the collected last-use times in one statement per table. */
  async flushUsage(): Promise<void> {
    const at = this.clock.now().toISOString();
    const tokens = [...this.usedTokens];
    const credentials = [...this.usedCredentials];
    this.usedTokens.clear();
    this.usedCredentials.clear();
    if (tokens.length > 0) {
      await markTokensUsed(this.store.db, tokens, at);
    }
    if (credentials.length > 0) {
      await markAgentCredentialsUsed(this.store.db, credentials, at);
    }
  }
}
