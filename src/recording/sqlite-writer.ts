// The SQLite side of the recorder, run in a worker thread: its own connection to the database file,
// statements prepared once, one transaction per batch. A batch of 500 decisions with their content
// takes milliseconds of synchronous SQLite work (and a checkpoint now and then); in the main thread
// that would hold up every request waiting behind it.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { TRACE_COLUMNS, type WriterBatch, type WriterReply } from './writer-protocol.js';

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

const { file } = workerData as { file: string };
const db = new SQLite(file);
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');

const insertTrace = db.prepare(`insert into traces (${TRACE_COLUMNS.join(', ')}) values (${TRACE_COLUMNS.map((c) => `@${c}`).join(', ')})`);
const upsertFinding = db.prepare(FINDING_UPSERT);
const writeBatch = db.transaction((batch: WriterBatch) => {
  for (const trace of batch.traces) insertTrace.run(trace);
  for (const finding of batch.findings) upsertFinding.run(finding);
});

parentPort?.on('message', (batch: WriterBatch) => {
  let reply: WriterReply;
  try {
    writeBatch(batch);
    reply = { id: batch.id, ok: true };
  } catch (error) {
    reply = { id: batch.id, ok: false, error: (error as Error).message };
  }
  parentPort?.postMessage(reply);
});
