// PLACEHOLDER (helper fills in): shadow agents from traffic, spans and code; external scanner submissions.
import type { AuditLog } from '../audit/log.js';
import type { Recorder } from '../../engine/recording/recorder.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import type { CodehostScanning } from '../integrations/contracts.js';

export interface DiscoveryServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  recorder: Recorder;
  codehost: CodehostScanning;
}

export class DiscoveryService {
  constructor(readonly deps: DiscoveryServiceDeps) {}
}
