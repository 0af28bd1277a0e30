// Session state that several gateway processes share through Redis when `redis_url` is set (issue
// 23): the untrusted content of a session (taint.ts), its input turns' risks (crescendo.ts) and the
// loop windows of tool calls (runs.ts). A load balancer may then send each call of a session to a
// different process without losing any of it.
// Each check makes one round trip at most (a pipeline), bounded by `redis_state_timeout_ms`. A
// failure or timeout throws SharedStateUnavailable; the pipeline then decides with what this
// process saw itself (it keeps its own copy) and reports the decision as degraded, so fail_mode
// closed blocks where an enforcing pack applies. Nothing waits for a Redis that is away: the
// client queues nothing while disconnected.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { withinDeadline } from '../../infra/lib/deadline.js';
import type { Surface } from '../detectors/types.js';
import { WINDOW as TURN_WINDOW } from './crescendo.js';
import { SESSION_CHARS, SESSION_TTL_MS, type Remembered } from './taint.js';

/** What a decision lists in `degraded` when the shared state could not be read or written. */
export const SHARED_STATE_DEGRADED = 'state.shared';

export class SharedStateUnavailable extends Error {}

/** Bytes of remembered content one session keeps in Redis (UTF-8 of the stored entries). */
const SESSION_BYTES = 4 * SESSION_CHARS;

// Appends an entry to a session's list and drops the oldest while the session holds more than its
// byte bound (the newest always stays); the byte count lives next to the list. Both expire together.
const REMEMBER = `
redis.call('RPUSH', KEYS[1], ARGV[1])
local total = redis.call('INCRBY', KEYS[2], string.len(ARGV[1]))
local cap = tonumber(ARGV[2])
while total > cap and redis.call('LLEN', KEYS[1]) > 1 do
  total = redis.call('DECRBY', KEYS[2], string.len(redis.call('LPOP', KEYS[1])))
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return total`;

export interface SharedStateOptions {
  /** Prepended to every key, so that deployments can share one Redis. */
  prefix: string;
  /** A round trip not answered in this long counts as failed. */
  timeoutMs: number;
}

export interface LoopWindowQuery {
  /** Whose window: the guard's tool calls and a proxied run's proposed calls are counted apart. */
  scope: 'guard' | 'proposed';
  agent: string;
  sessionId: string | undefined;
  tool: string;
  argumentsDigest: string;
  windowMs: number;
  /** Calls kept per window (more say nothing new). */
  keep: number;
  nowMs: number;
}

export class SharedSessionState {
  constructor(
    private readonly client: Redis,
    private readonly options: SharedStateOptions,
  ) {}

  /**
   * Notes what an input or untrusted check of a session adds: untrusted content to remember and/or
   * the turn's risk. Returns the session's latest turn risks (oldest first) when a risk was given.
   */
  async note(agent: string, sessionId: string, input: { remember?: Remembered; risk?: number }): Promise<number[] | null> {
    const session = this.sessionKey(agent, sessionId);
    const batch = this.client.pipeline();
    if (input.remember !== undefined) {
      const { text, surface, hostile } = input.remember;
      batch.eval(REMEMBER, 2, `${session}:taint`, `${session}:taint-bytes`, JSON.stringify([surface, hostile ? 1 : 0, text]), SESSION_BYTES, SESSION_TTL_MS);
    }
    if (input.risk !== undefined) {
      batch.rpush(`${session}:turns`, String(input.risk));
      batch.ltrim(`${session}:turns`, -TURN_WINDOW, -1);
      batch.pexpire(`${session}:turns`, SESSION_TTL_MS);
      batch.lrange(`${session}:turns`, 0, -1);
    }
    const results = await this.run(batch);
    if (input.risk === undefined) return null;
    return (results.at(-1) as string[]).map(Number).filter((risk) => Number.isFinite(risk));
  }

  /**
   * One tool call: the untrusted content remembered for its session (none without a session) and
   * the times of the same call within its loop window, this one included.
   */
  async toolCall(query: LoopWindowQuery): Promise<{ remembered: Remembered[]; times: number[] }> {
    const batch = this.client.pipeline();
    const withSession = query.sessionId !== undefined;
    if (withSession) batch.lrange(`${this.sessionKey(query.agent, query.sessionId as string)}:taint`, 0, -1);
    this.addLoop(batch, query);
    const results = await this.run(batch);
    return {
      remembered: withSession ? parseRemembered(results[0] as string[]) : [],
      times: loopTimes(results.at(-1) as string[], query),
    };
  }

  /** The times of the same call within its loop window, this one included (proxied tool calls). */
  async loop(query: LoopWindowQuery): Promise<number[]> {
    const batch = this.client.pipeline();
    this.addLoop(batch, query);
    const results = await this.run(batch);
    return loopTimes(results.at(-1) as string[], query);
  }

  private addLoop(batch: ReturnType<Redis['pipeline']>, query: LoopWindowQuery): void {
    const key = `${this.options.prefix}loop:${query.scope}:{${digest(`${query.agent}\u0000${query.sessionId ?? ''}\u0000${query.tool}\u0000${query.argumentsDigest}`)}}`;
    batch.rpush(key, String(query.nowMs));
    batch.ltrim(key, -query.keep, -1);
    batch.pexpire(key, Math.max(1, query.windowMs));
    batch.lrange(key, 0, -1);
  }

  /** A session's keys share one hash tag, so a Redis cluster keeps them on one node. */
  private sessionKey(agent: string, sessionId: string): string {
    return `${this.options.prefix}session:{${digest(`${agent}\u0000${sessionId}`)}}`;
  }

  /** Runs a pipeline within the timeout; any command's error fails the whole read. */
  private async run(batch: ReturnType<Redis['pipeline']>): Promise<unknown[]> {
    try {
      const { timeoutMs } = this.options;
      const results = await withinDeadline(batch.exec(), timeoutMs, () => new SharedStateUnavailable(`redis did not answer within ${timeoutMs} ms`));
      if (results === null) throw new SharedStateUnavailable('redis discarded the pipeline');
      return results.map(([error, value]) => {
        if (error !== null) throw new SharedStateUnavailable(error.message);
        return value;
      });
    } catch (error) {
      throw error instanceof SharedStateUnavailable ? error : new SharedStateUnavailable((error as Error).message);
    }
  }
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 32);
}

function parseRemembered(rows: readonly string[]): Remembered[] {
  const entries: Remembered[] = [];
  for (const row of rows) {
    try {
      const [surface, hostile, text] = JSON.parse(row) as [Surface, number, string];
      if (typeof text === 'string') entries.push({ text, surface, hostile: hostile === 1 });
    } catch {
      // Not ours (a foreign writer on the same prefix): ignored rather than trusted.
    }
  }
  return entries;
}

function loopTimes(rows: readonly string[], query: LoopWindowQuery): number[] {
  return rows.map(Number).filter((at) => Number.isFinite(at) && query.nowMs - at <= query.windowMs);
}
