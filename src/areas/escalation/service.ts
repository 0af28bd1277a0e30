// PLACEHOLDER (helper fills in): turns, escalation policies, hand-offs with SLAs, missed escalations.
import type { AuditLog } from '../audit/log.js';
import type { Recorder } from '../../engine/recording/recorder.js';
import type { JobQueue } from '../../infra/jobs/queue.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';

export interface EscalationServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  queue: JobQueue;
  recorder: Recorder;
}

export class EscalationService {
  constructor(readonly deps: EscalationServiceDeps) {}

  /** Raises handoff_sla_breach for open hand-offs past their SLA (called on a timer). */
  async sweep(): Promise<number> {
    return 0;
  }
}
