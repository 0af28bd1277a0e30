// Circuit-breaker state every gateway process shares through Redis when `redis_url` is set: an
// upstream that fails for one replica is open for all of them, and after the cooldown exactly one
// trial call goes through across the deployment. One script call decides admission (a round trip
// before the upstream call); the outcome is written after it without being waited for. When Redis
// cannot answer within `redis_state_timeout_ms`, each process falls back to its own breaker: a
// breaker protects the upstream and the caller's wait, not a security property, so the fallback is
// the same whatever the fail mode.
import type { Redis } from 'ioredis';
import { withinDeadline } from '../../infra/lib/deadline.js';

/** What the shared breaker says of a call about to be sent. */
export type SharedAdmission =
  | { state: 'closed'; failures: number }
  | { state: 'trial'; openedAtMs: number; failures: number }
  | { state: 'open'; openedAtMs: number; retryInMs: number; failures: number };

// Hash fields: f consecutive failures, o when it opened (absent: closed), t until when a trial's
// lease runs (one trial at a time; a trial that never reports back frees the lease when it ends).
const ADMIT = `
local o = tonumber(redis.call('HGET', KEYS[1], 'o'))
local f = tonumber(redis.call('HGET', KEYS[1], 'f')) or 0
if not o then return {0, 0, 0, f} end
local now = tonumber(ARGV[1])
local left = o + tonumber(ARGV[2]) - now
if left > 0 then return {2, o, left, f} end
local t = tonumber(redis.call('HGET', KEYS[1], 't'))
if t and t > now then return {2, o, t - now, f} end
redis.call('HSET', KEYS[1], 't', now + tonumber(ARGV[3]))
return {1, o, 0, f}`;

// ARGV: 1 succeeded (1/0), 2 was the trial (1/0), 3 now, 4 failures that open it, 5 expiry (ms).
const OUTCOME = `
local now = tonumber(ARGV[3])
if ARGV[2] == '1' then redis.call('HDEL', KEYS[1], 't') end
if ARGV[1] == '1' then
  redis.call('HSET', KEYS[1], 'f', 0)
  if ARGV[2] == '1' then redis.call('HDEL', KEYS[1], 'o') end
else
  local f = redis.call('HINCRBY', KEYS[1], 'f', 1)
  local o = redis.call('HGET', KEYS[1], 'o')
  if ARGV[2] == '1' or (not o and f >= tonumber(ARGV[4])) then redis.call('HSET', KEYS[1], 'o', now) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/** A breaker's state is forgotten a day after its last outcome (an upstream nobody calls). */
const STATE_TTL_MS = 86_400_000;

export interface SharedBreakerOptions {
  prefix: string;
  timeoutMs: number;
  /** Consecutive failures that open a closed breaker. */
  failures: number;
  cooldownMs: number;
  /** How long a trial may take before another process may try (the upstream timeout). */
  trialLeaseMs: number;
}

export class SharedBreakers {
  constructor(
    private readonly client: Redis,
    private readonly options: SharedBreakerOptions,
  ) {}

  /** Admission of one call to `upstream`; throws when Redis does not answer in time. */
  async admit(upstream: string, nowMs: number): Promise<SharedAdmission> {
    const { timeoutMs } = this.options;
    const reply = (await withinDeadline(
      this.client.eval(ADMIT, 1, this.key(upstream), nowMs, this.options.cooldownMs, this.options.trialLeaseMs),
      timeoutMs,
      () => new Error(`redis did not answer within ${timeoutMs} ms`),
    )) as [number, number, number, number];
    const [code, openedAtMs, retryInMs, failures] = reply.map(Number) as [number, number, number, number];
    if (code === 0) return { state: 'closed', failures };
    if (code === 1) return { state: 'trial', openedAtMs, failures };
    return { state: 'open', openedAtMs, retryInMs, failures };
  }

  /** Records a call's outcome; not waited for, and a failure to write it is not the caller's. */
  report(upstream: string, succeeded: boolean, trial: boolean, nowMs: number): void {
    this.client
      .eval(OUTCOME, 1, this.key(upstream), succeeded ? 1 : 0, trial ? 1 : 0, nowMs, this.options.failures, STATE_TTL_MS)
      .catch(() => undefined);
  }

  private key(upstream: string): string {
    return `${this.options.prefix}breaker:${upstream}`;
  }
}
