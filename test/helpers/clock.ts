// A clock for tests: it starts at the real time and moves only when told.
import type { Clock } from '../../src/infra/lib/clock.js';

export class TestClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
