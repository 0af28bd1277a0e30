// What every part of evaluations is built with (by createEvalServices, from the composition root).
import type { Pipeline } from '../../engine/pipeline/decide.js';
import type { PolicyRegistry } from '../../engine/policy/registry.js';
import type { Recorder } from '../../engine/recording/recorder.js';
import type { Config } from '../../infra/config/schema.js';
import type { JobQueue } from '../../infra/jobs/queue.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import type { AuditLog } from '../audit/log.js';
import type { ModelCaller, ScorerHelpers } from './types.js';

export interface EvalContext {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  queue: JobQueue;
  /** The one decision pipeline: guard targets and output checks run `pipeline.trial()`. */
  pipeline: Pipeline;
  /** The bound policies: a guard target's candidate or mode is applied with `policies.replay()`. */
  policies: PolicyRegistry;
  /** Raises `drift` and `over_refusal` findings (`recorder.raise`). */
  recorder: Recorder;
  config: Config;
  /** Chat completions through the proxy (model targets); null when the chat-completions upstream has no key. */
  model: ModelCaller | null;
  helpers: ScorerHelpers;
}
