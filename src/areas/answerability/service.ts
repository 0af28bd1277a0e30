// Answerability (spec 02 "Answerability, sources, entitlement"): per-agent boundaries (audited), the
// deterministic check of a question against them (each check stored with the question as a hash
// only), the report, and the input detector kept in step with the stored boundaries.
import { createHash } from 'node:crypto';
import type { Recorder } from '../../engine/recording/recorder.js';
import { actorOf, speakingAgent, type Principal } from '../../infra/auth/principal.js';
import { problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { Store } from '../../infra/store/db.js';
import type { ChangePublisher } from '../../infra/store/notify.js';
import { readJson, readJsonStrings, writeJson } from '../../infra/store/json-columns.js';
import type { AnswerabilityBoundaryRow } from '../../infra/store/tables.js';
import type { AuditLog } from '../audit/log.js';
import { REASON_CODES, checkQuestion, isCalendarDate, type Boundary, type Outcome, type Reason, type SourceFreshness } from './check.js';
import type { AnswerabilityDetector } from './detector.js';
import type { BoundariesQuery, BoundaryBody, CheckBody, Report, ReportQuery } from './schemas.js';
import * as answerability from './store.js';

const DAY_MS = 86_400_000;
const ANSWERED_ANYWAY_LIMIT = 100;

export interface AnswerabilityServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  recorder: Recorder;
  /** The input detector this service feeds with the boundaries. */
  detector: AnswerabilityDetector;
  /** Tells the other gateway processes sharing the database that a boundary changed. */
  changes?: ChangePublisher;
}

export interface CheckAnswer {
  agent: string;
  outcome: Outcome;
  reasons: Reason[];
  boundary: Boundary | null;
}

export class AnswerabilityService {
  /** Bumped by every change made here, so that a sync begun before it does not undo it. */
  private changes = 0;

  constructor(readonly deps: AnswerabilityServiceDeps) {
    deps.detector.useClock(() => deps.clock.now());
  }

  /** Reads the boundaries other processes stored (the composition root calls it every second). */
  async sync(): Promise<void> {
    const { db } = this.deps.store;
    const seen = this.changes;
    const rows = await answerability.listBoundaries(db);
    const boundaries = rows.map(boundaryFromRow);
    const sources = await this.freshness(boundaries.flatMap((boundary) => boundary.systems_of_record));
    if (seen !== this.changes) return;
    this.deps.detector.replaceAll(boundaries.map((boundary) => ({ boundary, sources })));
  }

  async boundaries(query: BoundariesQuery): Promise<{ items: Boundary[] }> {
    const rows = await answerability.listBoundaries(this.deps.store.db, query.agent);
    return { items: rows.map(boundaryFromRow) };
  }

  async putBoundary(caller: Principal, body: BoundaryBody): Promise<{ created: boolean; boundary: Boundary }> {
    const { audit, clock, detector } = this.deps;
    if (body.coverage_start !== undefined && !isCalendarDate(body.coverage_start)) {
      throw problem('invalid-request', `coverage_start ${body.coverage_start} is not a calendar date`, [{ field: '/body/coverage_start', message: 'must be a date that exists, YYYY-MM-DD' }]);
    }
    const actor = actorOf(caller);
    const boundary: Boundary = {
      agent: body.agent,
      systems_of_record: unique(body.systems_of_record ?? []),
      coverage_months: body.coverage_months ?? null,
      coverage_start: body.coverage_start ?? null,
      entity_types: unique(body.entity_types ?? []),
      answerable_types: unique(body.answerable_types ?? []),
      out_of_scope_topics: unique(body.out_of_scope_topics ?? []),
      freshness_hours: body.freshness_hours ?? null,
      mode: body.mode ?? 'observe',
      updated_by: actor,
      updated_at: clock.now().toISOString(),
    };
    const row: AnswerabilityBoundaryRow = {
      ...boundary,
      systems_of_record: writeJson(boundary.systems_of_record),
      entity_types: writeJson(boundary.entity_types),
      answerable_types: writeJson(boundary.answerable_types),
      out_of_scope_topics: writeJson(boundary.out_of_scope_topics),
    };
    const created = await audit.transact(async (trx, append) => {
      const isNew = await answerability.putBoundary(trx, row);
      const { updated_by: _by, updated_at: _at, ...detail } = boundary;
      await append({ actor, action: isNew ? 'answerability.boundary_created' : 'answerability.boundary_updated', target: boundary.agent, detail });
      return isNew;
    });
    this.changes++;
    detector.set(boundary, await this.freshness(boundary.systems_of_record));
    this.deps.changes?.publish('answerability');
    return { created, boundary };
  }

