// Turns a raw credential into a Principal. Hot path: a verified credential is kept in memory for
// `auth_cache_ms` (at most 2 s), so a revocation made by another process sharing the database
// takes effect within that time; the process that revokes forgets the credential at once.
// Last-use times are collected in memory and written in one batch.
import type { Clock } from '../lib/clock.js';
import { SECRET_PREFIX, digestSecret } from '../lib/secrets.js';
import type { Store } from '../store/db.js';
import type { Principal } from './principal.js';

interface CacheEntry {
  principal: Principal;
  expiresAtMs: number;
  cachedUntilMs: number;
}

const MAX_CACHED = 10_000;
const USAGE_FLUSH_MS = 15_000;

export class CredentialResolver {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly usedTokens = new Set<string>();
  private readonly usedCredentials = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly cacheMs: number,
  ) {
    this.flushTimer = setInterval(() => void this.flushUsage().catch(() => undefined), USAGE_FLUSH_MS);
    this.flushTimer.unref();
  }

  async resolve(raw: string): Promise<Principal | null> {
    const hash = digestSecret(raw);
    const nowMs = this.clock.now().getTime();
    const cached = this.cache.get(hash);
    if (cached !== undefined && cached.cachedUntilMs > nowMs) {
      if (cached.expiresAtMs <= nowMs) return null;
      this.noteUse(cached.principal);
      return cached.principal;
    }
    const principal = raw.startsWith(SECRET_PREFIX.agent) ? await this.lookupAgent(hash) : await this.lookupToken(hash);
    if (principal === null) {
      this.cache.delete(hash);
      return null;
    }
    const expiresAtMs = principal.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(principal.expiresAt);
    if (expiresAtMs <= nowMs) return null;
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(hash, { principal, expiresAtMs, cachedUntilMs: nowMs + this.cacheMs });
    this.noteUse(principal);
    return principal;
  }

  /** Drops a credential from this process's cache, so that its revocation applies at once here. */
  forget(secretHash: string): void {
    this.cache.delete(secretHash);
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    this.flushTimer = undefined;
    await this.flushUsage();
  }

  private async lookupToken(hash: string): Promise<Principal | null> {
    const row = await this.store.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('token_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (row === undefined) return null;
    const common = { tokenId: row.id, tokenHash: hash, name: row.name, owner: row.owner, expiresAt: row.expires_at };
    if (row.kind === 'traffic' || row.role === null) return { kind: 'traffic', ...common };
    return { kind: 'operator', role: row.role, ...common };
  }

  private async lookupAgent(hash: string): Promise<Principal | null> {
    const row = await this.store.db
      .selectFrom('agent_credentials')
      .selectAll()
      .where('secret_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
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
      await this.store.db.updateTable('api_tokens').set({ last_used_at: at }).where('id', 'in', tokens).execute();
    }
    if (credentials.length > 0) {
      await this.store.db
        .updateTable('agent_credentials')
        .set({ last_used_at: at })
        .where('id', 'in', credentials)
        .execute();
    }
  }
}
