// Records decisions after they are answered: traces and finding upserts are queued in memory and
// written in one transaction per batch, so a burst of calls costs the answer nothing. Findings are
// one problem, not one detection: the same fingerprint within a batch and across batches adds to
// `occurrences`, refreshes evidence and `last_seen_at`, raises severity (never lowers it; one level
// more at 10 occurrences, two at 100) and reopens a resolved finding, which also raises
// false_resolution (spec 01 §3; src/findings/recurrence.ts). A suppressed finding stays suppressed.
// What one agent sends never costs another its record: a batch the database refuses is written again
// one recording at a time; a recording refused on its own is kept whole in `dead_letters`, counted
// and raised as a recording_failure finding, while the database being away keeps every recording
// queued and retried. Nothing is dropped: once maxQueue (default 256) recordings are unwritten, an
// answering caller waits on room(), so a crash loses fewer than that many answered decisions.
import type { Worker } from 'node:worker_threads';
import type { Registry } from 'prom-client';
import { findingType, SEVERITY_RANK, type Severity } from '../findings/catalog.js';
import { fingerprint } from '../findings/fingerprint.js';
import { scrapedMetric } from '../../infra/lib/metrics.js';
import { raisedRank, SEVERITY_BY_RANK } from './recurrence.js';
import { newId } from '../../infra/lib/ids.js';
import { startSourceWorker } from '../../infra/lib/source-worker.js';
import { RetryLater, WriteQueue, type WriteQueueOptions } from '../../infra/lib/write-queue.js';
import type { Store } from '../../infra/store/db.js';
import { writeJson } from '../../infra/store/json-columns.js';
import type { TraceRow } from '../../infra/store/tables.js';
import { insertDeadLetter } from './store.js';
import type { FindingParams, WriterBatch, WriterReply } from './writer-protocol.js';

export interface FindingUpsert {
  fingerprint: string;
  type: string;
  severity: Severity;
  title: string;
  subject: string;
  agent: string | null;
  at: string;
  evidence: Record<string, unknown>;
  decisionId: string | null;
}

export interface Recording {
  /** Null for findings raised outside a decision (registry, grants, agent controls). */
  trace: TraceRow | null;
  findings: FindingUpsert[];
}

/** WriteQueue options (maxQueue: past it callers wait on room()), and the registry for the recorder's metrics. */
export interface RecorderOptions extends Omit<WriteQueueOptions, 'waitForRoom'> {
  registry?: Registry;
}

/**
 * Unwritten recordings (queued or being written) at which answering callers wait: bounds what a
 * kill -9 can lose and what memory holds. Under normal load far fewer are unwritten at a time
 * (bench/crash-window.ts); a slow or absent database slows the answers instead.
 */
const MAX_UNWRITTEN = 256;
/** A lone first decision is written after this long; under load batches follow each other back to back. */
const FLUSH_MS = 5;

export class Recorder {
  private readonly queue: WriteQueue<Recording>;
  /** The worker thread that writes batches (started on the first batch). */
  private writer: RecordingWriter | undefined;
  readonly stats: WriteQueue<Recording>['stats'] & { deadLettered: number };

  constructor(
    private readonly store: Store,
    private readonly options: RecorderOptions = {},
  ) {
    this.queue = new WriteQueue((batch) => this.write(batch), { flushMs: FLUSH_MS, maxQueue: MAX_UNWRITTEN, ...options, waitForRoom: true });
    this.stats = Object.assign(this.queue.stats, { deadLettered: 0 });
    options.registry?.registerMetric(
      scrapedMetric('parapet_recording_dead_letters_total', 'Recordings the database refused, kept in the dead_letters table', 'counter', () => [
        { labels: {}, value: this.stats.deadLettered },
      ]),
    );
    options.registry?.registerMetric(
      scrapedMetric('parapet_recording_queue_retries_total', 'Pauses because the database could not be reached while recording', 'counter', () => [
        { labels: {}, value: this.stats.retried },
      ]),
    );
  }

