// The durable job queue on both engines: claim order, leases, backoff with a moved clock, dead
// letters, retry, and the /api/jobs routes.
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';
import { JobQueue, RETRY_JITTER } from '../../infra/jobs/queue.js';
import { PermanentJobError, Worker, type WorkerEvent } from '../../infra/jobs/worker.js';

const LEASE_MS = 1000;

describe.each(DIALECTS)('job queue (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  // A fixed draw pins the jitter: every delay is exactly base × 2^(n−1) × (1 + RETRY_JITTER / 2).
  const queueOf = () => new JobQueue(ctx.gateway.store, ctx.gateway.clock, { retryBaseMs: 1000, random: () => 0.5 });
  const delay = (ms: number) => ms * (1 + RETRY_JITTER / 2);
  const at = (offsetMs: number) => new Date(ctx.gateway.clock.now().getTime() + offsetMs);

  it('claims the oldest due job first, skips later ones and other kinds, and holds a claim for its lease', async () => {
    const queue = queueOf();
    const later = await queue.enqueue('t.order', { n: 'later' }, { maxAttempts: 3, runAfter: at(60_000), createdBy: 'test' });
    const first = await queue.enqueue('t.order', { n: 1 }, { maxAttempts: 3, runAfter: at(-2000), createdBy: 'test' });
    const second = await queue.enqueue('t.order', { n: 2 }, { maxAttempts: 3, runAfter: at(-1000), createdBy: 'test' });
    await queue.enqueue('t.other', { n: 'other kind' }, { maxAttempts: 3, createdBy: 'test' });

    const a = await queue.claim('worker-a', ['t.order'], LEASE_MS);
    expect(a).toMatchObject({ id: first.id, status: 'running', attempts: 1, locked_by: 'worker-a' });
    expect(Date.parse(a?.locked_until ?? '')).toBe(Date.parse(a?.updated_at ?? '') + LEASE_MS);
    const b = await queue.claim('worker-b', ['t.order'], LEASE_MS);
    expect(b?.id).toBe(second.id);
    expect(await queue.claim('worker-c', ['t.order'], LEASE_MS)).toBeUndefined();
    expect(await queue.claim('worker-c', [], LEASE_MS)).toBeUndefined();

    expect(await queue.complete(first.id, 'worker-a', { ok: true })).toBe(true);
    expect(await queue.complete(second.id, 'worker-a', { ok: true })).toBe(false);
    expect(await queue.heartbeat(second.id, 'worker-b', LEASE_MS)).toBe(true);
    ctx.gateway.clock.advance(61_000);
    // b's lease ran out: its worker counts as dead and the job goes to the next one, with a new attempt.
    const taken = await queue.claim('worker-c', ['t.order'], LEASE_MS);
    expect(taken).toMatchObject({ id: second.id, attempts: 2, locked_by: 'worker-c' });
    expect(await queue.complete(second.id, 'worker-b', null)).toBe(false);
    expect(await queue.heartbeat(second.id, 'worker-b', LEASE_MS)).toBe(false);
    expect((await queue.claim('worker-c', ['t.order'], LEASE_MS))?.id).toBe(later.id);
    const done = await json(ctx.gateway.request(`/api/jobs/${first.id}`));
    expect(done).toMatchObject({ id: first.id, status: 'done', result: { ok: true }, payload: { n: 1 }, locked_by: null, created_by: 'test' });
    expect(done.finished_at).not.toBeNull();
  });

  it('retries a failed job after base × 2^(attempts−1) with jitter, then dead-letters it after max_attempts', async () => {
    const queue = queueOf();
    const job = await queue.enqueue('t.backoff', { x: 1 }, { maxAttempts: 3, createdBy: 'test' });
    for (const [attempt, wait] of [
      [1, delay(1000)],
      [2, delay(2000)],
    ] as const) {
      const claimed = await queue.claim('w', ['t.backoff'], LEASE_MS);
      expect(claimed).toMatchObject({ id: job.id, attempts: attempt });
      const failedAt = ctx.gateway.clock.now().getTime();
      const failed = await queue.fail(job.id, 'w', `boom ${attempt}`, { permanent: false });
      expect(failed).toMatchObject({ status: 'queued', last_error: `boom ${attempt}`, locked_by: null });
      // The test clock runs with real time: the failure was recorded between failedAt and now.
      const runAfter = Date.parse(failed?.run_after ?? '');
      expect(runAfter).toBeGreaterThanOrEqual(failedAt + wait - 1);
      expect(runAfter).toBeLessThanOrEqual(ctx.gateway.clock.now().getTime() + wait + 1);
      ctx.gateway.clock.advance(wait - 500);
      expect(await queue.claim('w', ['t.backoff'], LEASE_MS)).toBeUndefined();
      ctx.gateway.clock.advance(1000);
    }
    expect(await queue.claim('w', ['t.backoff'], LEASE_MS)).toMatchObject({ attempts: 3 });
    const dead = await queue.fail(job.id, 'w', 'boom 3', { permanent: false });
    expect(dead).toMatchObject({ status: 'dead', attempts: 3, last_error: 'boom 3' });
    expect(dead?.finished_at).not.toBeNull();
    ctx.gateway.clock.advance(3_600_000);
    expect(await queue.claim('w', ['t.backoff'], LEASE_MS)).toBeUndefined();
  });

  it('jitter stays within 20% of the delay', () => {
    const low = new JobQueue(ctx.gateway.store, ctx.gateway.clock, { retryBaseMs: 1000, random: () => 0 });
    const high = new JobQueue(ctx.gateway.store, ctx.gateway.clock, { retryBaseMs: 1000, random: () => 0.999999 });
    expect([low.backoffMs(1), low.backoffMs(3)]).toEqual([1000, 4000]);
    expect([high.backoffMs(1), high.backoffMs(3)]).toEqual([1200, 4800]);
  });

  it('dead-letters a permanent failure at once, and a job whose worker died on its last attempt', async () => {
    const queue = queueOf();
    const permanent = await queue.enqueue('t.permanent', {}, { maxAttempts: 5, createdBy: 'test' });
    await queue.claim('w', ['t.permanent'], LEASE_MS);
    expect(await queue.fail(permanent.id, 'w', 'bad input', { permanent: true })).toMatchObject({ status: 'dead', attempts: 1 });

    const last = await queue.enqueue('t.lastlease', {}, { maxAttempts: 1, createdBy: 'test' });
    expect(await queue.claim('w', ['t.lastlease'], LEASE_MS)).toMatchObject({ id: last.id, attempts: 1 });
    ctx.gateway.clock.advance(LEASE_MS + 1);
    expect(await queue.claim('w2', ['t.lastlease'], LEASE_MS)).toBeUndefined();
    expect(await queue.get(last.id)).toMatchObject({ status: 'dead', last_error: expect.stringContaining('lease') });
  });

  it('lists every status with dead jobs by default, newest first, filters and pages; retry requeues only a dead job (409 otherwise) and is audited', async () => {
    const queue = queueOf();
    const dead = await queue.enqueue('t.list', { n: 'dead' }, { maxAttempts: 1, createdBy: 'test' });
    await queue.claim('w', ['t.list'], LEASE_MS);
    await queue.fail(dead.id, 'w', 'no way', { permanent: true });
    const queued = await queue.enqueue('t.list', { n: 'queued' }, { maxAttempts: 1, runAfter: at(3_600_000), createdBy: 'test' });

    const all = await json(ctx.gateway.request('/api/jobs?kind=t.list'));
    expect(all.items.map((job: { id: string }) => job.id)).toEqual([queued.id, dead.id]);
    expect(all.items[1]).toMatchObject({ status: 'dead', last_error: 'no way', max_attempts: 1, payload: { n: 'dead' }, result: null });
    expect((await json(ctx.gateway.request('/api/jobs?kind=t.list&status=dead'))).items.map((job: { id: string }) => job.id)).toEqual([dead.id]);
    const first = await json(ctx.gateway.request('/api/jobs?kind=t.list&limit=1'));
    expect(first.items).toHaveLength(1);
    const second = await json(ctx.gateway.request(`/api/jobs?kind=t.list&limit=1&cursor=${first.next_cursor}`));
    expect(second.items[0].id).toBe(dead.id);
    expect(second.next_cursor).toBeNull();
    expect((await ctx.gateway.request('/api/jobs?status=stuck')).status).toBe(400);
    expect((await ctx.gateway.request('/api/jobs?limit=501')).status).toBe(400);
    expect((await ctx.gateway.request('/api/jobs/job_00000000000000000000000000')).status).toBe(404);

    const conflict = await ctx.gateway.request(`/api/jobs/${queued.id}/retry`, { method: 'POST', json: {} });
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get('content-type')).toContain('application/problem+json');
    expect((await ctx.gateway.request('/api/jobs/job_00000000000000000000000000/retry', { method: 'POST' })).status).toBe(404);
    const viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { role: 'viewer' } }))).token;
    expect((await ctx.gateway.request(`/api/jobs/${dead.id}/retry`, { method: 'POST', token: viewer })).status).toBe(403);
    expect((await ctx.gateway.request(`/api/jobs/${dead.id}`, { token: viewer })).status).toBe(200);

    const retried = await ctx.gateway.request(`/api/jobs/${dead.id}/retry`, { method: 'POST' });
    expect(retried.status).toBe(200);
    expect(await json(retried)).toMatchObject({ id: dead.id, status: 'queued', attempts: 0, finished_at: null });
    expect((await ctx.gateway.request(`/api/jobs/${dead.id}/retry`, { method: 'POST' })).status).toBe(409);
    const entry = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'job.retry').where('target', '=', dead.id).executeTakeFirst();
    expect(entry).toBeDefined();
    expect(await queue.claim('w', ['t.list'], LEASE_MS)).toMatchObject({ id: dead.id, attempts: 1 });
  });

  it('a worker runs handlers by kind, records results and failures, and stop() waits for the job in hand', async () => {
    const queue = queueOf();
    const events: WorkerEvent[] = [];
    let release: () => void = () => undefined;
    const worker = new Worker({ queue, pollMs: 20, leaseMs: 300, workerId: 'unit-worker', onEvent: (event) => events.push(event) })
      .register('t.echo', async ({ payload }) => ({ echoed: payload.word }))
      .register('t.refuse', async () => {
        throw new PermanentJobError('will never work');
      })
      .register('t.slow', () => new Promise((resolve) => (release = () => resolve({ slow: true }))));
    const echo = await queue.enqueue('t.echo', { word: 'hello' }, { maxAttempts: 1, createdBy: 'test' });
    const refuse = await queue.enqueue('t.refuse', {}, { maxAttempts: 3, createdBy: 'test' });
    expect(await worker.tick()).toBe(true);
    expect(await worker.tick()).toBe(true);
    expect(await worker.tick()).toBe(false);
    expect(await queue.get(echo.id)).toMatchObject({ status: 'done', result: JSON.stringify({ echoed: 'hello' }) });
    expect(await queue.get(refuse.id)).toMatchObject({ status: 'dead', attempts: 1, last_error: 'will never work' });
    expect(events.map((event) => `${event.kind} ${event.event}`)).toEqual(['t.echo started', 't.echo done', 't.refuse started', 't.refuse dead']);

    const slow = await queue.enqueue('t.slow', {}, { maxAttempts: 1, createdBy: 'test' });
    worker.start();
    const deadline = Date.now() + 5000;
    while ((await queue.get(slow.id))?.status !== 'running' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    // The lease is renewed while the handler runs (a third of the lease at a time).
    const before = (await queue.get(slow.id))?.locked_until ?? '';
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(Date.parse((await queue.get(slow.id))?.locked_until ?? '')).toBeGreaterThan(Date.parse(before));
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await queue.get(slow.id)).toMatchObject({ status: 'done', result: JSON.stringify({ slow: true }) });
  });
});
