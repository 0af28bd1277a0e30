// One Redis connection for state several gateway processes share: rate limits, session state
// (src/engine/pipeline/shared-state.ts) and circuit breakers. Redis is an aid, never a dependency: a command fails fast instead of queueing while Redis
// is away, connection errors are logged (once per outage) instead of thrown, and the client keeps
// reconnecting in the background.
import { Redis } from 'ioredis';

/** What the client logs through (a pino or Fastify logger fits). */
export interface RedisLog {
  warn(detail: object, message: string): void;
  info(detail: object, message: string): void;
}

export interface RedisSettings {
  /** A command not answered in this long fails (the caller decides what failing means). */
  commandTimeoutMs: number;
  /** A connection attempt not established in this long is given up and retried. */
  connectTimeoutMs: number;
}

export const REDIS_DEFAULTS: RedisSettings = { commandTimeoutMs: 500, connectTimeoutMs: 2_000 };

export interface SharedRedis {
  readonly client: Redis;
  /** Where it points, without credentials, for log lines and errors. */
  readonly target: string;
  /** Resolves true once connected, false when that takes longer than `timeoutMs` or fails; never rejects. */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** The longest wait between two reconnection attempts. */
const MAX_RECONNECT_DELAY_MS = 5_000;

/**
 * A client for `url` (redis:// or rediss://). It starts connecting at once, in the background:
 * nothing waits for it unless it calls `ready()`.
 * @example const redis = createRedis(config.redis_url, log); await redis.ready(2_000);
 */
export function createRedis(url: string, log: RedisLog, settings: RedisSettings = REDIS_DEFAULTS): SharedRedis {
  const target = redactedTarget(url);
  const client = new Redis(url, {
    lazyConnect: true,
    // No queue while disconnected: a command fails at once, so a request never waits on a Redis
    // that is away.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: settings.commandTimeoutMs,
    connectTimeout: settings.connectTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, MAX_RECONNECT_DELAY_MS),
  });

  // One warning per outage, not one per reconnection attempt; one line when it is back.
  let down = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    log.warn({ redis: target, err: error.message }, 'redis unavailable: each process uses its own session state and breakers, and rate limits are not enforced, until it is back');
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    log.info({ redis: target }, 'redis available again');
  });

  // The first attempt's failure is already reported through 'error'; reconnection goes on.
  const connecting = client.connect().then(
    () => true,
    () => false,
  );
  let closed = false;

  return {
    client,
    target,
    async ready(timeoutMs) {
      if (client.status === 'ready') return true;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      try {
        return await Promise.race([connecting, timedOut]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      if (client.status === 'ready') {
        await client.quit().catch(() => client.disconnect());
      } else {
        client.disconnect();
      }
    },
  };
}

/** `redis://user:secret@host:6379/0` → `redis://host:6379/0`: a password never reaches a log line. */
export function redactedTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'redis (unparseable URL)';
  }
}
