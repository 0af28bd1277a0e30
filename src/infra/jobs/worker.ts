// A job worker: handlers registered by kind, a poll loop that runs one job at a time, the lease
// renewed while a handler runs, and a stop() that waits for the running job. One runs inside every
// gateway process (`jobs_in_process`) and `parapet worker` runs one on its own.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { JobRow } from '../store/tables.js';
import type { JobQueue } from './queue.js';

export interface JobContext {
  job: JobRow;
  payload: Record<string, unknown>;
  workerId: string;
  /** Aborted when the worker lost the job's lease (another worker may be running it now). */
  signal: AbortSignal;
}

/**
 * Does the work of one kind of job. What it returns is stored as the job's `result`; a throw is a
 * failed attempt, retried with backoff unless the error is permanent (see PermanentJobError).
 * @example worker.register('evidence.build', async ({ payload }) => ({ package_id: await build(String(payload.package_id)) }))
 */
export type JobHandler = (context: JobContext) => Promise<Record<string, unknown> | null | undefined>;

/** A failure that another attempt cannot fix: the job goes straight to dead. */
export class PermanentJobError extends Error {
  readonly permanent = true;
}

export function isPermanent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { permanent?: unknown }).permanent === true;
}

export interface WorkerEvent {
  event: 'started' | 'done' | 'retry' | 'dead' | 'lost';
  job_id: string;
  kind: string;
  attempt: number;
  ms?: number;
  error?: string;
  run_after?: string;
}

export interface WorkerOptions {
  queue: JobQueue;
  pollMs: number;
  leaseMs: number;
  workerId?: string;
  /** One call per job event (logged by the caller). */
  onEvent?: (event: WorkerEvent) => void;
  /** The queue itself failed (database unreachable); the loop carries on after pollMs. */
  onError?: (error: unknown) => void;
}

export function defaultWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

export class Worker {
  readonly id: string;
  private readonly handlers = new Map<string, JobHandler>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** The tick in progress (ticks never overlap: concurrency 1). */
  private current: Promise<boolean> = Promise.resolve(false);

  constructor(private readonly options: WorkerOptions) {
    this.id = options.workerId ?? defaultWorkerId();
  }

  register(kind: string, handler: JobHandler): this {
    this.handlers.set(kind, handler);
    return this;
  }

  kinds(): string[] {
    return [...this.handlers.keys()];
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops polling and resolves once the job in hand (if any) is finished and recorded. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current.catch(() => undefined);
  }

  /** Claims and runs one due job; resolves whether there was one. Tests call it to run the queue by hand. */
  tick(): Promise<boolean> {
    const next = this.current.catch(() => false).then(() => this.runOne());
    this.current = next;
    return next;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.tick().then(
        // A queue with work is drained at once; an empty one is looked at again after pollMs.
        (ran) => this.schedule(ran ? 0 : this.options.pollMs),
        (error: unknown) => {
          this.options.onError?.(error);
          this.schedule(this.options.pollMs);
        },
      );
    }, delayMs);
  }

  private async runOne(): Promise<boolean> {
    const { queue, leaseMs } = this.options;
    const job = await queue.claim(this.id, this.kinds(), leaseMs);
    if (job === undefined) return false;
    const handler = this.handlers.get(job.kind) as JobHandler;
    const started = performance.now();
    const report = (event: Omit<WorkerEvent, 'job_id' | 'kind' | 'attempt'>) =>
      this.options.onEvent?.({ job_id: job.id, kind: job.kind, attempt: job.attempts, ...event });
    report({ event: 'started' });

    const lease = new AbortController();
    // Renewed well before it runs out, so one slow database round trip does not lose the job.
    const renew = setInterval(() => {
      queue.heartbeat(job.id, this.id, leaseMs).then(
        (held) => {
          if (!held && !lease.signal.aborted) {
            lease.abort();
            report({ event: 'lost' });
          }
        },
        (error: unknown) => this.options.onError?.(error),
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    try {
      const payload = parsePayload(job.payload);
      const result = await handler({ job, payload, workerId: this.id, signal: lease.signal });
      clearInterval(renew);
      if (await queue.complete(job.id, this.id, result ?? null)) report({ event: 'done', ms: Math.round(performance.now() - started) });
      else report({ event: 'lost', ms: Math.round(performance.now() - started) });
    } catch (error) {
      clearInterval(renew);
      const message = describeError(error);
      const failed = await queue.fail(job.id, this.id, message, { permanent: isPermanent(error) });
      const ms = Math.round(performance.now() - started);
      if (failed === undefined) report({ event: 'lost', ms, error: message });
      else if (failed.status === 'dead') report({ event: 'dead', ms, error: message });
      else report({ event: 'retry', ms, error: message, run_after: failed.run_after });
    }
    return true;
  }
}

function parsePayload(text: string): Record<string, unknown> {
  const parsed = JSON.parse(text) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new PermanentJobError('the job payload is not a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/** The error as `last_error` keeps it: the message, with the system error code when there is one. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
