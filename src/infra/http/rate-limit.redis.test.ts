// Rate limits shared through Redis (the real one on 127.0.0.1:6379): two gateways count one budget
// together, without Redis each counts alone, and a Redis that is down or stalls lets requests
// through (fail open) without a 5xx or a wait beyond the command timeout. Every key a test makes is
// its own (a name space per run, or addresses and credentials minted for the run) and is deleted
// afterwards.
import { randomBytes, randomInt } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { createRedis, redactedTarget, type RedisLog, type SharedRedis } from '../redis.js';
import { errorsPlugin } from './errors.js';
import { addressBucket, credentialBucket, DEFAULT_NAMESPACE, rateLimitPlugin } from './rate-limit.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const RUN = randomBytes(6).toString('hex');

/** An IPv6 client of its own /64 (written without leading zeros, as the bucket names it). */
const freshAddress = (): string => `2001:db8:${(0x1000 + randomInt(0xefff)).toString(16)}:${(0x1000 + randomInt(0xefff)).toString(16)}::7`;

const quietLog: RedisLog & { lines: string[] } = {
  lines: [],
  warn(_detail, message) {
    this.lines.push(message);
  },
  info(_detail, message) {
    this.lines.push(message);
  },
};

let inspector: Redis;
/** Exact keys the tests made in the gateway's default name space. */
const madeKeys = new Set<string>();

beforeAll(async () => {
  inspector = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await inspector.connect();
});
afterAll(async () => {
  if (madeKeys.size > 0) await inspector.del(...madeKeys);
  await inspector.quit();
});

/** Every key under `prefix`, by SCAN (bounded: a test name space holds a handful). */
async function keysUnder(prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  for (let round = 0; round < 1_000; round += 1) {
    const [next, batch] = await inspector.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    found.push(...batch);
    cursor = next;
    if (cursor === '0') break;
  }
  return found;
}

async function send(url: string, headers: Record<string, string> = {}): Promise<{ status: number; retryAfter: string | null; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), ms: performance.now() - started };
}

function tally(answers: { status: number; retryAfter: string | null }[]): { accepted: number; refused: number; others: number } {
  let accepted = 0;
  let refused = 0;
  let others = 0;
  for (const answer of answers) {
    if (answer.status === 200) accepted += 1;
    else if (answer.status === 429 && Number(answer.retryAfter) >= 1 && Number(answer.retryAfter) <= 60) refused += 1;
    else others += 1;
  }
  return { accepted, refused, others };
}

describe('two gateways sharing Redis', () => {
  const LIMIT = 5;
  let first: TestGateway;
  let second: TestGateway;

  beforeAll(async () => {
    const overrides = { redis_url: REDIS_URL, trust_proxy: true, rate_limit_public_per_minute: LIMIT, rate_limit_api_per_minute: LIMIT };
    first = await startGateway({ dialect: 'postgres', overrides });
    // The same database, so that a token minted on one is valid on both.
    second = await startGateway({ dialect: 'postgres', overrides, databaseUrl: first.config.database_url as string });
    // The admin token (it mints below) has a bucket of this run too.
    const admin = await first.app.services.resolver.lookup(first.adminToken);
    if (admin?.kind !== 'operator') throw new Error('the admin token does not resolve');
    madeKeys.add(DEFAULT_NAMESPACE + credentialBucket('api', `operator:${admin.tokenId}`));
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('enforce one public limit together: requests alternating between them are accepted at most LIMIT times', async () => {
    const client = freshAddress();
    madeKeys.add(DEFAULT_NAMESPACE + addressBucket('public', client));
    const answers = [];
    for (let index = 0; index < 12; index += 1) {
      answers.push(await send(`${(index % 2 === 0 ? first : second).url}/`, { 'x-forwarded-for': client }));
    }
    expect(tally(answers)).toEqual({ accepted: LIMIT, refused: 12 - LIMIT, others: 0 });
    expect(answers.slice(0, LIMIT).every((answer) => answer.status === 200)).toBe(true);
  });

  it('count concurrent requests to both exactly once', async () => {
    const client = freshAddress();
    madeKeys.add(DEFAULT_NAMESPACE + addressBucket('public', client));
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => send(`${(index % 2 === 0 ? first : second).url}/`, { 'x-forwarded-for': client })),
    );
    expect(tally(answers)).toEqual({ accepted: LIMIT, refused: 20 - LIMIT, others: 0 });
  });

  it('enforce one /api limit per credential together, keyed by a hash and never the token', async () => {
    const minted = await json(first.request('/api/tokens', { method: 'POST', json: { name: `shared ${RUN}`, role: 'viewer' } }));
    const bucket = DEFAULT_NAMESPACE + credentialBucket('api', `operator:${minted.id as string}`);
    madeKeys.add(bucket);
    const answers = [];
    for (let index = 0; index < 10; index += 1) {
      const gateway = index % 2 === 0 ? first : second;
      const response = await gateway.request('/api/me', { token: minted.token });
      await response.arrayBuffer();
      answers.push({ status: response.status, retryAfter: response.headers.get('retry-after') });
    }
    expect(tally(answers)).toEqual({ accepted: LIMIT, refused: 10 - LIMIT, others: 0 });
    expect(Number(await inspector.get(bucket))).toBe(10);
    const ttl = await inspector.pttl(bucket);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    // No key anywhere in the name space holds the token or any part of its secret.
    const secret = (minted.token as string).slice(7);
    for (const key of await keysUnder(DEFAULT_NAMESPACE)) {
      expect(key.includes(secret.slice(0, 16))).toBe(false);
    }
  });

});

