// The policy library: packs an operator can install. Installing binds the pack as an org-level
// policy at version 1, live in observe (it reports what it would do and changes no verdict), so no
// approval is needed; moving it to enforce is a mode change like any other.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { LIBRARY_PACKS } from '../../engine/policy/library/index.js';
import { parsePack } from '../../engine/policy/parse.js';
import type { Store } from '../../infra/store/db.js';
import { findPolicyKey, insertPolicy, insertVersion, listPolicyKeys } from './store.js';

export interface LibraryPackView {
  id: string;
  name: string;
  description: string;
  rules: Array<{ id: string; effect: string; message: string }>;
  installed: boolean;
  text: string;
}

export class LibraryService {
  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly sync: () => Promise<void>,
  ) {}

  async list(): Promise<LibraryPackView[]> {
    const installed = new Set((await listPolicyKeys(this.store.db)).map((row) => row.key));
    return LIBRARY_PACKS.map((entry) => {
      const pack = parsePack(entry.text);
      return {
        id: entry.id,
        name: entry.name,
        description: pack.description ?? '',
        rules: pack.rules.map((rule) => ({ id: rule.id, effect: rule.effect, message: rule.message ?? rule.id })),
        installed: installed.has(pack.key),
        text: entry.text.trimStart(),
      };
    });
  }

  async install(caller: Principal, id: string): Promise<LibraryPackView> {
    const entry = LIBRARY_PACKS.find((item) => item.id === id);
    if (entry === undefined) throw notFound('library pack', id);
    const pack = parsePack(entry.text);
    const at = this.clock.now().toISOString();
    await this.audit.transact(async (trx, append) => {
      const existing = await findPolicyKey(trx, pack.key);
      if (existing !== undefined) throw problem('conflict', `a policy with key ${pack.key} exists already`);
      await insertPolicy(trx, { key: pack.key, level: 'org', scope_id: '', compose: 'merge', mode: 'observe', live_version: 1, origin: 'library', bound: 1, created_at: at, updated_at: at });
      await insertVersion(trx, { key: pack.key, version: 1, text: entry.text.trimStart(), mode: 'observe', notes: `installed from the library (${entry.name})`, status: 'approved', source: 'library', created_by: actorOf(caller), created_at: at });
      await append({ actor: actorOf(caller), action: 'policy.library_install', target: pack.key, detail: { pack_id: id, mode: 'observe' } });
    });
    await this.sync();
    return (await this.list()).find((item) => item.id === id) as LibraryPackView;
  }
}
