// PLACEHOLDER (helper fills in): the chat alert channel, and new findings posted to it.
import type { AuditLog } from '../audit/log.js';
import type { OutboundPolicy } from '../../infra/http/outbound.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { JobQueue } from '../../infra/jobs/queue.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Sealer } from '../../infra/lib/sealed.js';
import type { Store } from '../../infra/store/db.js';

export interface ChatAlertServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  queue: JobQueue;
  sealer: Sealer;
  outbound: OutboundPolicy;
}

export class ChatAlertService {
  constructor(readonly deps: ChatAlertServiceDeps) {}

  /** Queues an alert for each new finding at or above the channel's min_severity (called on a timer). */
  async sweep(): Promise<number> {
    return 0;
  }

  jobHandlers(): Record<string, JobHandler> {
    return {};
  }
}