  async check(caller: Principal, body: CheckBody): Promise<CheckAnswer> {
    const { store, clock } = this.deps;
    // An agent credential (or a traffic token) checks only for the agent it speaks for; an operator names any.
    const agent = caller.kind === 'operator' ? body.agent : speakingAgent(caller, { body: body.agent });
    const row = await answerability.findBoundary(store.db, agent);
    const boundary = row === undefined ? null : boundaryFromRow(row);
    const sources = boundary === null ? new Map<string, SourceFreshness>() : await this.freshness(boundary.systems_of_record);
    const knownEntityTypes = (body.known_entities ?? []).map((entity) => (typeof entity === 'string' ? entity : entity.type));
    const now = clock.now();
    const result = checkQuestion({ question: body.question, knownEntityTypes, boundary, sources, now });
    await answerability.insertCheck(store.db, {
      id: newId('ack'),
      agent,
      at: now.toISOString(),
      question_sha256: createHash('sha256').update(body.question, 'utf8').digest('hex'),
      outcome: result.outcome,
      reasons: writeJson(result.reasons),
      trace_id: body.trace_id ?? null,
    });
    return { agent, outcome: result.outcome, reasons: result.reasons, boundary };
  }

  async report(query: ReportQuery): Promise<Report> {
    const { db } = this.deps.store;
    const days = query.days ?? 30;
    const since = new Date(this.deps.clock.now().getTime() - days * DAY_MS).toISOString();
    const [outcomes, reasonCounts, anyway] = await Promise.all([
      answerability.outcomeCounts(db, since),
      Promise.all(REASON_CODES.map((code) => answerability.reasonCount(db, since, code))),
      answerability.answeredAnyway(db, since, ANSWERED_ANYWAY_LIMIT),
    ]);
    const byOutcome = { answerable: outcomes.get('answerable') ?? 0, not_answerable: outcomes.get('not_answerable') ?? 0, partial: outcomes.get('partial') ?? 0 };
    const checks = byOutcome.answerable + byOutcome.not_answerable + byOutcome.partial;
    const byReason = Object.fromEntries(REASON_CODES.map((code, index) => [code, reasonCounts[index] ?? 0])) as Report['by_reason'];
    return {
      days,
      checks,
      by_outcome: byOutcome,
      unanswerable_rate: checks === 0 ? 0 : Math.round((byOutcome.not_answerable / checks) * 10_000) / 10_000,
      by_reason: byReason,
      answered_anyway: anyway.map((check) => ({ trace_id: check.trace_id ?? '', agent: check.agent, at: check.at, reasons: readReasons(check.reasons) })),
    };
  }

  /** The registry's freshness of these systems of record; keys it does not hold are left out. */
  private async freshness(keys: readonly string[]): Promise<Map<string, SourceFreshness>> {
    const rows = await answerability.sourceFreshness(this.deps.store.db, unique(keys));
    return new Map(
      rows.map((row) => [row.key, { updated_at_source: row.updated_at_source, freshness_sla_hours: row.freshness_sla_hours === null ? null : Number(row.freshness_sla_hours), deprecated: Number(row.deprecated) === 1 }]),
    );
  }
}

function boundaryFromRow(row: AnswerabilityBoundaryRow): Boundary {
  return {
    agent: row.agent,
    systems_of_record: readJsonStrings(row.systems_of_record),
    coverage_months: row.coverage_months === null ? null : Number(row.coverage_months),
    coverage_start: row.coverage_start,
    entity_types: readJsonStrings(row.entity_types),
    answerable_types: readJsonStrings(row.answerable_types),
    out_of_scope_topics: readJsonStrings(row.out_of_scope_topics),
    freshness_hours: row.freshness_hours === null ? null : Number(row.freshness_hours),
    mode: row.mode === 'enforce' ? 'enforce' : 'observe',
    updated_by: row.updated_by,
    updated_at: row.updated_at,
  };
}

function readReasons(text: string): Reason[] {
  const value = readJson<unknown>(text, []);
  if (!Array.isArray(value)) return [];
  return value.filter(
    (item): item is Reason => item !== null && typeof item === 'object' && (REASON_CODES as readonly string[]).includes((item as Reason).code) && typeof (item as Reason).detail === 'string',
  );
}

const unique = (items: readonly string[]) => [...new Set(items)];
