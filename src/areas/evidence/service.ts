// Evidence packages (spec 02 "POST /api/evidence", spec 01 §7 rule 4): built in the request; a
// transient failure (the storage was busy or full for a moment) answers 202 and an
// `evidence.build` job retries later with backoff; a permanent one records a dead job that an
// operator can retry, and answers 503 naming it. Never a bare 500.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { JobQueue } from '../../infra/jobs/queue.js';
import { describeError, PermanentJobError, type JobHandler } from '../../infra/jobs/worker.js';
import type { Store } from '../../infra/store/db.js';
import { writeJson } from '../../infra/store/json-columns.js';
import type { EvidencePackageRow } from '../../infra/store/tables.js';
import { buildPackage, type CheckpointMaker, type ComplianceRecords, type Manifest, type PolicySnapshot } from './package.js';
import type { CreateEvidenceBody, EvidenceCounts, EvidencePackage, EvidenceScope, EvidenceStatus, ListEvidenceQuery, QueuedEvidence } from './schemas.js';
import type { EvidenceStorage } from './storage.js';
import { findEvidencePackage, insertEvidencePackage, listEvidencePackages, updateEvidencePackage, updateEvidencePackageReturning } from './store.js';

export const EVIDENCE_JOB = 'evidence.build';
/** The retry job runs at most twice: spec 01 §7 asks for one retry later, and one more covers a second blip. */
export const EVIDENCE_JOB_ATTEMPTS = 2;
export const DEFAULT_PERIOD_DAYS = 30;
export const MAX_PERIOD_DAYS = 366;
const DAY_MS = 86_400_000;

/**
 * System error codes that describe a passing condition (a busy or full device, too many open
 * files, a timeout): another attempt later may succeed. Anything else is permanent.
 */
export const TRANSIENT_CODES: ReadonlySet<string> = new Set(['EAGAIN', 'EBUSY', 'EMFILE', 'ENFILE', 'ETIMEDOUT', 'EIO', 'ENOSPC']);

export function isTransient(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && TRANSIENT_CODES.has(code);
}

function codeOf(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'error';
}

export interface EvidenceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  queue: JobQueue;
  storage: EvidenceStorage;
  policies: PolicySnapshot;
  checkpoints: CheckpointMaker;
  /** Control results, framework status and risk register for the package (point 10 of issue 16). */
  compliance?: ComplianceRecords;
}

export type CreateOutcome = { status: 'ready'; package: EvidencePackage } | { status: 'queued_for_retry'; queued: QueuedEvidence };

export class EvidenceService {
  constructor(private readonly deps: EvidenceDeps) {}

  /** The period and filters of a request, checked before any work: 400 when the period is backwards or too long. */
  scopeOf(body: CreateEvidenceBody): EvidenceScope {
    const now = this.deps.clock.now();
    const to = body.period_to === undefined ? now : parseBound(body.period_to, 'end');
    const from = body.period_from === undefined ? new Date(to.getTime() - DEFAULT_PERIOD_DAYS * DAY_MS) : parseBound(body.period_from, 'start');
    if (from.getTime() > to.getTime()) {
      throw problem('invalid-request', `period_from ${from.toISOString()} is after period_to ${to.toISOString()}`, [
        { field: '/body/period_from', message: 'must not be after period_to' },
      ]);
    }
    if (to.getTime() - from.getTime() > MAX_PERIOD_DAYS * DAY_MS) {
      throw problem('invalid-request', `the period spans more than ${MAX_PERIOD_DAYS} days; make one package per year`, [
        { field: '/body/period_from', message: `must be at most ${MAX_PERIOD_DAYS} days before period_to` },
      ]);
    }
    return { agents: body.agents ?? [], controls: body.controls ?? [], period_from: from.toISOString(), period_to: to.toISOString() };
  }

  async create(caller: Principal, body: CreateEvidenceBody): Promise<CreateOutcome> {
    const scope = this.scopeOf(body);
    const { audit, clock, queue } = this.deps;
    const actor = actorOf(caller);
    const id = newId('evp');
    // The request is recorded first, so that the package's own audit checkpoint covers it.
    await audit.transact(async (trx, append) => {
      await insertEvidencePackage(trx, {
        id,
        status: 'building' satisfies EvidenceStatus,
        scope: writeJson(scope),
        manifest: null,
        manifest_sha256: null,
        file_name: null,
        size_bytes: null,
        checkpoint_id: null,
        job_id: null,
        error: null,
        created_by: actor,
        created_at: clock.now().toISOString(),
        completed_at: null,
      });
      await append({ actor, action: 'evidence.create', target: id, detail: { ...scope } });
    });

    try {
      return { status: 'ready', package: await this.buildAndStore(id, scope, actor) };
    } catch (error) {
      const message = describeError(error);
      if (isTransient(error)) {
        try {
          const job = await queue.enqueue(
            EVIDENCE_JOB,
            { package_id: id },
            // "Retries once later with backoff" (spec 01 §7): the first run waits one backoff step.
            { maxAttempts: EVIDENCE_JOB_ATTEMPTS, runAfter: new Date(clock.now().getTime() + queue.backoffMs(1)), createdBy: actor },
          );
          await this.mark(id, { status: 'queued_for_retry', job_id: job.id, error: message });
          return { status: 'queued_for_retry', queued: { id, status: 'queued_for_retry', job_id: job.id } };
        } catch (queueError) {
          await this.mark(id, { status: 'failed', error: `${message}; queuing the retry failed: ${describeError(queueError)}` }).catch(() => undefined);
          throw problem('unavailable', `evidence package ${id} could not be built (${codeOf(error)}) and its retry could not be queued (${codeOf(queueError)})`);
        }
      }
      let jobId: string | null = null;
      try {
        jobId = (await queue.recordDead(EVIDENCE_JOB, { package_id: id }, message, { maxAttempts: EVIDENCE_JOB_ATTEMPTS, createdBy: actor })).id;
        await this.mark(id, { status: 'failed', job_id: jobId, error: message });
      } catch {
        // The database itself failed: the answer below still says what happened.
      }
      throw problem(
        'unavailable',
        jobId === null
          ? `building evidence package ${id} failed permanently (${codeOf(error)}) and the failure could not be recorded`
          : `building evidence package ${id} failed permanently (${codeOf(error)}); job ${jobId} is dead: see GET /api/jobs/${jobId}, and POST /api/jobs/${jobId}/retry builds it again`,
      );
    }
  }

