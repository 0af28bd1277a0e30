import type { EvalContext } from '../context.js';
import type { SuiteService } from '../suites/service.js';

export class AnnotationService {
  constructor(
    readonly ctx: EvalContext,
    readonly suites: SuiteService,
  ) {}
}
