// The operator side of the job queue: list and read jobs, and retry a dead one (audited).
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { JobRow } from '../../infra/store/tables.js';
import type { JobQueue } from '../../infra/jobs/queue.js';
import type { Job, ListJobsQuery } from './schemas.js';

export function jobToWire(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    run_after: row.run_after,
    locked_by: row.locked_by,
    locked_until: row.locked_until,
    last_error: row.last_error,
    result: row.result === null ? null : asObject(JSON.parse(row.result)),
    payload: asObject(JSON.parse(row.payload)),
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    finished_at: row.finished_at,
  };
}

/** Payloads and results are objects on the wire; anything else a handler stored is wrapped. */
function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}

export class JobService {
  constructor(
    private readonly queue: JobQueue,
    private readonly audit: AuditLog,
  ) {}

  async list(query: ListJobsQuery): Promise<{ items: Job[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const rows = await this.queue.list({ kind: query.kind, status: query.status, before: decodeCursor(query.cursor), limit });
    const page = pageOf(rows, limit);
    return { items: page.items.map(jobToWire), next_cursor: page.next_cursor };
  }

  async get(id: string): Promise<Job> {
    const row = await this.queue.get(id);
    if (row === undefined) throw notFound('job', id);
    return jobToWire(row);
  }

  /** Dead → queued with attempts reset (spec 01 §3 "Job"); any other status is a 409. */
  async retry(caller: Principal, id: string): Promise<Job> {
    const row = await this.audit.transact(async (trx, append) => {
      const retried = await this.queue.retry(id, trx);
      if (retried === undefined) {
        const current = await this.queue.get(id, trx);
        if (current === undefined) throw notFound('job', id);
        throw problem('conflict', `job ${id} is ${current.status}; only a dead job can be retried`);
      }
      await append({ actor: actorOf(caller), action: 'job.retry', target: id, detail: { kind: retried.kind, last_error: retried.last_error } });
      return retried;
    });
    return jobToWire(row);
  }
}
