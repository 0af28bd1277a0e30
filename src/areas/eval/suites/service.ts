// Eval suites and their cases (spec 02 "Evaluations"): a suite is a named, versioned list of cases
// a run answers; cases come from the API, suite files (the CLI), recorded decisions (from-trace)
// and annotations. Every change is audited in the transaction that makes it, and each added or
// replaced case moves the suite's version on, so a run can say which cases it ran.
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import { actorOf, type Principal } from '../../../infra/auth/principal.js';
import { notFound, problem } from '../../../infra/http/problems.js';
import { newId } from '../../../infra/lib/ids.js';
import { storableText, storableValue } from '../../../infra/lib/storable-text.js';
import { readJsonObject, readJsonStrings, writeJson } from '../../../infra/store/json-columns.js';
import type { Database, EvalCaseRow, EvalSuiteRow, TraceRow } from '../../../infra/store/tables.js';
import type { AppendAudit } from '../../audit/log.js';
import type { EvalContext } from '../context.js';
import type { AddCaseBody, CaseSource, CreateSuiteBody, EvalCase, Suite, SuiteDetail, SuiteList } from './schemas.js';
import { checkCase, MAX_CASES, MAX_INPUT_BYTES } from './case-checks.js';
import * as suites from './store.js';

export { checkCase, MAX_CASES } from './case-checks.js';

export interface CaseOrigin {
  source: CaseSource;
  /** The decision or result the case was made from. */
  sourceRef: string | null;
}

export interface AddedCase {
  /** False when a case with the same key was replaced. */
  created: boolean;
  case: EvalCase;
}

export class SuiteService {
  constructor(readonly ctx: EvalContext) {}

  async list(): Promise<SuiteList> {
    const rows = await suites.listSuites(this.ctx.store.db);
    const lastRuns = await this.lastRuns(rows.map((row) => row.key));
    return { items: rows.map((row) => suiteToWire(row, row.cases, lastRuns.get(row.key) ?? null)) };
  }

  async create(principal: Principal, body: CreateSuiteBody): Promise<Suite> {
    const at = this.ctx.clock.now().toISOString();
    const actor = actorOf(principal);
    const row: EvalSuiteRow = {
      key: body.key,
      // Made storable here, so that the answer shows what a later read will.
      name: storableText(body.name ?? body.key),
      description: body.description === undefined ? null : storableText(body.description),
      tags: writeJson(unique(storableValue(body.tags ?? []))),
      version: 0,
      created_by: actor,
      created_at: at,
      updated_at: at,
    };
    await this.ctx.audit.transact(async (trx, append) => {
      if ((await suites.findSuite(trx, body.key)) !== undefined) throw problem('conflict', `a suite with key ${body.key} exists`);
      await suites.insertSuite(trx, row);
      await append({ actor, action: 'eval.suite_created', target: row.key, detail: { suite: row.key, name: row.name, tags: readJsonStrings(row.tags) } });
    });
    return suiteToWire(row, 0, null);
  }

  async get(key: string): Promise<SuiteDetail> {
    const { db } = this.ctx.store;
    const suite = await suites.findSuite(db, key);
    if (suite === undefined) throw notFound('suite', key);
    const [cases, lastRuns] = await Promise.all([suites.listCases(db, key, MAX_CASES), this.lastRuns([key])]);
    return { ...suiteToWire(suite, cases.length, lastRuns.get(key) ?? null), cases: cases.map(caseToWire) };
  }

  /** Adds a case, or replaces the suite's case with the same key; audited. */
  async addCase(principal: Principal, suiteKey: string, body: AddCaseBody, origin: CaseOrigin = { source: body.source ?? 'api', sourceRef: null }): Promise<AddedCase> {
    checkCase(body);
    return this.ctx.audit.transact((trx, append) => this.addCaseIn(trx, append, actorOf(principal), suiteKey, body, origin));
  }

  /**
   * addCase inside a transaction the caller already holds (an annotation that exports its case
   * commits both or neither). The body is checked here too.
   */
  async addCaseIn(trx: Transaction<Database>, append: AppendAudit, actor: string, suiteKey: string, body: AddCaseBody, origin: CaseOrigin): Promise<AddedCase> {
    checkCase(body);
    if ((await suites.findSuite(trx, suiteKey)) === undefined) throw notFound('suite', suiteKey);
    const at = this.ctx.clock.now().toISOString();
    const content = {
      input: writeJson(storableValue(body.input)),
      expected: writeJson(storableValue(body.expected ?? {})),
      context: writeJson(storableValue(body.context ?? {})),
      labels: writeJson(unique(storableValue(body.labels ?? []))),
      split: body.split ?? 'test',
      source: origin.source,
      source_ref: origin.sourceRef,
    };
    const existing = body.key === undefined ? undefined : await suites.findCaseByKey(trx, suiteKey, body.key);
    if (existing !== undefined) {
      const replaced = await suites.replaceCase(trx, existing.id, content);
      const version = await suites.bumpVersion(trx, suiteKey, at);
      await append({ actor, action: 'eval.case_replaced', target: replaced.id, detail: caseAuditDetail(replaced, version) });
      return { created: false, case: caseToWire(replaced) };
    }
    const count = await suites.countCases(trx, suiteKey);
    if (count >= MAX_CASES) throw problem('conflict', `suite ${suiteKey} holds ${MAX_CASES} cases, the most a suite may hold; replace cases by key or start another suite`);
    const row: EvalCaseRow = {
      id: newId('case'),
      suite: suiteKey,
      case_key: body.key ?? null,
      position: await suites.nextPosition(trx, suiteKey),
      ...content,
      created_by: actor,
      created_at: at,
    };
    await suites.insertCase(trx, row);
    const version = await suites.bumpVersion(trx, suiteKey, at);
    await append({ actor, action: 'eval.case_added', target: row.id, detail: caseAuditDetail(row, version) });
    return { created: true, case: caseToWire(row) };
  }