  /** Queues the recording; never drops it. A caller about to answer waits on room() first. */
  record(recording: Recording): void {
    this.queue.push(recording);
  }

  /**
   * Undefined while fewer than maxQueue recordings are unwritten (the usual case, free); else a
   * promise that resolves when a write brought them below it, for the caller to await before answering.
   */
  room(): Promise<void> | undefined {
    return this.queue.room();
  }

  /** Recordings not yet written (queued or being written). */
  get backlog(): number {
    return this.queue.length;
  }

  /** Findings raised outside a decision, written with the next batch. */
  raise(findings: FindingUpsert[]): void {
    if (findings.length > 0) this.record({ trace: null, findings });
  }

  /** Writes everything queued so far; resolves when it is on disk. */
  async flush(): Promise<void> {
    await this.queue.flush();
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.writer?.close();
    this.writer = undefined;
  }

  /**
   * Writes the batch in one transaction; when the database refuses it, each recording alone, so a
   * recording the database refuses for a reason of its own costs no other its record.
   */
  private async write(batch: Recording[]): Promise<void> {
    let firstRefusal: unknown;
    try {
      await this.writeTogether(batch);
      return;
    } catch (error) {
      if (isUnavailable(error)) throw new RetryLater(batch, error);
      firstRefusal = error;
    }
    for (const [index, recording] of batch.entries()) {
      let refusal: unknown = firstRefusal;
      // A batch of one was just refused as it is; a larger one is written again one recording at a time.
      if (batch.length > 1) {
        try {
          await this.writeTogether([recording]);
          continue;
        } catch (error) {
          refusal = error;
        }
      }
      // The database went away meanwhile: this recording and the rest are written again later.
      if (isUnavailable(refusal)) throw new RetryLater(batch.slice(index), refusal);
      try {
        await this.deadLetter(recording, refusal);
      } catch (error) {
        if (isUnavailable(error)) throw new RetryLater(batch.slice(index), error);
        // Neither the recording nor its dead letter could be stored: counted and reported; the rest goes on.
        this.stats.failed += 1;
        this.options.onError?.(error);
      }
    }
  }

  /** Keeps a refused recording whole, counts it and raises recording_failure (queued like any finding). */
  private async deadLetter(recording: Recording, error: unknown): Promise<void> {
    const id = newId('dlq');
    const at = new Date().toISOString();
    const message = error instanceof Error ? error.message : String(error);
    await insertDeadLetter(this.store.db, { id, at, kind: 'recording', error: message, payload: writeJson(recording) });
    this.stats.deadLettered += 1;
    this.options.onError?.(error);
    // A refused recording_failure finding is dead-lettered like any other but raises no further one.
    if (recording.findings.every((finding) => finding.type === RECORDING_FAILURE) && recording.trace === null) return;
    const subject = recording.trace?.subject ?? recording.findings[0]?.subject ?? 'gateway';
    const agent = recording.trace?.agent ?? null;
    this.queue.push({
      trace: null,
      findings: [
        {
          fingerprint: fingerprint(RECORDING_FAILURE, subject, []),
          type: RECORDING_FAILURE,
          severity: findingType(RECORDING_FAILURE).default_severity,
          title: `A decision record could not be stored (${subject})`,
          subject,
          agent: null,
          at,
          evidence: { dead_letter_id: id, error: message, decision_id: recording.trace?.id ?? null, agent },
          decisionId: recording.trace?.id ?? null,
        },
      ],
    });
  }

  private async writeTogether(batch: Recording[]): Promise<void> {
    const findings = mergeFindings(batch.flatMap((recording) => recording.findings)).map(findingParams);
    const traces: TraceRow[] = [];
    for (const recording of batch) if (recording.trace !== null) traces.push(recording.trace);
    this.writer ??= new RecordingWriter(this.store);
    await this.writer.write(traces, findings);
  }
}

