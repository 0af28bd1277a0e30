// Agent credentials: each is bound to one identity and speaks for exactly one agent. Minting lives
// here so that the identities area (which owns identities) and tests share one path.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { CredentialResolver } from '../../infra/auth/resolver.js';
import type { AuditLog } from '../audit/log.js';
import { notFound, problem } from '../../infra/http/problems.js';
import { addDays, type Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { SECRET_PREFIX, digestSecret, mintSecret, secretHint } from '../../infra/lib/secrets.js';
import type { Store } from '../../infra/store/db.js';
import type { AgentCredentialRow } from '../../infra/store/tables.js';
import type { Credential } from './schemas.js';
import * as credentials from './store.js';

export class CredentialService {
  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly resolver: CredentialResolver | null,
    private readonly clock: Clock,
  ) {}

  toWire(row: AgentCredentialRow): Credential {
    const now = this.clock.now().toISOString();
    return {
      id: row.id,
      identity_id: row.identity_id,
      agent: row.agent_slug,
      secret_hint: row.secret_hint,
      status: row.revoked_at !== null ? 'revoked' : row.expires_at !== null && row.expires_at <= now ? 'expired' : 'active',
      created_at: row.created_at,
      expires_at: row.expires_at,
      revoked_at: row.revoked_at,
      last_used_at: row.last_used_at,
    };
  }

  /** Mints a credential for one identity's agent; the raw value is returned once. */
  async mint(
    input: { identityId: string; agentSlug: string; ttlDays: number | null },
    actor: string,
  ): Promise<Credential & { credential: string }> {
    const raw = mintSecret(SECRET_PREFIX.agent);
    const now = this.clock.now();
    const row: AgentCredentialRow = {
      id: newId('cred'),
      identity_id: input.identityId,
      agent_slug: input.agentSlug,
      secret_hash: digestSecret(raw),
      secret_hint: secretHint(raw),
      created_at: now.toISOString(),
      expires_at: input.ttlDays === null ? null : addDays(now, input.ttlDays).toISOString(),
      revoked_at: null,
      last_used_at: null,
    };
    await this.audit.transact(async (trx, append) => {
      await credentials.insertCredential(trx, row);
      await append({
        actor,
        action: 'credential.create',
        target: row.id,
        detail: { identity_id: row.identity_id, agent: row.agent_slug, expires_at: row.expires_at },
      });
    });
    return { ...this.toWire(row), credential: raw };
  }

  /** Drops revoked credentials from this process's cache, so that they stop working at once here. */
  forgetHashes(hashes: readonly string[]): void {
    for (const hash of hashes) this.resolver?.forget(hash);
  }

  async revoke(caller: Principal, id: string, action = 'credential.revoke'): Promise<Credential> {
    const row = await credentials.findCredentialById(this.store.db, id);
    if (row === undefined) throw notFound('credential', id);
    if (row.revoked_at !== null) throw problem('conflict', `credential ${id} is already revoked`);
    const at = this.clock.now().toISOString();
    await this.audit.transact(async (trx, append) => {
      if (!(await credentials.markCredentialRevoked(trx, id, at))) {
        throw problem('conflict', `credential ${id} is already revoked`);
      }
      await append({ actor: actorOf(caller), action, target: id, detail: { agent: row.agent_slug } });
    });
    this.resolver?.forget(row.secret_hash);
    return this.toWire({ ...row, revoked_at: at });
  }
}
