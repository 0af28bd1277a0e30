// PLACEHOLDER (helper fills in): monitors with baselines, scheduled once across processes.
import type { AuditLog } from '../audit/log.js';
import type { McpService } from '../mcp/service.js';
import type { Recorder } from '../../engine/recording/recorder.js';
import type { OutboundPolicy } from '../../infra/http/outbound.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { JobQueue } from '../../infra/jobs/queue.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import type { CodehostScanning, HostedApiReading } from '../integrations/contracts.js';

export interface MonitorServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  queue: JobQueue;
  recorder: Recorder;
  mcp: McpService;
  codehost: CodehostScanning;
  hostedApi: HostedApiReading;
  settings: { minIntervalSeconds: number; outbound: OutboundPolicy };
}

export class MonitorService {
  constructor(readonly deps: MonitorServiceDeps) {}

  /** Queues the runs that are due, each once across every gateway process (called on a timer). */
  async scheduleDue(): Promise<number> {
    return 0;
  }

  jobHandlers(): Record<string, JobHandler> {
    return {};
  }
}
