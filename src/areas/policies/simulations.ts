// POST /api/policies/simulate: the candidate text bound as it would be, replayed over recorded
// decisions (src/policies/simulate.ts); with `persist`, the result is kept (and audited) so that a
// review can point at it.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { writeJson } from '../../infra/store/json-columns.js';
import { PackInvalid, parsePack } from '../../engine/policy/parse.js';
import type { Pack } from '../../engine/policy/schema.js';
import type { SimulateBody } from './schemas.js';
import type { PolicyService } from './service.js';
import type { SimulationResult, Simulator } from './simulate.js';
import { insertSimulation } from './store.js';

export class SimulationService {
  constructor(
    private readonly simulator: Simulator,
    private readonly policies: PolicyService,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  async simulate(caller: Principal, body: SimulateBody): Promise<SimulationResult & { simulation_id: string | null }> {
    let pack: Pack;
    try {
      pack = parsePack(body.body);
    } catch (error) {
      if (!(error instanceof PackInvalid)) throw error;
      throw problem('invalid-request', `the candidate policy is not valid: ${error.message}`);
    }
    const existing = await this.policies.policyStore.policy(pack.key);
    const candidate = this.policies.boundCandidate({ ...pack, mode: /^mode\s*:/m.test(body.body) ? pack.mode : ((existing?.mode as Pack['mode'] | undefined) ?? pack.mode) }, body, existing);
    const result = await this.simulator.run({
      candidate,
      ...(body.agent === undefined ? {} : { agent: body.agent }),
      sinceDays: body.since_days ?? 7,
      limit: body.limit ?? 1000,
    });
    if (body.persist !== true) return { ...result, simulation_id: null };
    const id = newId('sim');
    const at = this.clock.now().toISOString();
    await this.audit.transact(async (trx, append) => {
      await insertSimulation(trx, { id, policy_key: pack.key, result: writeJson(result), created_by: actorOf(caller), created_at: at });
      await append({ actor: actorOf(caller), action: 'policy.simulate', target: pack.key, detail: { simulation_id: id, examined: result.examined, changed: result.changed } });
    });
    return { ...result, simulation_id: id };
  }
}
