// The change bus on its own: the message format and its bounds, debouncing, a change during a
// handler's run, and on PostgreSQL two buses on one database (as two processes would hold them),
// including a listener whose connection the server terminates.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/postgres.js';
import { Store } from './db.js';
import { ChangeBus, decodeChange, encodeChange, type ChangeTopic } from './notify.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(2);
  }
  return performance.now() - started;
}

/** Every call of a topic's handler, with the details it got. */
function recorder(bus: ChangeBus, topics: ChangeTopic[], work?: () => Promise<void>) {
  const calls: Array<{ topic: ChangeTopic; details: readonly string[] | null }> = [];
  bus.subscribe(
    Object.fromEntries(
      topics.map((topic) => [
        topic,
        async (details: readonly string[] | null) => {
          calls.push({ topic, details });
          await work?.();
        },
      ]),
    ),
  );
  return calls;
}

describe('change messages', () => {
  it('carry a topic and a small detail, and stay under the NOTIFY payload limit', () => {
    expect(decodeChange(encodeChange('agents'))).toEqual({ topic: 'agents', detail: null });
    expect(decodeChange(encodeChange('credentials', 'abc123'))).toEqual({ topic: 'credentials', detail: 'abc123' });
    // A detail too long to be an id is dropped: the receiver then reads everything.
    expect(decodeChange(encodeChange('credentials', 'x'.repeat(10_000)))).toEqual({ topic: 'credentials', detail: null });
    expect(Buffer.byteLength(encodeChange('credentials', '\u{1F600}'.repeat(199)))).toBeLessThan(8000);
  });

  it('ignore what is not a message of ours', () => {
    for (const payload of [undefined, '', 'agents', '[]', 'null', '{"t":"nope"}', '{"t":7}', `{"t":"agents","d":"${'y'.repeat(9000)}"}`]) {
      const decoded = decodeChange(payload);
      if (decoded !== null) expect(decoded).toEqual({ topic: 'agents', detail: null });
      else expect(decoded).toBeNull();
    }
    expect(decodeChange('{"t":"__proto__"}')).toBeNull();
  });
});

describe('the in-process bus (SQLite)', () => {
  let dir: string;
  let store: Store;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'parapet-notify-'));
    store = Store.open({ databaseUrl: null, dataDir: dir });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers to this process, once for changes close together, with their details', async () => {
    const bus = ChangeBus.open(store);
    expect(bus.status()).toMatchObject({ kind: 'in-process', connected: true });
    const calls = recorder(bus, ['credentials', 'agents']);
    await bus.start();
    bus.publish('credentials', 'h1');
    bus.publish('credentials', 'h2');
    bus.publish('credentials', 'h1');
    await until(() => calls.length >= 1, 1000);
    await sleep(30);
    expect(calls).toEqual([{ topic: 'credentials', details: ['h1', 'h2'] }]);
    await bus.close();
    bus.publish('agents');
    await sleep(30);
    expect(calls).toHaveLength(1);
  });

  it('runs a handler again when a change arrives during its run, never two runs at once', async () => {
    const bus = ChangeBus.open(store, { debounceMs: 1 });
    let running = 0;
    let overlapped = false;
    const calls = recorder(bus, ['policies'], async () => {
      running += 1;
      if (running > 1) overlapped = true;
      await sleep(40);
      running -= 1;
    });
    bus.publish('policies');
    await until(() => calls.length === 1, 1000);
    bus.publish('policies');
    bus.publish('policies');
    await until(() => calls.length === 2, 1000);
    await sleep(80);
    expect(calls).toHaveLength(2);
    expect(overlapped).toBe(false);
    await bus.close();
  });

  it('keeps a bounded number of details and then asks for everything', async () => {
    const bus = ChangeBus.open(store);
    const calls = recorder(bus, ['credentials']);
    for (let index = 0; index < 1_500; index += 1) bus.publish('credentials', `h${index}`);
    await until(() => calls.length === 1, 1000);
    expect(calls[0]?.details).toBeNull();
    await bus.close();
  });

  it('reports a failing handler and goes on', async () => {
    const errors: string[] = [];
    const bus = ChangeBus.open(store, { onError: (_error, what) => errors.push(what) });
    let calls = 0;
    bus.subscribe({
      rules: () => {
        calls += 1;
        throw new Error('boom');
      },
    });
    bus.publish('rules');
    await until(() => errors.length === 1, 1000);
    bus.publish('rules');
    await until(() => calls === 2, 1000);
    expect(errors[0]).toBe('reading rules after a change');
    await bus.close();
  });
});

