// request_budget_ms (spec 01 §8): the detector time all checks of one governed call share. A
// proxied call checks its request, then its answer (or each window of a stream); every check's
// detector budget is the smaller of enforcement_budget_ms and what the call has left. Only time
// spent checking counts (never the upstream's), and checks that run side by side (the input and
// the tool results of one request) count once: the budget measures the wall time during which at
// least one check of the call was running. `checkedChars` lets the runner treat a call that has
// handed its checks a large text, window by window, like one large text (src/pipeline/runner.ts).

export class RequestBudget {
  /** Characters the call has handed to its checks so far (the request, the answer, every window). */
  checkedChars = 0;
  private spentMs = 0;
  private running = 0;
  private runningSince = 0;

  constructor(readonly limitMs: number) {}

  /**
   * Whole milliseconds left for the call's checks (0 once spent). Timers have millisecond
   * resolution and may fire up to a millisecond early, so a fraction left is none.
   */
  leftMs(): number {
    const current = this.running > 0 ? performance.now() - this.runningSince : 0;
    return Math.max(0, Math.floor(this.limitMs - this.spentMs - current));
  }

  /** A check ran out of the budget (its detectors were cut at its end): nothing is left. */
  exhaust(): void {
    this.spentMs = Math.max(this.spentMs, this.limitMs);
  }

  /** Counts the time until `work` settles against the call's budget. */
  async spend<T>(work: () => Promise<T>): Promise<T> {
    if (this.running === 0) this.runningSince = performance.now();
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
      if (this.running === 0) this.spentMs += performance.now() - this.runningSince;
    }
  }
}
