// A write-behind queue for rows recorded on the request path (decisions and findings, agent
// messages, memory entries): items wait in memory for a short timer or a full batch and are
// written in one call, so a guard answer never waits on the database. Failures go to onError;
// they never reach the caller.

export interface WriteQueueOptions {
  /** How long the first queued item waits for company before the batch is written. */
  flushMs?: number;
  maxBatch?: number;
  /** Beyond this many queued items, new ones are dropped and counted (never the answer). */
  maxQueue?: number;
  onError?: (error: unknown) => void;
}

/**
 * @example const queue = new WriteQueue((rows) => insertRows(db, rows)); queue.push(row); await queue.close();
 */
export class WriteQueue<T> {
  private queue: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  readonly stats = { written: 0, dropped: 0, failed: 0 };
  private readonly flushMs: number;
  private readonly maxBatch: number;
  private readonly maxQueue: number;

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly options: WriteQueueOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 20;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxQueue = options.maxQueue ?? 100_000;
  }

  push(item: T): void {
    if (this.queue.length >= this.maxQueue) {
      this.stats.dropped += 1;
      return;
    }
    this.queue.push(item);
    if (this.queue.length >= this.maxBatch) void this.flush();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      // A pending batch must not keep a process alive; close() writes it on a clean shutdown.
      this.timer.unref();
    }
  }

  /** Writes everything queued so far; resolves when it is stored (or reported through onError). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.flushing !== undefined) await this.flushing;
    if (this.queue.length === 0) return;
    this.flushing = this.drain().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  async close(): Promise<void> {
    await this.flush();
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        await this.write(batch);
        this.stats.written += batch.length;
      } catch (error) {
        this.stats.failed += batch.length;
        this.options.onError?.(error);
      }
    }
  }
}
