// PLACEHOLDER (helper fills in): POST /api/integrations/hosted-api/scan and the OpenAPI reader monitors use.
import type { AuditLog } from '../../audit/log.js';
import type { OutboundPolicy } from '../../../infra/http/outbound.js';
import type { Clock } from '../../../infra/lib/clock.js';
import type { Store } from '../../../infra/store/db.js';
import type { HostedApiDocument, HostedApiReading } from '../contracts.js';

export interface HostedApiServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  outbound: OutboundPolicy;
}

export class HostedApiService implements HostedApiReading {
  constructor(readonly deps: HostedApiServiceDeps) {}

  async readDocument(_url: string, _signal?: AbortSignal): Promise<HostedApiDocument> {
    throw new Error('not built yet');
  }
}
