// PLACEHOLDER (helper fills in): the public sandbox — sessions isolated from the real deployment.
import type { Config } from '../../infra/config/schema.js';
import type { Clock } from '../../infra/lib/clock.js';

export interface PlaygroundServiceDeps {
  config: Config;
  clock: Clock;
}

export class PlaygroundService {
  constructor(readonly deps: PlaygroundServiceDeps) {}

  start(): void {}

  async close(): Promise<void> {}
}
