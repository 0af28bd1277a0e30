import type { EvalContext } from '../context.js';

export class SuiteService {
  constructor(readonly ctx: EvalContext) {}
}