describe('without Redis each gateway limits alone', () => {
  const LIMIT = 3;
  let first: TestGateway;
  let second: TestGateway;

  beforeAll(async () => {
    const overrides = { trust_proxy: true, rate_limit_public_per_minute: LIMIT };
    [first, second] = await Promise.all([startGateway({ overrides }), startGateway({ overrides })]);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
  });

  it('accepts LIMIT requests on each', async () => {
    const client = freshAddress();
    const answers = [];
    for (let index = 0; index < 10; index += 1) answers.push(await send(`${(index % 2 === 0 ? first : second).url}/`, { 'x-forwarded-for': client }));
    expect(tally(answers)).toEqual({ accepted: 2 * LIMIT, refused: 10 - 2 * LIMIT, others: 0 });
    // Nothing went to Redis.
    expect(await inspector.exists(DEFAULT_NAMESPACE + addressBucket('public', client))).toBe(0);
  });
});

describe('Redis unreachable: requests are let through', () => {
  let gateway: TestGateway;
  let startMs = 0;

  beforeAll(async () => {
    const closed = await closedPort();
    const started = performance.now();
    gateway = await startGateway({ overrides: { redis_url: `redis://127.0.0.1:${closed}`, rate_limit_public_per_minute: 2, rate_limit_api_per_minute: 2 } });
    startMs = performance.now() - started;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('starts, answers every request (past the limit too) without a 5xx or a wait', async () => {
    expect(startMs).toBeLessThan(15_000);
    const answers = [];
    for (let index = 0; index < 6; index += 1) answers.push(await send(`${gateway.url}/`));
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    for (const answer of answers) expect(answer.ms).toBeLessThan(1_000);
    for (let index = 0; index < 4; index += 1) expect((await gateway.request('/api/me')).status).toBe(200);
  });
});

describe('Redis that accepts connections but never answers the limit script', () => {
  let stalled: StalledRedis;
  let gateway: TestGateway;

  beforeAll(async () => {
    stalled = await startStalledRedis();
    gateway = await startGateway({ overrides: { redis_url: `redis://127.0.0.1:${stalled.port}`, rate_limit_public_per_minute: 2 } });
  });
  afterAll(async () => {
    await gateway?.close();
    await stalled?.close();
  });

  it('lets requests through once the command timeout passes, without a 5xx', async () => {
    const answers = [];
    for (let index = 0; index < 4; index += 1) answers.push(await send(`${gateway.url}/`));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    // The command timeout (500 ms) bounds each wait.
    for (const answer of answers) expect(answer.ms).toBeLessThan(2_000);
    expect(stalled.scripts()).toBeGreaterThanOrEqual(4);
  });
});

describe('the plugin with a name space of its own', () => {
  const nameSpace = `parapet-test:${RUN}:`;
  const LIMIT = 3;
  const apps: FastifyInstance[] = [];
  const clients: SharedRedis[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    for (let index = 0; index < 2; index += 1) {
      const redis = createRedis(REDIS_URL, quietLog);
      const app = Fastify({ trustProxy: true });
      await app.register(errorsPlugin);
      await app.register(rateLimitPlugin, {
        perMinute: { public: LIMIT, api: LIMIT, agent: 0 },
        credentialOf: (request) => (typeof request.headers['x-test-credential'] === 'string' ? request.headers['x-test-credential'] : null),
        redis,
        nameSpace,
      });
      // One config object for routes of two classes: each still gets its own class.
      const shared = { access: 'optional' as const };
      app.get('/api/thing', { config: shared }, async () => ({ ok: true }));
      app.get('/v1/thing', { config: shared }, async () => ({ ok: true }));
      apps.push(app);
      clients.push(redis);
      urls.push(await app.listen({ port: 0, host: '127.0.0.1' }));
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const redis of clients) await redis.close();
    const mine = await keysUnder(nameSpace);
    if (mine.length > 0) await inspector.del(...mine);
  });

  it('shares one count per credential, and counts requests without one per address', async () => {
    const credential = `ppt_op_${randomBytes(24).toString('base64url')}`;
    const withCredential = [];
    for (let index = 0; index < 6; index += 1) withCredential.push(await send(`${urls[index % 2]}/api/thing`, { 'x-test-credential': credential }));
    expect(tally(withCredential)).toEqual({ accepted: LIMIT, refused: 6 - LIMIT, others: 0 });

    const client = freshAddress();
    const anonymous = [];
    for (let index = 0; index < 6; index += 1) anonymous.push(await send(`${urls[index % 2]}/api/thing`, { 'x-forwarded-for': client }));
    expect(tally(anonymous)).toEqual({ accepted: LIMIT, refused: 6 - LIMIT, others: 0 });

    // A class at 0 is not limited at all.
    const agent = [];
    for (let index = 0; index < 6; index += 1) agent.push(await send(`${urls[index % 2]}/v1/thing`, { 'x-test-credential': credential }));
    expect(tally(agent)).toEqual({ accepted: 6, refused: 0, others: 0 });

    const keys = (await keysUnder(nameSpace)).sort();
    expect(keys).toEqual([nameSpace + addressBucket('api', client), nameSpace + credentialBucket('api', credential)].sort());
    for (const key of keys) expect(key.includes(credential)).toBe(false);
  });

  it('names the Redis without its password in log lines', () => {
    expect(redactedTarget('redis://user:s3cret@cache.internal:6380/2')).toBe('redis://cache.internal:6380/2');
    expect(redactedTarget('rediss://:s3cret@cache.internal')).toBe('rediss://cache.internal');
  });
});

describe('the shared Redis client', () => {
  it('reports a Redis that is not there as not ready, in bounded time, and logs the outage once', async () => {
    const log: RedisLog & { lines: string[] } = { ...quietLog, lines: [] };
    const redis = createRedis(`redis://127.0.0.1:${await closedPort()}`, log);
    const started = performance.now();
    expect(await redis.ready(3_000)).toBe(false);
    expect(performance.now() - started).toBeLessThan(3_500);
    // Reconnection attempts go on; the warning is not repeated.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(log.lines.filter((line) => line.startsWith('redis unavailable'))).toHaveLength(1);
    await expect(redis.client.ping()).rejects.toThrow();
    await redis.close();
    await redis.close();
  });

  it('is ready against the real Redis', async () => {
    const redis = createRedis(REDIS_URL, quietLog);
    expect(await redis.ready(3_000)).toBe(true);
    expect(await redis.client.ping()).toBe('PONG');
    await redis.close();
  });
});

/** A port nothing listens on: bound, noted and closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

interface StalledRedis {
  port: number;
  /** How many limit scripts arrived (and were never answered). */
  scripts(): number;
  close(): Promise<void>;
}

