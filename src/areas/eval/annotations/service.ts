// Annotation (spec 02 "Evaluations"): a queue of results a person should look at (a score near its
// threshold, or an output whose scorers disagree) and a person's call on a result, which counts
// instead of the scorer's in every pass rate (pass.ts). A call can also export the result's case
// as a new case of a suite, in the same transaction as the annotation and its audit entry.
import type { Transaction } from 'kysely';
import { actorOf, type Principal } from '../../../infra/auth/principal.js';
import { notFound, problem } from '../../../infra/http/problems.js';
import { storableText } from '../../../infra/lib/storable-text.js';
import { readJsonObject, readJsonStrings } from '../../../infra/store/json-columns.js';
import type { Database } from '../../../infra/store/tables.js';
import type { EvalContext } from '../context.js';
import { effectivePass } from '../pass.js';
import type { AddCaseBody } from '../suites/schemas.js';
import { caseFromDecision, caseInputText, type SuiteService } from '../suites/service.js';
import * as suiteStore from '../suites/store.js';
import { QUEUE_TEXT_CHARS, type Annotated, type AnnotateBody, type EvalResult, type Queue, type QueueQuery } from './schemas.js';
import * as annotations from './store.js';

/** Scorers whose score is a quantity (milliseconds, dollars), not a 0..1 rate: near is relative to the threshold. */
const SCALED_SCORERS = ['latency', 'cost'];

export class AnnotationService {
  constructor(
    readonly ctx: EvalContext,
    readonly suites: SuiteService,
  ) {}

  async queue(query: QueueQuery): Promise<Queue> {
    const { db } = this.ctx.store;
    if (query.run_id !== undefined && !(await annotations.runExists(db, query.run_id))) throw notFound('run', query.run_id);
    const rows = await annotations.queue(db, {
      ...(query.run_id === undefined ? {} : { runId: query.run_id }),
      band: query.band ?? 0.1,
      limit: query.limit ?? 50,
      scaledScorers: SCALED_SCORERS,
    });
    return {
      items: rows.map((row) => ({
        result_id: row.id,
        run_id: row.run_id,
        case_id: row.case_id,
        decision_id: row.decision_id,
        agent: row.agent,
        scorer: row.scorer,
        score: row.score,
        threshold: row.threshold,
        passed: row.passed === 1,
        reason: row.reason,
        why: row.near === 1 ? 'near_threshold' : 'scorers_disagree',
        input: cut(row.case_input !== null ? caseInputText(readJsonObject(row.case_input)) : row.decision_content),
        output: cut(row.output),
      })),
    };
  }

  /** Records a person's call (or only a note) on a result, replacing any earlier one; audited. */
  async annotate(principal: Principal, resultId: string, body: AnnotateBody): Promise<Annotated> {
    // Made storable here, so that the answer and the audit entry show what a later read will.
    const note = storableText(body.note.trim());
    if (note === '') throw problem('refused', 'an annotation needs a note: say why', [{ field: '/body/note', message: 'must not be blank' }]);
    const actor = actorOf(principal);
    const at = this.ctx.clock.now().toISOString();
    const verdict = body.verdict ?? null;
    return this.ctx.audit.transact(async (trx, append) => {
      const result = await annotations.findResult(trx, resultId);
      if (result === undefined) throw notFound('result', resultId);
      // A second annotation replaces the first whole: a note without a verdict leaves no call standing.
      const change = { annotation: verdict, annotation_note: note, annotated_by: actor, annotated_at: at };
      await annotations.annotate(trx, result.id, change);
      await append({
        actor,
        action: 'eval.annotated',
        target: result.id,
        detail: { result: result.id, run_id: result.run_id, scorer: result.scorer, verdict, previous: result.annotation, previous_note: result.annotation_note },
      });
      let exported: Annotated['case'] = null;
      if (body.add_to_suite !== undefined) {
        const caseBody = await this.exportedCase(trx, result, { verdict, note });
        exported = (await this.suites.addCaseIn(trx, append, actor, body.add_to_suite, caseBody, { source: 'annotation', sourceRef: result.id })).case;
      }
      return { result: resultToWire({ ...result, ...change }), case: exported };
    });
  }

  /**
   * The case an annotated result becomes: the case it answered (online: the decision's recorded
   * input), with the annotation in its context; a `verdict` result called pass makes the verdict
   * the output got the one expected.
   */
  private async exportedCase(
    trx: Transaction<Database>,
    result: annotations.ResultWithOutput,
    call: { verdict: 'pass' | 'fail' | null; note: string },
  ): Promise<AddCaseBody> {
    const annotation = { annotation: { scorer: result.scorer, verdict: call.verdict, note: call.note } };
    let body: AddCaseBody;
    if (result.case_id !== null) {
      const original = await suiteStore.findCase(trx, result.case_id);
      if (original === undefined) throw problem('refused', `the case result ${result.id} answered (${result.case_id}) no longer exists`);
      body = {
        input: readJsonObject(original.input),
        expected: readJsonObject(original.expected),
        context: readJsonObject(original.context),
        labels: readJsonStrings(original.labels),
        split: original.split,
      };
    } else if (result.decision_id !== null) {
      const decision = await suiteStore.findDecision(trx, result.decision_id);
      if (decision === undefined) throw problem('refused', `the decision result ${result.id} scored (${result.decision_id}) is no longer recorded`);
      const fromDecision = caseFromDecision(decision);
      // What the record shows is not what a person vouched for: only a passed verdict call sets expectations.
      body = { input: fromDecision.input, expected: {}, context: fromDecision.context ?? {}, labels: ['from-annotation'] };
    } else {
      throw problem('refused', `result ${result.id} has neither a case nor a decision to make a case from`);
    }
    const expected = { ...(body.expected ?? {}) } as Record<string, unknown>;
    if (result.scorer === 'verdict' && call.verdict === 'pass' && result.output_verdict !== null) expected.verdict = result.output_verdict;
    return { ...body, expected, context: { ...(body.context ?? {}), ...annotation } };
  }
}

function cut(text: string | null): string | null {
  return text === null ? null : text.slice(0, QUEUE_TEXT_CHARS);
}

function resultToWire(row: annotations.ResultWithOutput): EvalResult {
  const passed = Number(row.passed);
  return {
    id: row.id,
    run_id: row.run_id,
    output_id: row.output_id,
    case_id: row.case_id,
    decision_id: row.decision_id,
    agent: row.agent,
    at: row.at,
    scorer: row.scorer,
    score: row.score,
    passed: passed === 1,
    threshold: row.threshold,
    reason: row.reason,
    annotation: row.annotation as EvalResult['annotation'],
    annotation_note: row.annotation_note,
    annotated_by: row.annotated_by,
    annotated_at: row.annotated_at,
    effective_passed: effectivePass({ passed, annotation: row.annotation }),
  };
}
