// PLACEHOLDER (helper fills in): the whole workspace as code — plan, apply, export.
import type { AuditLog } from '../audit/log.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';

export interface WorkspaceServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
}

export class WorkspaceService {
  constructor(readonly deps: WorkspaceServiceDeps) {}
}
