// The SQLite side of the recorder, run in a worker thread: its own connection to the database file,
// statements prepared once, one transaction per batch. A batch of 500 decisions with their content
// takes milliseconds of synchronous SQLite work (and a checkpoint now and then); in the main thread
// that would hold up every request waiting behind it.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { storableValue } from '../../infra/lib/storable-text.js';
import { falseResolutionParams, raisedRankSql, severityOfRankSql, type ResolvedFinding } from './recurrence.js';
import { FINDING_UPSERT_SET, RESOLVED_CHUNK, TRACE_COLUMNS, type FindingParams, type WriterBatch, type WriterReply } from './writer-protocol.js';

const RANK = raisedRankSql('sqlite', '@base_rank', '@count');
const FINDING_UPSERT = `
  insert into findings (id, fingerprint, type, severity, severity_rank, status, title, subject, agent, at, last_seen_at,
                        occurrences, evidence, decision_id)
  values (@id, @fingerprint, @type, @severity, @severity_rank, 'open', @title, @subject, @agent, @at, @at,
          @count, @evidence, @decision_id)
  on conflict (fingerprint) do update set
    occurrences = findings.occurrences + @count,
    severity = ${severityOfRankSql(RANK)},
    severity_rank = ${RANK},
    ${FINDING_UPSERT_SET}`;

// One statement for any number of fingerprints: the list travels as a JSON array; the lookup uses
// the unique index on fingerprint.
const SELECT_RESOLVED = `
  select id, fingerprint, type, title, subject, agent, resolution_note, status_changed_at, status_changed_by
  from findings
  where status = 'resolved' and fingerprint in (select value from json_each(?))`;

const { file } = workerData as { file: string };
const db = new SQLite(file);
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');

const insertTrace = db.prepare(`insert into traces (${TRACE_COLUMNS.join(', ')}) values (${TRACE_COLUMNS.map((c) => `@${c}`).join(', ')})`);
const upsertFinding = db.prepare(FINDING_UPSERT);
const selectResolved = db.prepare<[string], ResolvedFinding>(SELECT_RESOLVED);
const writeBatch = db.transaction((batch: WriterBatch) => {
  // This connection is not Kysely's: its parameters are made storable here, as db.ts does for every other query.
  for (const trace of batch.traces) insertTrace.run(storableValue(trace));
  // Read which fingerprints are resolved before the upserts reopen them: each raises false_resolution.
  const byFingerprint = new Map(batch.findings.map((finding) => [finding.fingerprint, finding]));
  const falseResolutions: FindingParams[] = [];
  const fingerprints = [...byFingerprint.keys()];
  for (let index = 0; index < fingerprints.length; index += RESOLVED_CHUNK) {
    for (const original of selectResolved.all(JSON.stringify(fingerprints.slice(index, index + RESOLVED_CHUNK)))) {
      falseResolutions.push(falseResolutionParams(original, byFingerprint.get(original.fingerprint) as FindingParams));
    }
  }
  for (const finding of batch.findings) upsertFinding.run(storableValue(finding));
  for (const finding of falseResolutions) upsertFinding.run(storableValue(finding));
});

parentPort?.on('message', (batch: WriterBatch) => {
  let reply: WriterReply;
  try {
    // IMMEDIATE: the write lock is taken before the read of resolved findings, so no other
    // connection can resolve or reopen one between that read and the upserts.
    writeBatch.immediate(batch);
    reply = { id: batch.id, ok: true };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    reply = { id: batch.id, ok: false, error: (error as Error).message, ...(typeof code === 'string' ? { code } : {}) };
  }
  parentPort?.postMessage(reply);
});
