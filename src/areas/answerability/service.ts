import type { Recorder } from '../../engine/recording/recorder.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import type { AuditLog } from '../audit/log.js';
import type { AnswerabilityDetector } from './detector.js';

export interface AnswerabilityServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  recorder: Recorder;
  /** The input detector this service feeds with the boundaries. */
  detector: AnswerabilityDetector;
}

export class AnswerabilityService {
  constructor(readonly deps: AnswerabilityServiceDeps) {}

  /** Reads the boundaries other processes stored (the composition root calls it every second). */
  async sync(): Promise<void> {}
}