const RECORDING_FAILURE = 'recording_failure';

/**
 * SQLSTATE classes that say the database, not the statement, is the trouble: transaction rollback
 * (deadlock, serialization: the same batch succeeds when written again), connection, resources,
 * operator intervention, system error.
 */
const UNAVAILABLE_SQLSTATE = /^(40|08|53|55|57|58)[0-9A-Z]{3}$/;
/** Node socket errors, SQLite's busy, I/O and disk conditions. */
const UNAVAILABLE_CODE = /^(E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|NETUNREACH|AI_AGAIN|NOTFOUND)|SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM|INTERRUPT))/;
/** What pg and pg-pool say, without a code, when the server went away. */
const UNAVAILABLE_MESSAGE = /connection terminated|not queryable|timeout exceeded when trying to connect|recording worker exited|connection error/i;

/**
 * True when an error says the database cannot take writes now, whatever the rows: such recordings
 * stay queued. Anything else is about the rows and is isolated; an error unknown here is treated as
 * the rows' (dead-lettered, so nothing waits forever on a recording that can never be written).
 */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_CODE.test(code))) return true;
  return UNAVAILABLE_MESSAGE.test(error.message);
}

/** The same fingerprint twice in one batch becomes one upsert with a count (one row per statement). */
function mergeFindings(findings: FindingUpsert[]): Array<{ finding: FindingUpsert; count: number }> {
  const merged = new Map<string, { finding: FindingUpsert; count: number }>();
  for (const finding of findings) {
    const existing = merged.get(finding.fingerprint);
    if (existing === undefined) {
      merged.set(finding.fingerprint, { finding, count: 1 });
      continue;
    }
    existing.count += 1;
    const stronger = SEVERITY_RANK[finding.severity] > SEVERITY_RANK[existing.finding.severity];
    existing.finding = { ...finding, severity: stronger ? finding.severity : existing.finding.severity };
  }
  return [...merged.values()];
}


function findingParams({ finding, count }: { finding: FindingUpsert; count: number }): FindingParams {
  const baseRank = SEVERITY_RANK[finding.severity];
  // A new row seen `count` times in its first batch is raised the same way as an existing one.
  const rank = raisedRank(baseRank, count);
  return {
    id: newId('fnd'),
    fingerprint: finding.fingerprint,
    type: finding.type,
    severity: SEVERITY_BY_RANK[rank] as Severity,
    severity_rank: rank,
    base_rank: baseRank,
    title: finding.title,
    subject: finding.subject,
    agent: finding.agent,
    at: finding.at,
    count,
    evidence: JSON.stringify(finding.evidence),
    decision_id: finding.decisionId,
  };
}

/**
 * The worker thread that owns the recorder's own database connection: a second SQLite connection
 * (sqlite-writer.ts) or a PostgreSQL one (postgres-writer.ts). Its round trips do not wait behind
 * the request handlers of a busy main thread, nor for a connection of the request pool.
 */
class RecordingWriter {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private nextId = 1;

  constructor(private readonly store: Store) {}

  write(traces: TraceRow[], findings: FindingParams[]): Promise<void> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    const batch: WriterBatch = { id, traces, findings };
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage(batch);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }

  private start(): Worker {
    const { sqliteFile, databaseUrl } = this.store;
    const workerData = sqliteFile !== undefined ? { file: sqliteFile } : { databaseUrl };
    const worker = startSourceWorker(import.meta.url, sqliteFile !== undefined ? 'sqlite-writer' : 'postgres-writer', workerData);
    // Recording must not keep a process alive; a clean shutdown flushes through close().
    worker.unref();
    worker.on('message', (reply: WriterReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (reply.ok) waiting?.resolve();
      else waiting?.reject(Object.assign(new Error(reply.error), reply.code === undefined ? {} : { code: reply.code }));
    });
    const failAll = (error: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`recording worker exited with code ${code}`)));
    return worker;
  }
}
