// The policy lifecycle as far as it goes now: list the bound packs and move one between observe
// and enforce. Modes are stored in the database (audited) and every process reads them back
// within a second. Versions beyond the shipped ones and scopes come with policy as code.
import { actorOf, type Principal } from '../auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { notFound, problem } from '../http/problems.js';
import type { Clock } from '../lib/clock.js';
import type { PolicyRegistry } from '../policy/registry.js';
import type { Mode } from '../policy/schema.js';
import type { Store } from '../store/db.js';
import type { PolicySummary, SetModeBody } from './schemas.js';

export class PolicyService {
  constructor(
    private readonly registry: PolicyRegistry,
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  list(): PolicySummary[] {
    return this.registry.list().map(({ pack, mode }) => ({
      key: pack.key,
      version: pack.version,
      mode,
      fail_mode: pack.fail_mode ?? 'open',
      description: pack.description ?? '',
      rules: pack.rules.map((rule) => ({
        id: rule.id,
        effect: rule.effect,
        enabled: rule.enabled !== false,
        mode: rule.mode ?? mode,
        message: rule.message ?? rule.id,
        when: rule.when as Record<string, unknown>,
      })),
    }));
  }

  async setMode(caller: Principal, key: string, body: SetModeBody): Promise<PolicySummary> {
    const pack = this.registry.pack(key);
    if (pack === undefined) throw notFound('policy pack', key);
    if (body.version !== undefined && body.version !== pack.version) {
      throw problem('refused', `pack ${key} has no saved version ${body.version}; its version is ${pack.version}`);
    }
    if ((body.level !== undefined && body.level !== 'org') || body.scope_id !== undefined) {
      throw problem('refused', 'packs are bound at org level for now; scoped modes come with policy scopes');
    }
    const previous = this.registry.modeOf(key);
    const at = this.clock.now().toISOString();
    await this.audit.transact(async (trx, append) => {
      await trx
        .insertInto('policy_state')
        .values({ key, mode: body.mode, updated_at: at })
        .onConflict((conflict) => conflict.column('key').doUpdateSet({ mode: body.mode, updated_at: at }))
        .execute();
      await append({ actor: actorOf(caller), action: 'policy.mode', target: key, detail: { from: previous, to: body.mode } });
    });
    this.registry.setModes([[key, body.mode]]);
    return this.list().find((summary) => summary.key === key) as PolicySummary;
  }

  async sync(): Promise<void> {
    const rows = await this.store.db.selectFrom('policy_state').select(['key', 'mode']).execute();
    this.registry.setModes(rows.map((row) => [row.key, row.mode as Mode]));
  }
}
