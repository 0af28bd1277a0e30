// Provisioning from a code host (spec 02 "Platform and account"): POST /api/auth/codehost/provision
// finds or creates the person behind a code-host identity (user id `usr_<codehost_user_id>`),
// keeps their login, email and name current, and mints them a viewer token (shown once). The same
// identity always gives the same user; two provisions at once insert one row (the code-host id is
// the primary key and the insert skips a row that exists).
import { actorOf, type Principal } from '../../../infra/auth/principal.js';
import { problem } from '../../../infra/http/problems.js';
import type { Clock } from '../../../infra/lib/clock.js';
import { storableText } from '../../../infra/lib/storable-text.js';
import type { Store } from '../../../infra/store/db.js';
import type { AuditLog } from '../../audit/log.js';
import { DEFAULT_API_TOKEN_TTL_DAYS, type TokenService } from '../../tokens/service.js';
import type { Provisioned, ProvisionBody, ProvisionedUser } from './schemas.js';
import { findIdentity, insertIdentityIfAbsent, updateIdentity, type CodehostIdentityRow } from './store.js';

export const USER_ID_PREFIX = 'usr_';

export interface CodehostProvisionDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  tokens: TokenService;
}

export class CodehostProvisionService {
  constructor(readonly deps: CodehostProvisionDeps) {}

  async provision(caller: Principal, body: ProvisionBody): Promise<Provisioned> {
    const { audit, clock, tokens } = this.deps;
    if (caller.kind !== 'operator') throw problem('forbidden', 'provisioning needs an admin token');
    const actor = actorOf(caller);
    const at = clock.now().toISOString();
    const declared = {
      login: storableText(body.codehost_login),
      email: storableText(body.email),
      name: body.name === undefined || body.name === null ? null : storableText(body.name),
    };
    const { row, created } = await audit.transact(async (trx, append) => {
      let existing = await findIdentity(trx, body.codehost_user_id);
      if (existing === undefined) {
        const fresh: CodehostIdentityRow = {
          codehost_user_id: body.codehost_user_id,
          user_id: `${USER_ID_PREFIX}${body.codehost_user_id}`,
          ...declared,
          created_by: actor,
          created_at: at,
          updated_at: at,
        };
        if (await insertIdentityIfAbsent(trx, fresh)) {
          await append({ actor, action: 'codehost.provisioned', target: fresh.user_id, detail: { codehost_user_id: fresh.codehost_user_id, login: fresh.login, created: true, changed: [] } });
          return { row: fresh, created: true };
        }
        // Another provision of the same identity inserted it first: update that row instead.
        existing = await findIdentity(trx, body.codehost_user_id);
        if (existing === undefined) throw problem('conflict', `the identity ${body.codehost_user_id} changed while it was provisioned; try again`);
      }
      const changed = (Object.keys(declared) as Array<keyof typeof declared>).filter((field) => existing[field] !== declared[field]).sort();
      const saved = changed.length === 0 ? existing : { ...existing, ...declared, updated_at: at };
      if (changed.length > 0) await updateIdentity(trx, existing.codehost_user_id, { ...declared, updated_at: at });
      await append({ actor, action: 'codehost.provisioned', target: saved.user_id, detail: { codehost_user_id: saved.codehost_user_id, login: saved.login, created: false, changed } });
      return { row: saved, created: false };
    });
    // Minted after the person exists, in its own audited transaction (token.create): the raw value is in this answer only.
    const minted = await tokens.mint(
      { name: `codehost ${row.login}`.slice(0, 100), role: 'viewer', owner: row.user_id, createdBy: caller.tokenId, ttlDays: DEFAULT_API_TOKEN_TTL_DAYS },
      actor,
    );
    return { user: userToWire(row), created, token: minted.token, token_id: minted.id, role: 'viewer', expires_at: minted.expires_at };
  }
}

function userToWire(row: CodehostIdentityRow): ProvisionedUser {
  return {
    id: row.user_id,
    codehost_user_id: row.codehost_user_id,
    login: row.login,
    email: row.email,
    name: row.name,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
