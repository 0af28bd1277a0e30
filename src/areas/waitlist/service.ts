// PLACEHOLDER (helper fills in): the public waitlist.
import type { AuditLog } from '../audit/log.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';

export interface WaitlistServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
}

export class WaitlistService {
  constructor(readonly deps: WaitlistServiceDeps) {}
}
