import { describe, expect, it, vi } from 'vitest';
import { RetryLater, WriteQueue } from './write-queue.js';

describe('WriteQueue', () => {
  it('writes queued items in one batch after the timer, or at once when the batch is full', async () => {
    const batches: number[][] = [];
    const queue = new WriteQueue<number>(async (batch) => void batches.push(batch), { flushMs: 5, maxBatch: 3 });
    queue.push(1);
    queue.push(2);
    expect(batches).toEqual([]);
    await vi.waitFor(() => expect(batches).toEqual([[1, 2]]));
    queue.push(3);
    queue.push(4);
    queue.push(5);
    await queue.flush();
    expect(batches).toEqual([[1, 2], [3, 4, 5]]);
    expect(queue.stats.written).toBe(5);
  });

  it('reports a failed batch through onError and keeps going', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const written: string[] = [];
    const queue = new WriteQueue<string>(
      async (batch) => {
        if (fail) throw new Error('database down');
        written.push(...batch);
      },
      { onError: (error) => errors.push(error) },
    );
    queue.push('lost');
    await queue.flush();
    expect(errors).toHaveLength(1);
    expect(queue.stats.failed).toBe(1);
    fail = false;
    queue.push('kept');
    await queue.close();
    expect(written).toEqual(['kept']);
  });

  it('drops items beyond maxQueue and counts them', async () => {
    const queue = new WriteQueue<number>(async () => undefined, { maxQueue: 2, maxBatch: 10 });
    for (const item of [1, 2, 3]) queue.push(item);
    expect(queue.stats.dropped).toBe(1);
    await queue.close();
    expect(queue.stats.written).toBe(2);
  });

  it('with waitForRoom keeps every item past maxQueue and holds callers on room() until it drains', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const written: number[] = [];
    const queue = new WriteQueue<number>(
      async (batch) => {
        await gate;
        written.push(...batch);
      },
      { maxQueue: 3, maxBatch: 2, flushMs: 1, waitForRoom: true },
    );
    expect(queue.room()).toBeUndefined();
    for (const item of [1, 2, 3, 4, 5, 6]) queue.push(item);
    // The first batch [1, 2] is being written and four wait: six unwritten, more than maxQueue.
    await vi.waitFor(() => expect(queue.length).toBe(6));
    const room = queue.room();
    expect(room).toBeInstanceOf(Promise);
    let roomy = false;
    void room?.then(() => (roomy = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(roomy).toBe(false);
    release();
    await room;
    await queue.flush();
    expect(written).toEqual([1, 2, 3, 4, 5, 6]);
    expect(queue.stats).toMatchObject({ dropped: 0, written: 6 });
  });

  it('writes items handed back with RetryLater again after a growing pause, in order', async () => {
    const attempts: number[] = [];
    const written: string[] = [];
    const reasons: unknown[] = [];
    let failures = 3;
    const queue = new WriteQueue<string>(
      async (batch) => {
        attempts.push(performance.now());
        if (failures > 0) {
          failures -= 1;
          // The first item was written; the rest must wait for the database.
          if (batch[0] === 'a') {
            written.push('a');
            throw new RetryLater(batch.slice(1), new Error('database away'));
          }
          throw new RetryLater(batch, new Error('database away'));
        }
        written.push(...batch);
      },
      { retryBaseMs: 10, retryMaxMs: 40, onError: (error) => reasons.push(error) },
    );
    for (const item of ['a', 'b', 'c']) queue.push(item);
    await queue.flush();
    expect(written).toEqual(['a', 'b', 'c']);
    expect(queue.stats).toMatchObject({ written: 3, failed: 0, retried: 3 });
    expect(reasons).toHaveLength(3);
    const pauses = attempts.slice(1).map((at, index) => at - (attempts[index] as number));
    // 10, 20, 40 ms (timers may fire a little early or late on a busy machine).
    expect(pauses[0]).toBeGreaterThanOrEqual(8);
    expect(pauses[2]).toBeGreaterThanOrEqual(30);
  });

  it('on close counts items still handed back as failed instead of retrying forever', async () => {
    const queue = new WriteQueue<number>(async (batch) => {
      throw new RetryLater(batch, new Error('database away'));
    });
    queue.push(1);
    queue.push(2);
    await queue.close();
    expect(queue.stats).toMatchObject({ failed: 2, written: 0 });
  });
});
