import type { AuditLog } from '../audit/log.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Sealer } from '../../infra/lib/sealed.js';
import type { Store } from '../../infra/store/db.js';

export interface SourceServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  sealer: Sealer;
}

export class SourceService {
  constructor(readonly deps: SourceServiceDeps) {}
}
