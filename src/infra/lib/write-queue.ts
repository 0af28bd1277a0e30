// A write-behind queue for rows recorded on the request path (decisions and findings, agent
// messages, memory entries): items wait in memory for a short timer or a full batch and are
// written in one call, so a guard answer never waits on the database. While a batch is being
// written, what arrives meanwhile is written as soon as it commits, so under load items spend about
// one batch write in memory. Failures go to onError; they never reach the caller. A write that
// throws RetryLater hands items back: they are written again after a pause that doubles up to
// retryMaxMs (the database is away; nothing is dropped for it).

export interface WriteQueueOptions {
  /** How long the first queued item waits for company before the batch is written. */
  flushMs?: number;
  maxBatch?: number;
  /**
   * Beyond this many queued items, new ones are dropped and counted (never the answer); with
   * waitForRoom every item is kept and room() makes callers wait instead.
   */
  maxQueue?: number;
  /**
   * Past maxQueue, keep every item and have room() hold callers until fewer than maxQueue items are
   * unwritten (queued or in the batch being written): a caller that answers only after room() knows
   * that fewer than maxQueue answered items are not yet stored.
   */
  waitForRoom?: boolean;
  /** First pause after a RetryLater; it doubles on each one in a row up to retryMaxMs. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * Thrown by a write function for the items of its batch it could not write for a reason that
 * will pass (the database cannot be reached): they go back to the front of the queue.
 */
export class RetryLater<T> extends Error {
  constructor(
    readonly items: T[],
    readonly reason: unknown,
  ) {
    super(`${items.length} items to write again: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}

/**
 * @example const queue = new WriteQueue((rows) => insertRows(db, rows)); queue.push(row); await queue.close();
 */
export class WriteQueue<T> {
  private queue: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private waiters: Array<() => void> = [];
  /** Items of the batch being written. */
  private inFlight = 0;
  private retryDelayMs = 0;
  private closing = false;
  /** written: items the write function took; retried: RetryLater pauses; failed and dropped: items lost. */
  readonly stats = { written: 0, dropped: 0, failed: 0, retried: 0 };
  private readonly flushMs: number;
  private readonly maxBatch: number;
  private readonly maxQueue: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly options: WriteQueueOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 20;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxQueue = options.maxQueue ?? 100_000;
    this.retryBaseMs = options.retryBaseMs ?? 50;
    this.retryMaxMs = options.retryMaxMs ?? 5_000;
  }

  /** Items not yet written: queued (including a batch handed back for a retry) or being written. */
  get length(): number {
    return this.queue.length + this.inFlight;
  }

  push(item: T): void {
    if (this.queue.length >= this.maxQueue && this.options.waitForRoom !== true) {
      this.stats.dropped += 1;
      return;
    }
    this.queue.push(item);
    // While a batch is being written, the drain loop takes this item as soon as that one commits.
    if (this.flushing === undefined) this.schedule();
  }

  /**
   * Undefined while fewer than maxQueue items are unwritten (the hot path allocates nothing); past
   * it, a promise that resolves once a write has brought them below it again.
   */
  room(): Promise<void> | undefined {
    if (this.length < this.maxQueue || this.closing) return undefined;
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Writes everything queued so far; resolves when it is stored (or reported through onError). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.flushing !== undefined) await this.flushing;
    if (this.queue.length === 0) return;
    this.flushing = this.drain().finally(() => {
      this.flushing = undefined;
      // Items pushed after the drain loop's last look and before this point have no timer yet.
      if (this.queue.length > 0) this.schedule();
    });
    await this.flushing;
  }

  /** Writes what is queued; items handed back for a retry after this are counted failed, not retried forever. */
  async close(): Promise<void> {
    this.closing = true;
    await this.flush();
    this.releaseWaiters();
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight = batch.length;
      try {
        await this.write(batch);
        this.stats.written += batch.length;
        this.retryDelayMs = 0;
      } catch (error) {
        if (error instanceof RetryLater) {
          const again = error.items as T[];
          this.inFlight = 0;
          this.stats.written += batch.length - again.length;
          this.options.onError?.(error.reason);
          if (this.closing) {
            this.stats.failed += again.length;
          } else {
            this.queue.unshift(...again);
            this.stats.retried += 1;
            this.retryDelayMs = Math.min(this.retryMaxMs, Math.max(this.retryBaseMs, this.retryDelayMs * 2));
            await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs).unref());
          }
        } else {
          this.stats.failed += batch.length;
          this.options.onError?.(error);
        }
      } finally {
        this.inFlight = 0;
      }
      if (this.queue.length < this.maxQueue) this.releaseWaiters();
    }
  }

  private schedule(): void {
    if (this.queue.length >= this.maxBatch) void this.flush();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      // A pending batch must not keep a process alive; close() writes it on a clean shutdown.
      this.timer.unref();
    }
  }

  private releaseWaiters(): void {
    if (this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
