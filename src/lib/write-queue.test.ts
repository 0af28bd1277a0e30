import { describe, expect, it, vi } from 'vitest';
import { WriteQueue } from './write-queue.js';

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
});
