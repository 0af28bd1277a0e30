import type { JobHandler } from '../../../infra/jobs/worker.js';
import type { EvalContext } from '../context.js';

export class OnlineService {
  constructor(readonly ctx: EvalContext) {}

  jobHandlers(): Record<string, JobHandler> {
    return {};
  }
}
