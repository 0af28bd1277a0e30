// Records decisions after they are answered: traces and finding upserts are queued in memory and
// written in one transaction per batch, so a burst of calls costs the answer nothing. Findings are
// one problem, not one detection: the same fingerprint within a batch and across batches adds to
// `occurrences`, refreshes evidence and `last_seen_at`, raises severity (never lowers it; one level
// more at 10 occurrences, two at 100) and reopens a resolved finding, which also raises
// false_resolution (spec 01 §3; src/findings/recurrence.ts). A suppressed finding stays suppressed.
import { Worker } from 'node:worker_threads';
import { sql, type Transaction } from 'kysely';
import { SEVERITY_RANK, type Severity } from '../findings/catalog.js';
import { chunks, falseResolutionParams, raisedRank, raisedRankSql, SEVERITY_BY_RANK, severityOfRankSql } from '../findings/recurrence.js';
import { newId } from '../lib/ids.js';
import { WriteQueue, type WriteQueueOptions } from '../lib/write-queue.js';
import type { Store } from '../store/db.js';
import type { Database, TraceRow } from '../store/tables.js';
import { FINDING_UPSERT_SET, RESOLVED_CHUNK, type FindingParams, type WriterBatch, type WriterReply } from './writer-protocol.js';

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

/** flushMs, maxBatch, maxQueue (beyond it new recordings are dropped and counted), onError. */
export type RecorderOptions = WriteQueueOptions;

export class Recorder {
  private readonly queue: WriteQueue<Recording>;
  /** SQLite: the worker thread that writes batches (started on the first batch). */
  private writer: SqliteWriter | undefined;
  readonly stats: WriteQueue<Recording>['stats'];

  constructor(
    private readonly store: Store,
    options: RecorderOptions = {},
  ) {
    this.queue = new WriteQueue((batch) => this.write(batch), options);
    this.stats = this.queue.stats;
  }

  record(recording: Recording): void {
    this.queue.push(recording);
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

  private async write(batch: Recording[]): Promise<void> {
    const findings = mergeFindings(batch.flatMap((recording) => recording.findings)).map(findingParams);
    const traces: TraceRow[] = [];
    for (const recording of batch) if (recording.trace !== null) traces.push(recording.trace);
    const sqliteFile = this.store.sqliteFile;
    if (sqliteFile !== undefined) {
      this.writer ??= new SqliteWriter(sqliteFile);
      await this.writer.write(traces, findings);
      return;
    }
    await this.store.db.transaction().execute(async (trx) => {
      for (let index = 0; index < traces.length; index += 100) {
        await trx
          .insertInto('traces')
          .values(traces.slice(index, index + 100))
          .execute();
      }
      // Rows are locked in fingerprint order (the read below, then the upserts), so that two
      // processes writing overlapping batches wait for each other instead of deadlocking.
      findings.sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
      const byFingerprint = new Map(findings.map((finding) => [finding.fingerprint, finding]));
      const falseResolutions: FindingParams[] = [];
      for (const chunk of chunks([...byFingerprint.keys()], RESOLVED_CHUNK)) {
        // FOR UPDATE: a resolved finding read here cannot be reopened or changed by anyone else
        // before this batch's upsert reopens it and raises its one false_resolution.
        const resolved = await trx
          .selectFrom('findings')
          .select(['id', 'fingerprint', 'type', 'title', 'subject', 'agent', 'resolution_note', 'status_changed_at', 'status_changed_by'])
          .where('status', '=', 'resolved')
          .where('fingerprint', 'in', chunk)
          .orderBy('fingerprint')
          .forUpdate()
          .execute();
        for (const original of resolved) {
          falseResolutions.push(falseResolutionParams(original, byFingerprint.get(original.fingerprint) as FindingParams));
        }
      }
      for (const finding of [...findings, ...falseResolutions]) await upsertPostgres(trx, finding);
    });
  }
}

/** One finding upsert on PostgreSQL: the statement the SQLite worker prepares, with the same update branch. */
async function upsertPostgres(trx: Transaction<Database>, finding: FindingParams): Promise<void> {
  // Both are small integers this module computed; inlined so the rank expression stays one string.
  const rank = raisedRankSql('postgres', String(Math.trunc(finding.base_rank)), String(Math.trunc(finding.count)));
  await sql`
    insert into findings (id, fingerprint, type, severity, severity_rank, status, title, subject, agent, at, last_seen_at,
                          occurrences, evidence, decision_id)
    values (${finding.id}, ${finding.fingerprint}, ${finding.type}, ${finding.severity}, ${finding.severity_rank}, 'open',
            ${finding.title}, ${finding.subject}, ${finding.agent}, ${finding.at}, ${finding.at}, ${finding.count},
            ${finding.evidence}, ${finding.decision_id})
    on conflict (fingerprint) do update set
      occurrences = findings.occurrences + ${finding.count},
      severity = ${sql.raw(severityOfRankSql(rank))},
      severity_rank = ${sql.raw(rank)},
      ${sql.raw(FINDING_UPSERT_SET)}`.execute(trx);
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
 * The worker thread that owns a second SQLite connection for recording (sqlite-writer.ts). Run from
 * TypeScript sources (tests), the worker loads its source through tsx.
 */
class SqliteWriter {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private nextId = 1;

  constructor(private readonly file: string) {}

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
    const workerData = { file: this.file };
    const fromSource = import.meta.url.endsWith('.ts');
    const worker = fromSource
      ? // Node 20 does not apply `--import tsx` to a worker's entry module; register it first, then load.
        new Worker(
          `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(new URL('./sqlite-writer.ts', import.meta.url).href)}); })`,
          { eval: true, workerData },
        )
      : new Worker(new URL('./sqlite-writer.js', import.meta.url), { workerData });
    // Recording must not keep a process alive; a clean shutdown flushes through close().
    worker.unref();
    worker.on('message', (reply: WriterReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (reply.ok) waiting?.resolve();
      else waiting?.reject(new Error(reply.error));
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
