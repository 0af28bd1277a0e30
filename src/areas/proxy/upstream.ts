// The client for model upstreams: one keep-alive pool per base URL (undici.request, which costs
// far less CPU per call than the global fetch), timeouts, retries of failures that are safe to
// repeat, and a circuit breaker per upstream. Wire-format free: the chat-completions and messages
// proxies both send through it. It never sees an agent's credential, only the headers it is given.
import { Agent, request, type Dispatcher } from 'undici';
import type { Clock } from '../../infra/lib/clock.js';
import type { SharedAdmission, SharedBreakers } from './shared-breaker.js';

export interface UpstreamSettings {
  /** Headers timeout and body (idle) timeout of every request. */
  timeoutMs: number;
  /** Further attempts after a failure that may be repeated. */
  retries: number;
  /** Consecutive failed attempts after which the breaker opens. */
  breakerFailures: number;
  /** How long an open breaker refuses calls before it lets one trial through. */
  breakerCooldownMs: number;
  /** Backoff before the n-th retry: base × 2^(n−1), plus up to 20% jitter (tests make it small). */
  retryBaseMs?: number;
}

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface UpstreamStats {
  name: string;
  base_url: string;
  state: BreakerState;
  consecutive_failures: number;
  opened_at: string | null;
  requests: number;
  failures: number;
  retries: number;
}

export interface UpstreamCall {
  /** Path below the base URL, e.g. `/chat/completions`. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface UpstreamAnswer {
  status: number;
  headers: Dispatcher.ResponseData['headers'];
  body: Dispatcher.ResponseData['body'];
}

/** Why no answer came: the breaker is open, or every attempt failed before a response. */
export class UpstreamUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number | null,
  ) {
    super(message);
  }
}

/** Whether a call is the breaker's trial, and whose breaker admitted it (the shared one or this process's). */
interface Admitted {
  trial: boolean;
  shared: boolean;
}

/** Statuses that say "try again": rate limits and gateway failures, before anything was streamed back. */
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** Errors raised before any byte of a response arrived: the upstream did not start on the request. */
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const DEFAULT_RETRY_BASE_MS = 200;
/** A Retry-After longer than this is not waited for: the caller gets the upstream's answer. */
const MAX_RETRY_AFTER_MS = 10_000;

export class Upstream {
  private readonly dispatcher: Agent;
  private readonly origin: string;
  private readonly basePath: string;
  private state: BreakerState = 'closed';
  private consecutiveFailures = 0;
  private openedAtMs: number | null = null;
  private trialInFlight = false;
  private requests = 0;
  private failures = 0;
  private retries = 0;

