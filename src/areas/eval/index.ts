// Evaluations (spec 02 "Evaluations"): the services of the area, built once by the composition root.
// suites/ (suites and cases), scorers/ (what a result is judged by), runs/ (runs, baselines, the
// gate), online/ (scoring recorded traffic, drift, SLOs), annotations/ (a person's call on a result).
import type { JobHandler } from '../../infra/jobs/worker.js';
import { AnnotationService } from './annotations/service.js';
import type { EvalContext } from './context.js';
import { OnlineService } from './online/service.js';
import { RunService } from './runs/service.js';
import { SuiteService } from './suites/service.js';

export type { EvalContext } from './context.js';

export interface EvalServices {
  suites: SuiteService;
  runs: RunService;
  online: OnlineService;
  annotations: AnnotationService;
  jobHandlers(): Record<string, JobHandler>;
  /** Whether the `judge` scorer can run now (a judgment tier is configured). */
  judgeAvailable(): boolean;
}

export function createEvalServices(ctx: EvalContext): EvalServices {
  const suites = new SuiteService(ctx);
  const runs = new RunService(ctx);
  const online = new OnlineService(ctx);
  const annotations = new AnnotationService(ctx, suites);
  return {
    suites,
    runs,
    online,
    annotations,
    jobHandlers: () => ({ ...runs.jobHandlers(), ...online.jobHandlers() }),
    judgeAvailable: () => ctx.helpers.judge !== null,
  };
}
