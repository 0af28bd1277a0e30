// PLACEHOLDER (helper fills in): the code-host connection, repository scans through the REST API,
// the signed push webhook.
import type { AuditLog } from '../../audit/log.js';
import type { Pipeline } from '../../../engine/pipeline/decide.js';
import type { Recorder } from '../../../engine/recording/recorder.js';
import type { OutboundPolicy } from '../../../infra/http/outbound.js';
import type { JobHandler } from '../../../infra/jobs/worker.js';
import type { JobQueue } from '../../../infra/jobs/queue.js';
import type { Clock } from '../../../infra/lib/clock.js';
import type { Sealer } from '../../../infra/lib/sealed.js';
import type { Store } from '../../../infra/store/db.js';
import type { CodehostScanning, CodehostScanSummary } from '../contracts.js';

export interface CodehostServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  queue: JobQueue;
  sealer: Sealer;
  recorder: Recorder;
  /** Prompts found in code are checked through the one pipeline (trials: nothing recorded). */
  pipeline: Pipeline;
  settings: { apiUrl: string; outbound: OutboundPolicy };
}

export class CodehostService implements CodehostScanning {
  constructor(readonly deps: CodehostServiceDeps) {}

  async connected(): Promise<boolean> {
    return false;
  }

  async listRepoNames(_limit: number): Promise<string[]> {
    return [];
  }

  async queueScan(_input: Parameters<CodehostScanning['queueScan']>[0]): Promise<{ scan_id: string; job_id: string }> {
    throw new Error('not built yet');
  }

  async scanNow(_input: Parameters<CodehostScanning['scanNow']>[0]): Promise<CodehostScanSummary> {
    throw new Error('not built yet');
  }

  jobHandlers(): Record<string, JobHandler> {
    return {};
  }
}