  /** The `evidence.build` job: builds and stores a package whose build in the request failed. */
  /** The job kinds this area runs, for the composition root to register with every worker. */
  jobHandlers(): Record<string, JobHandler> {
    return { [EVIDENCE_JOB]: this.handleJob };
  }

  readonly handleJob: JobHandler = async ({ job, payload }) => {
    const id = typeof payload.package_id === 'string' ? payload.package_id : '';
    const row = await this.row(id);
    if (row === undefined) throw new PermanentJobError(`no evidence package with id ${id}`);
    if (row.status === 'ready') return { package_id: id, status: 'ready' };
    try {
      const built = await this.buildAndStore(id, JSON.parse(row.scope) as EvidenceScope, row.created_by, job.id);
      return { package_id: id, status: 'ready', manifest_sha256: built.manifest_sha256, size_bytes: built.size_bytes };
    } catch (error) {
      const permanent = !isTransient(error);
      const message = describeError(error);
      // The package follows its job: failed when the job is about to be dead, still queued otherwise.
      const last = permanent || job.attempts >= job.max_attempts;
      await this.mark(id, { status: last ? 'failed' : 'queued_for_retry', job_id: job.id, error: message });
      throw permanent ? new PermanentJobError(message, { cause: error }) : error;
    }
  };

  async list(query: ListEvidenceQuery): Promise<{ items: EvidencePackage[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const before = decodeCursor(query.cursor);
    const page = pageOf(await listEvidencePackages(this.deps.store.db, { status: query.status, before, limit: limit + 1 }), limit);
    return { items: page.items.map(toWire), next_cursor: page.next_cursor };
  }

  async get(id: string): Promise<EvidencePackage> {
    const row = await this.row(id);
    if (row === undefined) throw notFound('evidence package', id);
    return toWire(row);
  }

  /** The zip of a ready package: 404 unknown, 409 not ready. */
  async download(id: string): Promise<{ fileName: string; bytes: Uint8Array }> {
    const row = await this.row(id);
    if (row === undefined) throw notFound('evidence package', id);
    if (row.status !== 'ready' || row.file_name === null) {
      throw problem('conflict', `evidence package ${id} is ${row.status}, not ready${row.job_id === null ? '' : ` (job ${row.job_id})`}`);
    }
    try {
      return { fileName: row.file_name, bytes: await this.deps.storage.get(row.file_name) };
    } catch (error) {
      throw problem('unavailable', `the file of evidence package ${id} cannot be read from this gateway's evidence storage (${codeOf(error)})`);
    }
  }

  private async buildAndStore(id: string, scope: EvidenceScope, actor: string, jobId?: string): Promise<EvidencePackage> {
    const { store, storage, clock } = this.deps;
    const built = await buildPackage(this.deps, { id, scope, actor, generatedAt: clock.now() });
    const fileName = `${id}.zip`;
    await storage.put(fileName, built.zip);
    const change = {
      status: 'ready' satisfies EvidenceStatus,
      manifest: writeJson(built.manifest),
      manifest_sha256: built.manifestSha256,
      file_name: fileName,
      size_bytes: built.zip.length,
      checkpoint_id: built.checkpointId,
      error: null,
      completed_at: clock.now().toISOString(),
      ...(jobId === undefined ? {} : { job_id: jobId }),
    };
    const row = await updateEvidencePackageReturning(store.db, id, change);
    if (row === undefined) throw new PermanentJobError(`evidence package ${id} disappeared while it was built`);
    return toWire(row);
  }

  private async mark(id: string, change: { status: EvidenceStatus; job_id?: string; error: string }): Promise<void> {
    await updateEvidencePackage(this.deps.store.db, id, change);
  }

  private row(id: string): Promise<EvidencePackageRow | undefined> {
    return findEvidencePackage(this.deps.store.db, id);
  }
}

/** A date alone means the whole day: a start at its first millisecond, an end at its last. */
function parseBound(value: string, side: 'start' | 'end'): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return new Date(`${value}T${side === 'start' ? '00:00:00.000' : '23:59:59.999'}Z`);
  return new Date(value);
}

export function toWire(row: EvidencePackageRow): EvidencePackage {
  const manifest = row.manifest === null ? null : (JSON.parse(row.manifest) as Manifest);
  const counts: EvidenceCounts | null = manifest?.counts ?? null;
  return {
    id: row.id,
    status: row.status as EvidenceStatus,
    scope: JSON.parse(row.scope) as EvidenceScope,
    counts,
    manifest_sha256: row.manifest_sha256,
    checkpoint_id: row.checkpoint_id,
    size_bytes: row.size_bytes,
    job_id: row.job_id,
    error: row.error,
    created_by: row.created_by,
    created_at: row.created_at,
    completed_at: row.completed_at,
  };
}