/**
 * A Redis look-alike: it answers the connection handshake (INFO, CLIENT) so the client is ready,
 * and never answers EVAL/EVALSHA, so every rate-limit command waits for the client's timeout.
 */
async function startStalledRedis(): Promise<StalledRedis> {
  let scripts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      for (;;) {
        const parsed = nextCommand(pending);
        if (parsed === null) break;
        pending = pending.slice(parsed.consumed);
        const name = (parsed.args[0] ?? '').toUpperCase();
        if (name === 'EVAL' || name === 'EVALSHA') scripts += 1;
        else if (name === 'INFO') {
          const info = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';
          socket.write(`$${info.length}\r\n${info}\r\n`);
        } else socket.write('+OK\r\n');
      }
      // A client that sends garbage is dropped rather than buffered without bound.
      if (pending.length > 65_536) socket.destroy();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    scripts: () => scripts,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** One RESP command (an array of bulk strings) from the front of `text`, or null when incomplete. */
function nextCommand(text: string): { args: string[]; consumed: number } | null {
  if (!text.startsWith('*')) return text.length === 0 ? null : { args: [], consumed: text.length };
  let at = text.indexOf('\r\n');
  if (at === -1) return null;
  const count = Number(text.slice(1, at));
  at += 2;
  const args: string[] = [];
  for (let index = 0; index < count && index < 1_000; index += 1) {
    const end = text.indexOf('\r\n', at);
    if (end === -1) return null;
    const length = Number(text.slice(at + 1, end));
    const start = end + 2;
    if (text.length < start + length + 2) return null;
    args.push(text.slice(start, start + length));
    at = start + length + 2;
  }
  return { args, consumed: at };
}