  constructor(
    readonly name: string,
    readonly baseUrl: string,
    private readonly settings: UpstreamSettings,
    private readonly clock: Clock,
    /** The breaker every gateway process shares (Redis); absent: this process's own. */
    private readonly shared?: SharedBreakers,
  ) {
    const url = new URL(baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.dispatcher = new Agent({
      keepAliveTimeout: 30_000,
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
      connect: { timeout: Math.min(settings.timeoutMs, 10_000) },
    });
  }

  /**
   * Sends one POST, retrying connection errors (before any byte of a response) and 429/502/503/504
   * answers with backoff (honouring `retry-after`). The last answer is returned whatever its status;
   * the caller reads or destroys its body.
   */
  async send(call: UpstreamCall, signal?: AbortSignal): Promise<UpstreamAnswer> {
    const attempts = this.settings.retries + 1;
    for (let attempt = 1; ; attempt += 1) {
      const admitted = await this.admission();
      this.requests += 1;
      let answer: UpstreamAnswer;
      try {
        const response = await request(this.origin + this.basePath + call.path, {
          dispatcher: this.dispatcher,
          method: 'POST',
          headers: call.headers,
          body: call.body,
          headersTimeout: this.settings.timeoutMs,
          bodyTimeout: this.settings.timeoutMs,
          ...(signal === undefined ? {} : { signal }),
        });
        answer = { status: response.statusCode, headers: response.headers, body: response.body };
      } catch (error) {
        this.outcome(admitted, false);
        const code = (error as { code?: string }).code ?? '';
        if (CONNECTION_ERRORS.has(code) && attempt < attempts && signal?.aborted !== true) {
          await this.backoff(attempt, null);
          continue;
        }
        throw new UpstreamUnavailable(`upstream ${this.name} did not answer: ${code || (error as Error).message}`, null);
      }
      // A 5xx counts against the breaker; a 4xx is the caller's problem, not the upstream's health.
      this.outcome(admitted, answer.status < 500);
      if (RETRYABLE_STATUS.has(answer.status) && attempt < attempts) {
        const waitMs = retryAfterMs(answer.headers['retry-after']);
        if (waitMs === null || waitMs <= MAX_RETRY_AFTER_MS) {
          await answer.body.dump().catch(() => undefined);
          await this.backoff(attempt, waitMs);
          continue;
        }
      }
      return answer;
    }
  }

  stats(): UpstreamStats {
    this.refresh();
    return {
      name: this.name,
      base_url: this.baseUrl,
      state: this.state,
      consecutive_failures: this.consecutiveFailures,
      opened_at: this.openedAtMs === null ? null : new Date(this.openedAtMs).toISOString(),
      requests: this.requests,
      failures: this.failures,
      retries: this.retries,
    };
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /** An open breaker turns half-open once its cooldown has passed. */
  private refresh(): void {
    if (this.state === 'open' && this.openedAtMs !== null && this.clock.now().getTime() - this.openedAtMs >= this.settings.breakerCooldownMs) {
      this.state = 'half_open';
    }
  }

  /**
   * The shared breaker's admission when there is one, mirrored here for GET /api/reliability; this
   * process's own when there is none or Redis does not answer in time.
   */
  private async admission(): Promise<Admitted> {
    if (this.shared !== undefined) {
      let answer: SharedAdmission | undefined;
      try {
        answer = await this.shared.admit(this.name, this.clock.now().getTime());
      } catch {
        // Redis is away or slow: this process's breaker decides until it is back.
      }
      if (answer !== undefined) {
        this.mirror(answer);
        if (answer.state === 'open') {
          throw new UpstreamUnavailable(
            `the circuit breaker of upstream ${this.name} is open after ${answer.failures} consecutive failures`,
            Math.max(1, Math.ceil(answer.retryInMs / 1000)),
          );
        }
        return { trial: answer.state === 'trial', shared: true };
      }
    }
    return { trial: this.admit(), shared: false };
  }

  private mirror(answer: SharedAdmission): void {
    this.consecutiveFailures = answer.failures;
    this.state = answer.state === 'closed' ? 'closed' : answer.state === 'trial' ? 'half_open' : 'open';
    this.openedAtMs = answer.state === 'closed' ? null : answer.openedAtMs;
  }

  private outcome(admitted: Admitted, succeeded: boolean): void {
    if (admitted.shared) {
      this.failures += succeeded ? 0 : 1;
      this.shared?.report(this.name, succeeded, admitted.trial, this.clock.now().getTime());
    } else if (succeeded) this.succeed(admitted.trial);
    else this.fail(admitted.trial);
  }

  /** Refuses while open; half-open lets exactly one trial through. Returns whether this call is the trial. */
  private admit(): boolean {
    this.refresh();
    if (this.state === 'closed') return false;
    if (this.state === 'half_open' && !this.trialInFlight) {
      this.trialInFlight = true;
      return true;
    }
    const left = this.openedAtMs === null ? 1 : Math.max(1, Math.ceil((this.openedAtMs + this.settings.breakerCooldownMs - this.clock.now().getTime()) / 1000));
    throw new UpstreamUnavailable(`the circuit breaker of upstream ${this.name} is open after ${this.consecutiveFailures} consecutive failures`, left);
  }

  private fail(trial: boolean): void {
    this.failures += 1;
    this.consecutiveFailures += 1;
    if (trial) this.trialInFlight = false;
    if (trial || (this.state === 'closed' && this.consecutiveFailures >= this.settings.breakerFailures)) {
      this.state = 'open';
      this.openedAtMs = this.clock.now().getTime();
    }
  }

  private succeed(trial: boolean): void {
    this.consecutiveFailures = 0;
    if (trial) this.trialInFlight = false;
    if (this.state !== 'open') {
      this.state = 'closed';
      this.openedAtMs = null;
    }
  }

  private async backoff(attempt: number, retryAfter: number | null): Promise<void> {
    this.retries += 1;
    const base = this.settings.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
    const delay = retryAfter ?? base * 2 ** (attempt - 1) * (1 + Math.random() * 0.2);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** `retry-after` as milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** Every upstream the gateway calls, by name, for the proxies and `GET /api/reliability`. */
export class Upstreams {
  private readonly byName = new Map<string, Upstream>();

  constructor(
    readonly settings: UpstreamSettings,
    private readonly clock: Clock,
    private readonly shared?: SharedBreakers,
  ) {}

  /** The upstream of this name, made on first use. */
  get(name: string, baseUrl: string): Upstream {
    let upstream = this.byName.get(name);
    if (upstream === undefined) {
      upstream = new Upstream(name, baseUrl, this.settings, this.clock, this.shared);
      this.byName.set(name, upstream);
    }
    return upstream;
  }

  list(): UpstreamStats[] {
    return [...this.byName.values()].map((upstream) => upstream.stats());
  }

  async close(): Promise<void> {
    await Promise.all([...this.byName.values()].map((upstream) => upstream.close()));
  }
}
