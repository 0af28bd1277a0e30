// Records decisions after they are answered: traces and finding upserts are queued in memory and
// written in one transaction per batch, so a burst of calls costs the answer nothing. Findings are
// one problem, not one detection: the same fingerprint within a batch and across batches adds to
// `occurrences`, refreshes evidence and `last_seen_at`, raises severity (never lowers it) and
// reopens a resolved finding.
import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { SEVERITY_RANK, type Severity } from '../findings/catalog.js';
import { newId } from '../lib/ids.js';
import type { Store } from '../store/db.js';
import type { TraceRow } from '../store/tables.js';

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
  trace: TraceRow;
  findings: FindingUpsert[];
}

export interface RecorderOptions {
  flushMs?: number;
  maxBatch?: number;
  /** Beyond this many queued recordings, new ones are dropped and counted (never the answer). */
  maxQueue?: number;
  onError?: (error: unknown) => void;
}

export class Recorder {
  private queue: Recording[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  readonly stats = { written: 0, dropped: 0, failed: 0 };
  private readonly flushMs: number;
  private readonly maxBatch: number;
  private readonly maxQueue: number;

  constructor(
    private readonly store: Store,
    private readonly options: RecorderOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 20;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxQueue = options.maxQueue ?? 100_000;
  }

  record(recording: Recording): void {
    if (this.queue.length >= this.maxQueue) {
      this.stats.dropped += 1;
      return;
    }
    this.queue.push(recording);
    if (this.queue.length >= this.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
  }

  /** Writes everything queued so far; resolves when it is on disk. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.flushing !== undefined) await this.flushing;
    if (this.queue.length === 0) return;
    this.flushing = this.drain().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  async close(): Promise<void> {
    await this.flush();
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        await this.write(batch);
        this.stats.written += batch.length;
      } catch (error) {
        this.stats.failed += batch.length;
        this.options.onError?.(error);
      }
    }
  }

  private async write(batch: Recording[]): Promise<void> {
    const findings = mergeFindings(batch.flatMap((recording) => recording.findings));
    if (this.store.dialect === 'sqlite') {
      await this.store.withSqlite((handle) => writeSqlite(handle, batch, findings));
      return;
    }
    await this.store.db.transaction().execute(async (trx) => {
      for (let index = 0; index < batch.length; index += 100) {
        await trx
          .insertInto('traces')
          .values(batch.slice(index, index + 100).map((recording) => recording.trace))
          .execute();
      }
      for (const { finding, count } of findings) {
        const rank = SEVERITY_RANK[finding.severity];
        await trx
          .insertInto('findings')
          .values({
            id: newId('fnd'),
            fingerprint: finding.fingerprint,
            type: finding.type,
            severity: finding.severity,
            severity_rank: rank,
            status: 'open',
            title: finding.title,
            subject: finding.subject,
            agent: finding.agent,
            at: finding.at,
            last_seen_at: finding.at,
            occurrences: count,
            evidence: JSON.stringify(finding.evidence),
            decision_id: finding.decisionId,
          })
          .onConflict((conflict) =>
            conflict.column('fingerprint').doUpdateSet({
              occurrences: sql`findings.occurrences + ${count}`,
              last_seen_at: sql`excluded.last_seen_at`,
              evidence: sql`excluded.evidence`,
              decision_id: sql`excluded.decision_id`,
              title: sql`excluded.title`,
              severity: sql`case when excluded.severity_rank > findings.severity_rank then excluded.severity else findings.severity end`,
              severity_rank: sql`case when excluded.severity_rank > findings.severity_rank then excluded.severity_rank else findings.severity_rank end`,
              status: sql`case when findings.status = 'resolved' then 'open' else findings.status end`,
            }),
          )
          .execute();
      }
    });
  }
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

const TRACE_COLUMNS = [
  'id', 'at', 'agent', 'subject', 'surface', 'tool', 'verdict', 'effective_verdict', 'mode', 'rules', 'entities', 'degraded',
  'detectors', 'latency_ms', 'content_sha256', 'content_length', 'content', 'session_id', 'trace_id', 'environment',
] as const satisfies ReadonlyArray<keyof TraceRow>;

/** Same effect as the Kysely upsert above, as one SQLite statement. */
const FINDING_UPSERT = `
  insert into findings (id, fingerprint, type, severity, severity_rank, status, title, subject, agent, at, last_seen_at,
                        occurrences, evidence, decision_id)
  values (@id, @fingerprint, @type, @severity, @severity_rank, 'open', @title, @subject, @agent, @at, @at,
          @count, @evidence, @decision_id)
  on conflict (fingerprint) do update set
    occurrences = findings.occurrences + @count,
    last_seen_at = excluded.last_seen_at,
    evidence = excluded.evidence,
    decision_id = excluded.decision_id,
    title = excluded.title,
    severity = case when excluded.severity_rank > findings.severity_rank then excluded.severity else findings.severity end,
    severity_rank = case when excluded.severity_rank > findings.severity_rank then excluded.severity_rank else findings.severity_rank end,
    status = case when findings.status = 'resolved' then 'open' else findings.status end`;

/** Prepared once per database handle: preparing costs more than running. */
const prepared = new WeakMap<SQLite.Database, { trace: SQLite.Statement; finding: SQLite.Statement; batch: (work: () => void) => void }>();

/**
 * SQLite path: cached prepared statements in one synchronous transaction. Kysely would compile and
 * prepare the statements anew for every batch, which costs more than the writes themselves.
 */
function writeSqlite(handle: SQLite.Database, batch: Recording[], findings: Array<{ finding: FindingUpsert; count: number }>): void {
  let statements = prepared.get(handle);
  if (statements === undefined) {
    statements = {
      trace: handle.prepare(`insert into traces (${TRACE_COLUMNS.join(', ')}) values (${TRACE_COLUMNS.map((c) => `@${c}`).join(', ')})`),
      finding: handle.prepare(FINDING_UPSERT),
      batch: handle.transaction((work: () => void) => work()),
    };
    prepared.set(handle, statements);
  }
  const { trace, finding: upsert, batch: inTransaction } = statements;
  inTransaction(() => {
    for (const recording of batch) trace.run(recording.trace);
    for (const { finding, count } of findings) {
      upsert.run({
        id: newId('fnd'),
        fingerprint: finding.fingerprint,
        type: finding.type,
        severity: finding.severity,
        severity_rank: SEVERITY_RANK[finding.severity],
        title: finding.title,
        subject: finding.subject,
        agent: finding.agent,
        at: finding.at,
        count,
        evidence: JSON.stringify(finding.evidence),
        decision_id: finding.decisionId,
      });
    }
  });
}
