// The PostgreSQL side of the recorder, run in a worker thread with its own connection: one
// transaction per batch, as in sqlite-writer.ts. A batch takes several round trips (the traces, the
// read of resolved findings, one upsert per finding); from the main thread of a busy gateway each
// of them waited behind the request handlers and for a connection of the request pool, so an
// answered decision could stay in memory for seconds.
import { parentPort, workerData } from 'node:worker_threads';
import { sql, type Transaction } from 'kysely';
import { chunks, falseResolutionParams, raisedRankSql, severityOfRankSql } from './recurrence.js';
import { Store } from '../../infra/store/db.js';
import type { Database } from '../../infra/store/tables.js';
import { FINDING_UPSERT_SET, RESOLVED_CHUNK, type FindingParams, type WriterBatch, type WriterReply } from './writer-protocol.js';

/** Rows per insert: 22 parameters each stays far below PostgreSQL's 65,535 per statement. */
const TRACES_PER_INSERT = 1000;

const { databaseUrl } = workerData as { databaseUrl: string };
// Store.open: the same storable-text parameters as every other query.
const store = Store.open({ databaseUrl, dataDir: '', poolSize: 1 });

async function writeBatch({ traces, findings }: WriterBatch): Promise<void> {
  await store.db.transaction().execute(async (trx) => {
    for (const slice of chunks(traces, TRACES_PER_INSERT)) await trx.insertInto('traces').values(slice).execute();
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
    for (const finding of [...findings, ...falseResolutions]) await upsertFinding(trx, finding);
  });
}

/** One finding upsert: the statement the SQLite worker prepares, with the same update branch. */
async function upsertFinding(trx: Transaction<Database>, finding: FindingParams): Promise<void> {
  // Both are small integers the recorder computed; inlined so the rank expression stays one string.
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

// The recorder sends one batch at a time; they are still written in the order they arrive.
let previous: Promise<void> = Promise.resolve();
parentPort?.on('message', (batch: WriterBatch) => {
  previous = previous.then(async () => {
    let reply: WriterReply;
    try {
      await writeBatch(batch);
      reply = { id: batch.id, ok: true };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      reply = { id: batch.id, ok: false, error: (error as Error).message, ...(typeof code === 'string' ? { code } : {}) };
    }
    parentPort?.postMessage(reply);
  });
});