  /** A case from a recorded decision: its content as the record keeps it, its verdict and entities as expected. */
  async fromTrace(principal: Principal, suiteKey: string, traceId: string): Promise<EvalCase> {
    const { db } = this.ctx.store;
    if ((await suites.findSuite(db, suiteKey)) === undefined) throw notFound('suite', suiteKey);
    const decision = (await suites.findDecision(db, traceId)) ?? (await suites.decisionOfTrace(db, traceId));
    if (decision === undefined) throw problem('unknown-id', `no decision or trace with id ${traceId}`);
    const body = caseFromDecision(decision);
    const added = await this.addCase(principal, suiteKey, body, { source: 'trace', sourceRef: decision.id });
    return added.case;
  }

  private async lastRuns(keys: readonly string[]): Promise<Map<string, Suite['last_run']>> {
    const { db } = this.ctx.store;
    const latest = await suites.latestRuns(db, keys);
    const completed = [...latest.values()].filter((run) => run.status === 'completed').map((run) => run.id);
    const rates = await suites.passRates(db, completed);
    const result = new Map<string, Suite['last_run']>();
    for (const [suite, run] of latest) {
      result.set(suite, {
        id: run.id,
        status: run.status as NonNullable<Suite['last_run']>['status'],
        pass_rate: run.status === 'completed' ? (rates.get(run.id) ?? null) : null,
        created_at: run.created_at,
      });
    }
    return result;
  }
}

/**
 * The case body a recorded decision makes, or a 422 when the record kept no content to replay.
 * Exported for annotations, which turn an online result's decision into a case the same way.
 */
export function caseFromDecision(decision: TraceRow): AddCaseBody & { input: Record<string, unknown> } {
  const input = recordedInput(decision);
  return {
    input,
    // The verdict the caller got (`effective_verdict` is what enforcing would have done).
    expected: { verdict: decision.verdict, entities: readJsonStrings(decision.entities) },
    context: {
      agent: decision.agent,
      decision_id: decision.id,
      trace_id: decision.trace_id,
      recorded_at: decision.at,
      // The record hashes what was sent: the same hash means the record holds it whole.
      content_recorded: sha256(decision.content ?? '') === decision.content_sha256 ? 'full' : 'redacted',
    },
    labels: ['from-trace'],
  };
}

/** The input a decision's record can replay: its content, surface and tool; 422 when nothing was recorded. */
export function recordedInput(decision: TraceRow): Record<string, unknown> {
  if (decision.content === null) {
    throw problem(
      'refused',
      `decision ${decision.id} has no recorded content to replay: record_content was none when it was recorded (or retention has cleared it); set record_content to redacted or full to make cases from traces`,
    );
  }
  const input: Record<string, unknown> = { text: decision.content, surface: decision.surface };
  if (decision.tool !== null) input.tool = decision.tool;
  if (Buffer.byteLength(JSON.stringify(input)) > MAX_INPUT_BYTES) {
    throw problem('refused', `the recorded content of decision ${decision.id} is larger than a case input may be (${MAX_INPUT_BYTES} bytes as JSON)`);
  }
  return input;
}

/** The text a case sends: `input.text`, or its messages' contents joined by newlines. */
export function caseInputText(input: Record<string, unknown>): string | null {
  if (typeof input.text === 'string') return input.text;
  if (Array.isArray(input.messages)) {
    return input.messages.map((message) => (message !== null && typeof message === 'object' ? String((message as { content?: unknown }).content ?? '') : '')).join('\n');
  }
  return null;
}

export function caseToWire(row: EvalCaseRow): EvalCase {
  return {
    id: row.id,
    suite: row.suite,
    key: row.case_key,
    position: Number(row.position),
    input: readJsonObject(row.input),
    expected: readJsonObject(row.expected),
    context: readJsonObject(row.context),
    labels: readJsonStrings(row.labels),
    split: row.split,
    source: row.source as CaseSource,
    source_ref: row.source_ref,
    created_at: row.created_at,
  };
}

function suiteToWire(row: EvalSuiteRow, cases: number, lastRun: Suite['last_run']): Suite {
  return {
    key: row.key,
    name: row.name,
    description: row.description,
    tags: readJsonStrings(row.tags),
    version: Number(row.version),
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_run: lastRun,
    cases,
  };
}

function caseAuditDetail(row: EvalCaseRow, version: number): Record<string, unknown> {
  return { suite: row.suite, case_key: row.case_key, source: row.source, source_ref: row.source_ref, suite_version: version };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
