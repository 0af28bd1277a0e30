// API tokens: minting (raw value shown once, digest stored), listing, revocation and the bootstrap
// admin token. Every change is audited in the same transaction as the change itself.
import { actorOf, ROLE_RANK, type Principal } from '../../infra/auth/principal.js';
import type { CredentialResolver } from '../../infra/auth/resolver.js';
import type { AuditLog } from '../audit/log.js';
import { problem, notFound } from '../../infra/http/problems.js';
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import { addDays, type Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { SECRET_PREFIX, digestSecret, mintSecret, secretHint } from '../../infra/lib/secrets.js';
import type { Store } from '../../infra/store/db.js';
import type { ApiTokenRow, OperatorRole } from '../../infra/store/tables.js';
import type { CreateTokenBody, CreatedToken, ListTokensQuery, Token } from './schemas.js';
import * as tokens from './store.js';

/** Tokens minted through the API expire after this many days unless `ttl_days` says otherwise. */
export const DEFAULT_API_TOKEN_TTL_DAYS = 90;

export type TokenRoleChoice = OperatorRole | 'traffic';

export interface MintRequest {
  name: string;
  role: TokenRoleChoice;
  owner: string;
  createdBy: string;
  ttlDays: number | null;
  /** Use this raw value instead of a random one (PARAPET_ADMIN_TOKEN). */
  raw?: string;
}

export class TokenService {
  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly resolver: CredentialResolver | null,
    private readonly clock: Clock,
  ) {}

  toWire(row: ApiTokenRow): Token {
    return {
      id: row.id,
      name: row.name,
      kind: row.kind,
      role: row.role,
      owner: row.owner,
      token_hint: row.token_hint,
      status: this.statusOf(row),
      created_by: row.created_by,
      created_at: row.created_at,
      expires_at: row.expires_at,
      revoked_at: row.revoked_at,
      last_used_at: row.last_used_at,
    };
  }

  /** Mints a token and audits it; the raw value is in the answer and nowhere else. */
  async mint(request: MintRequest, actor: string): Promise<CreatedToken> {
    const { row, raw } = this.newRow(request);
    await this.audit.transact(async (trx, append) => {
      await tokens.insertToken(trx, row);
      await append(creationEntry(row, actor));
    });
    return { ...this.toWire(row), token: raw };
  }

  /** POST /api/tokens: a token for the caller's own use, at most as strong as the caller's. */
  async createForCaller(caller: Principal, body: CreateTokenBody): Promise<CreatedToken> {
    if (caller.kind !== 'operator') throw problem('forbidden', 'only operator tokens create tokens');
    const role = body.role ?? caller.role;
    if (role === 'traffic' ? caller.role !== 'admin' : ROLE_RANK[role] > ROLE_RANK[caller.role]) {
      throw problem('forbidden', `a ${caller.role} token cannot create a ${role} token`);
    }
    return this.mint(
      {
        name: body.name ?? `${caller.owner} token`,
        role,
        owner: caller.owner,
        createdBy: caller.tokenId,
        ttlDays: body.ttl_days ?? DEFAULT_API_TOKEN_TTL_DAYS,
      },
      actorOf(caller),
    );
  }

  /** Admins see every token; everyone else sees the tokens of their own owner. */
  async list(caller: Principal, query: ListTokensQuery): Promise<{ items: Token[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const rows = await tokens.listTokens(this.store.db, {
      owner: this.seesAll(caller) ? undefined : ownerOf(caller),
      before: decodeCursor(query.cursor),
      limit: limit + 1,
    });
    const page = pageOf(rows, limit);
    return { items: page.items.map((row) => this.toWire(row)), next_cursor: page.next_cursor };
  }

  /** Lists for the CLI, which acts with the storage's own authority. */
  async listAll(limit: number): Promise<Token[]> {
    const rows = await tokens.listTokens(this.store.db, { limit });
    return rows.map((row) => this.toWire(row));
  }

  async revoke(caller: Principal | null, id: string, action = 'token.revoke'): Promise<Token> {
    const row = await tokens.findTokenById(this.store.db, id);
    if (row === undefined || (caller !== null && !this.seesAll(caller) && row.owner !== ownerOf(caller))) {
      throw notFound('token', id);
    }
    if (caller !== null) assertMayRevoke(caller, row);
    if (row.revoked_at !== null) throw problem('conflict', `token ${id} is already revoked`);
    const at = this.clock.now().toISOString();
    await this.audit.transact(async (trx, append) => {
      const changed = await tokens.markTokenRevoked(trx, id, at);
      if (!changed) throw problem('conflict', `token ${id} is already revoked`);
      await append({ actor: caller === null ? 'cli' : actorOf(caller), action, target: id, detail: { name: row.name } });
    });
    this.resolver?.forget(row.token_hash);
    return this.toWire({ ...row, revoked_at: at });
  }

  /**
   * At start: accept PARAPET_ADMIN_TOKEN, or mint the first admin token when none works.
   * Returns the raw token when one was minted, so the caller can show it once.
   */
  async ensureAdminToken(envToken: string | null): Promise<string | null> {
    // The audit lock keeps two processes starting together on one database from both minting.
    return this.audit.transact(async (trx, append) => {
      if (envToken !== null) {
        if ((await tokens.findTokenByHash(trx, digestSecret(envToken))) !== undefined) return null;
        const { row } = this.newRow({
          name: 'PARAPET_ADMIN_TOKEN',
          role: 'admin',
          owner: 'admin',
          createdBy: 'environment',
          ttlDays: null,
          raw: envToken,
        });
        await tokens.insertToken(trx, row);
        await append(creationEntry(row, 'environment'));
        return null;
      }
      if ((await tokens.countActiveAdminTokens(trx, this.clock.now().toISOString())) > 0) return null;
      const { row, raw } = this.newRow({
        name: 'bootstrap admin',
        role: 'admin',
        owner: 'admin',
        createdBy: 'bootstrap',
        ttlDays: null,
      });
      await tokens.insertToken(trx, row);
      await append(creationEntry(row, 'bootstrap'));
      return raw;
    });
  }

  private newRow(request: MintRequest): { row: ApiTokenRow; raw: string } {
    const traffic = request.role === 'traffic';
    const raw = request.raw ?? mintSecret(traffic ? SECRET_PREFIX.traffic : SECRET_PREFIX.operator);
    const now = this.clock.now();
    const row: ApiTokenRow = {
      id: newId('tok'),
      name: request.name,
      kind: traffic ? 'traffic' : 'operator',
      role: request.role === 'traffic' ? null : request.role,
      owner: request.owner,
      token_hash: digestSecret(raw),
      token_hint: secretHint(raw),
      created_by: request.createdBy,
      created_at: now.toISOString(),
      expires_at: request.ttlDays === null ? null : addDays(now, request.ttlDays).toISOString(),
      revoked_at: null,
      last_used_at: null,
    };
    return { row, raw };
  }

  private seesAll(caller: Principal): boolean {
    return caller.kind === 'operator' && caller.role === 'admin';
  }

  private statusOf(row: ApiTokenRow): Token['status'] {
    if (row.revoked_at !== null) return 'revoked';
    if (row.expires_at !== null && row.expires_at <= this.clock.now().toISOString()) return 'expired';
    return 'active';
  }
}

/** Who made the bootstrap admin token: PARAPET_ADMIN_TOKEN (`environment`) or the first start (`bootstrap`). */
const BOOTSTRAP_CREATORS: ReadonlySet<string> = new Set(['environment', 'bootstrap']);

/**
 * How strong a token is for revocation: its role's rank; a traffic token ranks as an operator
 * token, so operators may revoke the traffic tokens of their owner (and viewers may not).
 */
function revocationRank(row: ApiTokenRow): number {
  return row.role === null ? ROLE_RANK.operator : ROLE_RANK[row.role];
}

/**
 * Revocation through the API needs a role at least as strong as the token's: owners are shared
 * (everything the bootstrap admin mints is owned by `admin`), so ownership alone would let an
 * operator lock its admin out. Any token may revoke itself (logout). The bootstrap admin token is
 * never revoked through the API: it is the way back in; `parapet admin token revoke` (the storage's
 * own authority, on the gateway's host) retires it.
 */
function assertMayRevoke(caller: Principal, row: ApiTokenRow): void {
  const self = caller.kind !== 'agent' && caller.tokenId === row.id;
  const callerRank = caller.kind === 'operator' ? ROLE_RANK[caller.role] : 0;
  if (!self && callerRank < revocationRank(row)) {
    const withArticle = (kind: string) => `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
    const callerKind = caller.kind === 'operator' ? caller.role : caller.kind;
    throw problem('forbidden', `${withArticle(callerKind)} token cannot revoke ${withArticle(row.role ?? 'traffic')} token`);
  }
  if (row.role === 'admin' && BOOTSTRAP_CREATORS.has(row.created_by)) {
    throw problem(
      'conflict',
      `token ${row.id} is the bootstrap admin token and cannot be revoked through the API; use \`parapet admin token revoke ${row.id}\` on the gateway's host`,
    );
  }
}

function ownerOf(caller: Principal): string {
  return caller.kind === 'agent' ? `agent:${caller.agentSlug}` : caller.owner;
}

function creationEntry(row: ApiTokenRow, actor: string) {
  return {
    actor,
    action: 'token.create',
    target: row.id,
    detail: { name: row.name, kind: row.kind, role: row.role, owner: row.owner, expires_at: row.expires_at },
  };
}
