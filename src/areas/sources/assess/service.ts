import type { Pipeline } from '../../../engine/pipeline/decide.js';
import type { Clock } from '../../../infra/lib/clock.js';
import type { Store } from '../../../infra/store/db.js';

export interface AssessServiceDeps {
  store: Store;
  clock: Clock;
  /** Injection in chunks is found by the one pipeline (a trial on surface retrieved). */
  pipeline: Pipeline;
}

export class AssessService {
  constructor(readonly deps: AssessServiceDeps) {}
}
