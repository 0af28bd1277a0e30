// PLACEHOLDER (helper fills in): POST /api/auth/codehost/provision.
import type { AuditLog } from '../../audit/log.js';
import type { TokenService } from '../../tokens/service.js';
import type { Clock } from '../../../infra/lib/clock.js';
import type { Store } from '../../../infra/store/db.js';

export interface CodehostProvisionDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  tokens: TokenService;
}

export class CodehostProvisionService {
  constructor(readonly deps: CodehostProvisionDeps) {}
}