describe('the PostgreSQL bus', () => {
  let database: TestDatabase;
  let storeA: Store;
  let storeB: Store;
  let busA: ChangeBus;
  let busB: ChangeBus;
  const errorsB: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    storeA = Store.open({ databaseUrl: database.url, dataDir: tmpdir(), poolSize: 2 });
    storeB = Store.open({ databaseUrl: database.url, dataDir: tmpdir(), poolSize: 2 });
    busA = ChangeBus.open(storeA);
    busB = ChangeBus.open(storeB, { onError: (_error, what) => errorsB.push(what) });
  });
  afterAll(async () => {
    await busA?.close();
    await busB?.close();
    await storeA?.close();
    await storeB?.close();
    await database?.drop();
  });

  it('is not connected before start() and listens on one dedicated connection after it', async () => {
    expect(busB.status()).toEqual({ kind: 'postgres', connected: false, listenerPid: null, reconnects: 0 });
    await busA.start();
    await busB.start();
    const status = busB.status();
    expect(status.connected).toBe(true);
    const listener = await sql<{ application_name: string; query: string }>`select application_name, query from pg_stat_activity where pid = ${status.listenerPid}`.execute(storeA.db);
    expect(listener.rows[0]?.application_name).toBe('parapet-changes');
  });

  it("delivers one process's change to the other (and to itself) within milliseconds", async () => {
    const callsB = recorder(busB, ['agents', 'credentials']);
    const callsA = recorder(busA, ['agents']);
    const started = performance.now();
    busA.publish('agents');
    await until(() => callsB.length === 1 && callsA.length === 1, 1000);
    expect(performance.now() - started).toBeLessThan(100);
    busA.publish('credentials', 'digest-1');
    await until(() => callsB.length === 2, 1000);
    expect(callsB[1]).toEqual({ topic: 'credentials', details: ['digest-1'] });
  });

  it('ignores notifications on its channel that are not its messages', async () => {
    const calls = recorder(busB, ['detectors']);
    await sql`select pg_notify('parapet_changes', 'not json')`.execute(storeA.db);
    await sql`select pg_notify('parapet_changes', '{"t":"elsewhere"}')`.execute(storeA.db);
    busA.publish('detectors');
    await until(() => calls.length === 1, 1000);
    await sleep(30);
    expect(calls).toHaveLength(1);
  });

  it('reconnects after the server ends its connection, re-reads every topic, and delivers again', async () => {
    const calls = recorder(busB, ['policies', 'judgment']);
    const pid = busB.status().listenerPid;
    await sql`select pg_terminate_backend(${pid})`.execute(storeA.db);
    await until(() => !busB.connected(), 2000);
    const reconnectedIn = await until(() => busB.connected(), 5000);
    expect(busB.status()).toMatchObject({ connected: true, reconnects: 1 });
    expect(busB.status().listenerPid).not.toBe(pid);
    expect(reconnectedIn).toBeLessThan(2000);
    expect(errorsB).toContain('listening for changes');
    // Messages may have been missed meanwhile: every topic is read again once.
    await until(() => calls.length === 2, 1000);
    expect(calls.map((call) => call.details)).toEqual([null, null]);
    busA.publish('judgment');
    await until(() => calls.length === 3, 1000);
    expect(calls[2]).toEqual({ topic: 'judgment', details: null });
  });

  it('still announces through the pool while its own listener is away', async () => {
    const calls = recorder(busB, ['rules']);
    await sql`select pg_terminate_backend(${busA.status().listenerPid})`.execute(storeB.db);
    await until(() => !busA.connected(), 2000);
    busA.publish('rules');
    await until(() => calls.length === 1, 1000);
    await until(() => busA.connected(), 5000);
  });

  it('stops listening on close', async () => {
    const pid = busB.status().listenerPid;
    await busB.close();
    expect(busB.status().connected).toBe(false);
    let left = 1;
    const gone = async () => {
      left = (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where pid = ${pid}`.execute(storeA.db)).rows[0]?.n ?? 0;
      return left === 0;
    };
    for (let attempt = 0; attempt < 50 && !(await gone()); attempt += 1) await sleep(20);
    expect(left).toBe(0);
  });
});
