import type { Recorder } from '../../engine/recording/recorder.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import type { AuditLog } from '../audit/log.js';

export interface EntitlementServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  recorder: Recorder;
}

export class EntitlementService {
  constructor(readonly deps: EntitlementServiceDeps) {}
}
