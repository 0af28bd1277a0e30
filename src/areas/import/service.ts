// PLACEHOLDER (helper fills in): POST /api/import/{tool}/plan and POST /api/import/{tool}.
import type { AuditLog } from '../audit/log.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';

export interface ImportServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
}

export class ImportService {
  constructor(readonly deps: ImportServiceDeps) {}
}
