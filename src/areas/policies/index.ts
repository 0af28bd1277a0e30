// Builds the policy lifecycle's services around one registry: they refer to each other (a proposal
// makes a version live; saving a version opens a proposal; a canary ends in a live version).
import type { AuditLog } from '../audit/log.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { AgentDirectory } from '../../engine/pipeline/agents.js';
import type { PolicyRegistry } from '../../engine/policy/registry.js';
import type { Pack } from '../../engine/policy/schema.js';
import type { Store } from '../../infra/store/db.js';
import type { ChangePublisher } from '../../infra/store/notify.js';
import { CanaryService } from './canary.js';
import { LibraryService } from './library.js';
import { ProposalService } from './proposals.js';
import { PolicyService } from './service.js';
import { Simulator } from './simulate.js';
import { SimulationService } from './simulations.js';

export interface PolicyServices {
  policies: PolicyService;
  proposals: ProposalService;
  canaries: CanaryService;
  simulations: SimulationService;
  library: LibraryService;
}

export function createPolicyServices(deps: {
  registry: PolicyRegistry;
  store: Store;
  audit: AuditLog;
  clock: Clock;
  directory: AgentDirectory;
  shipped: readonly Pack[];
  knownEntities: () => readonly string[];
  changes?: ChangePublisher;
}): PolicyServices {
  const { registry, store, audit, clock, directory } = deps;
  const simulator = new Simulator(store, registry, directory, () => clock.now());
  const proposals = new ProposalService(store, audit, clock);
  const policies = new PolicyService({ ...deps, simulator, proposals });
  const canaries = new CanaryService(store, audit, clock, {
    makeLive: (trx, key, version, at) => policies.makeLive(trx, key, version, at),
    sync: () => policies.changed(),
    proposalFor: (key, version) => proposals.forVersion(key, version),
  });
  proposals.bind({
    makeLive: (trx, key, version, at) => policies.makeLive(trx, key, version, at),
    sync: () => policies.changed(),
    stopCanary: (trx, key, at, why) => canaries.stop(trx, key, at, why),
  });
  return {
    policies,
    proposals,
    canaries,
    simulations: new SimulationService(simulator, policies, audit, clock),
    library: new LibraryService(store, audit, clock, () => policies.changed()),
  };
}
