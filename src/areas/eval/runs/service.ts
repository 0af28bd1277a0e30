// Evaluation runs (spec 02 "Evaluations"): a suite answered by a target and scored, in the request
// when small or as an `eval.run` job; the run read back with per-case results, per-scorer pass
// rates (annotations counted) and the comparison with a baseline run (exact McNemar on the paired
// cases); and the gate, which runs or reuses a run and says whether it passes.
import { actorOf, type Principal } from '../../../infra/auth/principal.js';
import { notFound, problem } from '../../../infra/http/problems.js';
import { PermanentJobError, type JobHandler } from '../../../infra/jobs/worker.js';
import { newId } from '../../../infra/lib/ids.js';
import { readJson, readJsonObject, readJsonStrings, writeJson } from '../../../infra/store/json-columns.js';
import type { EvalCaseRow, EvalOutputRow, EvalResultRow, EvalRunRow } from '../../../infra/store/tables.js';
import type { EvalContext } from '../context.js';
import { effectivePass } from '../pass.js';
import { resolveScorers, scoreAll, scorerByName } from '../scorers/index.js';
import { mcnemarExact } from '../stats.js';
import type { ScorerSpec, ScoreSubject, Target } from '../types.js';
import type { CaseOutcome, Comparison, CreateRunBody, Gate, GateBody, ListRunsQuery, QueuedRun, Run, RunSummary, ScorerSummary } from './schemas.js';
import * as runs from './store.js';
import { normalizeTarget, prepareTarget, textOf, type PreparedTarget } from './targets.js';

export const RUN_JOB = 'eval.run';
/** Runner `auto` answers in the request up to this many cases; more become a job. */
export const INLINE_AUTO_LIMIT: Record<Target['type'], number> = { guard: 50, model: 10, http: 10 };
/** The most cases a run answered in the request (runner inline, the gate) may have. */
export const INLINE_MAX = 500;
const RUN_JOB_ATTEMPTS = 3;
/** `done` is written after this many cases or this long, whichever comes first. */
const PROGRESS_EVERY = 20;
const PROGRESS_MS = 1000;
const SIGNIFICANCE = 0.05;

interface Plan {
  suite: string;
  suiteVersion: number;
  total: number;
  target: Target;
  prepared: PreparedTarget;
  specs: ScorerSpec[];
  baselineRunId: string | null;
}

export class RunService {
  constructor(readonly ctx: EvalContext) {}

  jobHandlers(): Record<string, JobHandler> {
    return { [RUN_JOB]: this.handleJob };
  }

  /** Starts a run: 201 with the finished run when answered in the request, else 202 with the queued job. */
  async create(caller: Principal, body: CreateRunBody): Promise<{ status: 201; run: Run } | { status: 202; queued: QueuedRun }> {
    const plan = await this.plan(body);
    const runner = body.runner ?? 'auto';
    if (runner === 'inline' && plan.total > INLINE_MAX) {
      throw problem('refused', `suite ${plan.suite} has ${plan.total} cases: a run in the request takes at most ${INLINE_MAX}; use runner job or auto`, [
        { field: '/body/runner', message: `inline takes at most ${INLINE_MAX} cases` },
      ]);
    }
    const inline = runner === 'inline' || (runner === 'auto' && plan.total <= INLINE_AUTO_LIMIT[plan.target.type]);
    const row = await this.start(caller, plan, inline ? 'inline' : 'job');
    if (inline) return { status: 201, run: await this.get(row.id) };
    return { status: 202, queued: { id: row.id, status: 'queued', job_id: row.job_id as string, total: row.total } };
  }

  async get(id: string, baselineOverride?: string): Promise<Run> {
    const run = await runs.findRun(this.ctx.store.db, id);
    if (run === undefined) throw notFound('evaluation run', id);
    const cases = await this.outcomes(run);
    const completed = run.status === 'completed';
    const specs = specsOf(run);
    const baselineId = baselineOverride ?? run.baseline_run_id;
    let comparison: Comparison | null = null;
    if (baselineId !== null && completed) {
      const baseline = await runs.findRun(this.ctx.store.db, baselineId);
      if (baseline !== undefined && baseline.status === 'completed') comparison = compare(baseline.id, await this.outcomes(baseline), cases);
    }
    return {
      ...summaryOf(run, completed ? passRate(cases) : null),
      scorers_summary: scorerSummaries(specs, cases),
      cases,
      comparison,
    };
  }

  async list(query: ListRunsQuery): Promise<{ items: RunSummary[] }> {
    const { db } = this.ctx.store;
    const rows = await runs.listRuns(db, { ...(query.suite === undefined ? {} : { suite: query.suite }), limit: query.limit ?? 50 });
    const passes = await runs.resultPasses(
      db,
      rows.filter((row) => row.status === 'completed').map((row) => row.id),
    );
    // Per run, per output: whether every result passed.
    const byRun = new Map<string, Map<string, boolean>>();
    for (const result of passes) {
      let outputs = byRun.get(result.run_id);
      if (outputs === undefined) byRun.set(result.run_id, (outputs = new Map()));
      outputs.set(result.output_id, (outputs.get(result.output_id) ?? true) && effectivePass({ passed: Number(result.passed), annotation: result.annotation }));
    }
    return {
      items: rows.map((row) => {
        const outputs = byRun.get(row.id);
        const rate = row.status !== 'completed' || outputs === undefined || outputs.size === 0 ? null : [...outputs.values()].filter(Boolean).length / outputs.size;
        return summaryOf(row, rate);
      }),
    };
  }

  async gate(caller: Principal, body: GateBody): Promise<Gate> {
    const thresholds = body.thresholds ?? {};
    const minPassRate = body.min_pass_rate ?? (body.thresholds === undefined ? 1 : null);
    const { db } = this.ctx.store;
    let runId: string;
    let baselineOverride: string | undefined;
    if (body.run_id !== undefined) {
      for (const field of ['target', 'scorers'] as const) {
        if (body[field] !== undefined) throw problem('refused', `${field} is not taken with run_id: the run already has its own`, [{ field: `/body/${field}`, message: 'not with run_id' }]);
      }
      const run = await runs.findRun(db, body.run_id);
      if (run === undefined) throw notFound('evaluation run', body.run_id);
      if (run.kind !== 'offline' || run.suite !== body.suite) {
        throw problem('refused', `run ${run.id} is not a run of suite ${body.suite}`, [{ field: '/body/run_id', message: `not a run of suite ${body.suite}` }]);
      }
      checkThresholds(thresholds, specsOf(run));
      if (body.baseline_run_id !== undefined) await this.baseline(body.baseline_run_id, body.suite);
      if (run.status === 'queued' || run.status === 'running') throw problem('conflict', `run ${run.id} is ${run.status}: gate it once it has completed`);
      runId = run.id;
      baselineOverride = body.baseline_run_id;
    } else {
      const plan = await this.plan(body);
      checkThresholds(thresholds, plan.specs);
      if (plan.total > INLINE_MAX) {
        throw problem(
          'refused',
          `suite ${plan.suite} has ${plan.total} cases: the gate runs at most ${INLINE_MAX} in the request; POST /api/eval/runs (it becomes a job), then gate with run_id once it has completed`,
        );
      }
      runId = (await this.start(caller, plan, 'inline')).id;
    }

    const run = await this.get(runId, baselineOverride);
    const reasons: string[] = [];
    if (run.status === 'failed') reasons.push(`run ${run.id} failed: ${run.error ?? 'no reason recorded'}`);
    if (minPassRate !== null) {
      if (run.pass_rate === null) reasons.push('no case had a scorer that applied to it: there is no pass rate to check');
      else if (run.pass_rate < minPassRate) reasons.push(`pass rate ${formatRate(run.pass_rate)} is below min_pass_rate ${formatRate(minPassRate)}`);
    }
    const scorers = run.scorers_summary.map((summary) => {
      const threshold = thresholds[summary.scorer] ?? null;
      const passed = threshold === null || (summary.pass_rate !== null && summary.pass_rate >= threshold);
      if (!passed) {
        reasons.push(
          summary.pass_rate === null
            ? `${summary.scorer}: no case it applies to, below its threshold ${formatRate(threshold as number)}`
            : `${summary.scorer}: pass rate ${formatRate(summary.pass_rate)} is below its threshold ${formatRate(threshold as number)}`,
        );
      }
      return { scorer: summary.scorer, pass_rate: summary.pass_rate, threshold, passed };
    });
    const comparison = run.comparison;
    if (comparison !== null && comparison.significant && comparison.regressed.length > comparison.improved.length) {
      reasons.push(
        `${comparison.regressed.length} case(s) regressed against baseline ${comparison.baseline_run_id} (${comparison.improved.length} improved): exact McNemar p = ${comparison.test.p_value.toPrecision(3)} < ${SIGNIFICANCE}`,
      );
    }
    const passed = reasons.length === 0;
    const actor = actorOf(caller);
    await this.ctx.audit.transact(async (_trx, append) => {
      await append({ actor, action: 'eval.gate', target: run.id, detail: { run: run.id, suite: body.suite, passed, pass_rate: run.pass_rate, reasons: reasons.length } });
    });
    return { passed, run_id: run.id, pass_rate: run.pass_rate, min_pass_rate: minPassRate, scorers, comparison, reasons };
  }

  /** Everything a run is refused for is checked here, before anything is stored. */
  private async plan(body: { suite: string; target?: CreateRunBody['target']; scorers?: CreateRunBody['scorers']; baseline_run_id?: string }): Promise<Plan> {
    const { db } = this.ctx.store;
    const suite = await runs.findSuite(db, body.suite);
    if (suite === undefined) throw notFound('evaluation suite', body.suite);
    const total = await runs.countCases(db, suite.key);
    if (total === 0) throw problem('refused', `suite ${suite.key} has no cases: add some with POST /api/eval/suites/${suite.key}/cases`);
    const target = normalizeTarget(body.target);
    // TypeBox types params as `object`; the scorers check what they hold.
    const specs = resolveScorers(body.scorers as ReadonlyArray<string | ScorerSpec> | undefined, target.type, this.ctx.helpers);
    if (body.baseline_run_id !== undefined) await this.baseline(body.baseline_run_id, suite.key);
    const prepared = await prepareTarget(target, this.ctx);
    return { suite: suite.key, suiteVersion: suite.version, total, target, prepared, specs, baselineRunId: body.baseline_run_id ?? null };
  }

  private async baseline(id: string, suite: string): Promise<EvalRunRow> {
    const baseline = await runs.findRun(this.ctx.store.db, id);
    if (baseline === undefined) throw notFound('evaluation run', id);
    if (baseline.kind !== 'offline' || baseline.suite !== suite) {
      throw problem('refused', `baseline run ${id} is not a run of suite ${suite}`, [{ field: '/body/baseline_run_id', message: `not a run of suite ${suite}` }]);
    }
    return baseline;
  }

  /** Inserts the run (audited `eval.run_started`); inline runs are answered before this returns, job runs are queued with it. */
  private async start(caller: Principal, plan: Plan, runner: 'inline' | 'job'): Promise<EvalRunRow> {
    const { audit, clock, queue } = this.ctx;
    const actor = actorOf(caller);
    const row: EvalRunRow = {
      id: newId('run'),
      kind: 'offline',
      suite: plan.suite,
      suite_version: plan.suiteVersion,
      agent: plan.target.agent ?? null,
      target: writeJson(plan.target),
      scorers: writeJson(plan.specs),
      baseline_run_id: plan.baselineRunId,
      runner,
      status: 'queued',
      job_id: null,
      total: plan.total,
      done: 0,
      error: null,
      options: writeJson({}),
      created_by: actor,
      created_at: clock.now().toISOString(),
      started_at: null,
      finished_at: null,
    };
    await audit.transact(async (trx, append) => {
      if (runner === 'job') row.job_id = (await queue.enqueue(RUN_JOB, { run_id: row.id }, { maxAttempts: RUN_JOB_ATTEMPTS, createdBy: actor }, trx)).id;
      await runs.insertRun(trx, row);
      await append({
        actor,
        action: 'eval.run_started',
        target: row.id,
        detail: {
          suite: plan.suite,
          suite_version: plan.suiteVersion,
          target: plan.target.type,
          agent: row.agent,
          scorers: plan.specs.map((spec) => spec.name),
          total: plan.total,
          runner,
          baseline_run_id: plan.baselineRunId,
        },
      });
    });
    if (runner === 'inline') {
      try {
        await this.execute(row, plan.prepared, new AbortController().signal);
      } catch (error) {
        await runs.updateRun(this.ctx.store.db, row.id, { status: 'failed', error: describe(error), finished_at: clock.now().toISOString() });
      }
    }
    return row;
  }

  readonly handleJob: JobHandler = async ({ job, payload, signal }) => {
    const id = typeof payload.run_id === 'string' ? payload.run_id : '';
    const { db } = this.ctx.store;
    const run = await runs.findRun(db, id);
    if (run === undefined) throw new PermanentJobError(`no evaluation run with id ${id}`);
    if (run.status === 'completed' || run.status === 'failed') return { run_id: id, status: run.status };
    try {
      const prepared = await prepareTarget(readJsonObject(run.target) as unknown as Target, this.ctx);
      await this.execute(run, prepared, signal);
      return { run_id: id, status: 'completed' };
    } catch (error) {
      // A lost lease: another worker carries on with the run; this one only stops.
      if (signal.aborted) throw error;
      const message = describe(error);
      const last = job.attempts >= job.max_attempts || (error as { status?: number }).status === 422;
      await runs.updateRun(db, id, last ? { status: 'failed', error: message, finished_at: this.ctx.clock.now().toISOString() } : { status: 'queued', error: message });
      throw last ? new PermanentJobError(message, { cause: error }) : error;
    }
  };

  /**
   * Answers and scores every case not yet answered in this run (a retried job picks up where the
   * last attempt stopped), one transaction per case, then marks the run completed.
   */
  private async execute(run: EvalRunRow, prepared: PreparedTarget, signal: AbortSignal): Promise<void> {
    const { store, clock, config } = this.ctx;
    const suite = run.suite as string;
    const cases = await runs.listCases(store.db, suite);
    const answered = await runs.answeredCases(store.db, run.id);
    const pending = cases.filter((row) => !answered.has(row.id));
    let done = cases.length - pending.length;
    await runs.updateRun(store.db, run.id, { status: 'running', started_at: run.started_at ?? clock.now().toISOString(), total: cases.length, done, error: null });
    const specs = specsOf(run);
    // The pipeline is in-process and quick: guard cases go one at a time; remote targets in parallel.
    const parallel = prepared.target.type === 'guard' ? 1 : config.eval_concurrency;
    let next = 0;
    let unflushed = 0;
    let flushedAt = Date.now();
    let stop: unknown = null;
    const lane = async (): Promise<void> => {
      while (stop === null && next < pending.length) {
        if (signal.aborted) throw signal.reason;
        const row = pending[next++] as EvalCaseRow;
        await this.answerCase(run, prepared, specs, row, signal);
        done += 1;
        unflushed += 1;
        if (unflushed >= PROGRESS_EVERY || Date.now() - flushedAt >= PROGRESS_MS) {
          unflushed = 0;
          flushedAt = Date.now();
          await runs.updateRun(store.db, run.id, { done });
        }
      }
    };
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(parallel, pending.length)) }, () =>
        lane().catch((error: unknown) => {
          stop ??= error;
        }),
      ),
    );
    if (stop !== null) throw stop;
    await runs.updateRun(store.db, run.id, { status: 'completed', done: await runs.countOutputs(store.db, run.id), finished_at: clock.now().toISOString() });
  }

  private async answerCase(run: EvalRunRow, prepared: PreparedTarget, specs: readonly ScorerSpec[], row: EvalCaseRow, signal: AbortSignal): Promise<void> {
    const { store, clock, helpers } = this.ctx;
    const input = readJsonObject(row.input);
    const answer = await prepared.answer(input, signal);
    const subject: ScoreSubject = {
      source: prepared.target.type,
      input: textOf(input),
      output: answer.output,
      decision: answer.decision,
      outputEntities: answer.outputEntities,
      blockedByGateway: answer.blockedByGateway,
      latencyMs: answer.latencyMs,
      costUsd: answer.costUsd,
      error: answer.error,
      expected: readJsonObject(row.expected),
      labels: readJsonStrings(row.labels),
      context: readJsonObject(row.context),
    };
    const scored = await scoreAll(subject, specs, helpers);
    const at = clock.now().toISOString();
    const output: EvalOutputRow = {
      id: newId('out'),
      run_id: run.id,
      case_id: row.id,
      decision_id: null,
      agent: run.agent,
      at,
      output: answer.output,
      verdict: answer.decision?.verdict ?? null,
      entities: writeJson(prepared.target.type === 'guard' ? (answer.decision?.entities ?? []) : (answer.outputEntities ?? [])),
      latency_ms: answer.latencyMs,
      cost_usd: answer.costUsd,
      error: answer.error,
      detail: writeJson(answer.detail),
    };
    const results: EvalResultRow[] = scored.flatMap(({ spec, outcome }) =>
      outcome === null
        ? []
        : [
            {
              id: newId('res'),
              run_id: run.id,
              output_id: output.id,
              case_id: row.id,
              decision_id: null,
              agent: run.agent,
              at,
              scorer: spec.name,
              score: outcome.score === null || Number.isFinite(outcome.score) ? outcome.score : null,
              passed: outcome.passed ? 1 : 0,
              threshold: outcome.threshold,
              reason: outcome.reason,
              annotation: null,
              annotation_note: null,
              annotated_by: null,
              annotated_at: null,
            },
          ],
    );
    await store.db.transaction().execute(async (trx) => {
      // Another attempt of the same job may have answered it meanwhile: one output per case.
      if (await runs.hasOutput(trx, run.id, row.id)) return;
      await runs.insertOutput(trx, output);
      await runs.insertResults(trx, results);
    });
  }

  /** Each output of a run with its results, offline runs in suite order. */
  private async outcomes(run: EvalRunRow): Promise<CaseOutcome[]> {
    const { db } = this.ctx.store;
    const [outputs, results, keys] = await Promise.all([
      runs.outputsOf(db, run.id),
      runs.resultsOf(db, [run.id]),
      run.suite === null ? Promise.resolve(new Map<string, { key: string | null; position: number }>()) : runs.caseKeys(db, run.suite),
    ]);
    const byOutput = new Map<string, EvalResultRow[]>();
    for (const result of results) {
      const list = byOutput.get(result.output_id);
      if (list === undefined) byOutput.set(result.output_id, [result]);
      else list.push(result);
    }
    const position = (output: EvalOutputRow) => (output.case_id === null ? Number.MAX_SAFE_INTEGER : (keys.get(output.case_id)?.position ?? Number.MAX_SAFE_INTEGER));
    return [...outputs]
      .sort((a, b) => position(a) - position(b))
      .map((output) => {
        const rows = byOutput.get(output.id) ?? [];
        const passes = rows.map((result) => effectivePass({ passed: Number(result.passed), annotation: result.annotation }));
        return {
          case_id: output.case_id,
          case_key: output.case_id === null ? null : (keys.get(output.case_id)?.key ?? null),
          decision_id: output.decision_id,
          output_id: output.id,
          output: output.output,
          verdict: output.verdict,
          entities: readJsonStrings(output.entities),
          latency_ms: output.latency_ms === null ? null : Number(output.latency_ms),
          cost_usd: output.cost_usd === null ? null : Number(output.cost_usd),
          error: output.error,
          passed: passes.length === 0 ? null : passes.every(Boolean),
          results: rows.map((result, index) => ({
            id: result.id,
            scorer: result.scorer,
            score: result.score === null ? null : Number(result.score),
            passed: passes[index] as boolean,
            threshold: result.threshold === null ? null : Number(result.threshold),
            reason: result.reason,
            annotation: result.annotation === 'pass' || result.annotation === 'fail' ? result.annotation : null,
            annotation_note: result.annotation_note,
          })),
        };
      });
  }
}

function specsOf(run: EvalRunRow): ScorerSpec[] {
  const value = readJson<unknown>(run.scorers, []);
  if (!Array.isArray(value)) return [];
  return value.filter((spec): spec is ScorerSpec => spec !== null && typeof spec === 'object' && typeof (spec as ScorerSpec).name === 'string');
}

function summaryOf(run: EvalRunRow, passRate: number | null): RunSummary {
  return {
    id: run.id,
    kind: run.kind === 'online' ? 'online' : 'offline',
    suite: run.suite,
    suite_version: run.suite_version === null ? null : Number(run.suite_version),
    agent: run.agent,
    target: readJsonObject(run.target),
    scorers: specsOf(run),
    baseline_run_id: run.baseline_run_id,
    runner: run.runner,
    status: run.status as RunSummary['status'],
    job_id: run.job_id,
    total: Number(run.total),
    done: Number(run.done),
    error: run.error,
    created_by: run.created_by,
    created_at: run.created_at,
    started_at: run.started_at,
    finished_at: run.finished_at,
    pass_rate: passRate,
  };
}

/** Cases passing every applicable scorer / cases with one; null when no case had one. */
function passRate(cases: readonly CaseOutcome[]): number | null {
  const scored = cases.filter((item) => item.passed !== null);
  return scored.length === 0 ? null : scored.filter((item) => item.passed === true).length / scored.length;
}

function scorerSummaries(specs: readonly ScorerSpec[], cases: readonly CaseOutcome[]): ScorerSummary[] {
  const names = [...new Set(specs.map((spec) => spec.name))];
  for (const item of cases) for (const result of item.results) if (!names.includes(result.scorer)) names.push(result.scorer);
  return names.map((name) => {
    const results = cases.flatMap((item) => item.results.filter((result) => result.scorer === name));
    const passed = results.filter((result) => result.passed).length;
    const threshold = specs.find((spec) => spec.name === name && spec.threshold !== undefined)?.threshold ?? results[0]?.threshold ?? scorerByName(name)?.defaultThreshold ?? null;
    return { scorer: name, results: results.length, passed, pass_rate: results.length === 0 ? null : passed / results.length, threshold };
  });
}

/** Pairs the two runs' outcomes by case: what regressed, improved or changed, and whether the difference is beyond noise. */
export function compare(baselineRunId: string, before: readonly CaseOutcome[], after: readonly CaseOutcome[]): Comparison {
  const earlier = new Map(before.filter((item) => item.case_id !== null).map((item) => [item.case_id as string, item]));
  const regressed: string[] = [];
  const improved: string[] = [];
  const changed: Comparison['changed'] = [];
  let paired = 0;
  for (const now of after) {
    if (now.case_id === null) continue;
    const then = earlier.get(now.case_id);
    if (then === undefined) continue;
    if (then.verdict !== now.verdict || then.output !== now.output) {
      changed.push({ case_id: now.case_id, before: { verdict: then.verdict, output: then.output }, after: { verdict: now.verdict, output: now.output } });
    }
    if (then.passed === null || now.passed === null) continue;
    paired += 1;
    if (then.passed && !now.passed) regressed.push(now.case_id);
    if (!then.passed && now.passed) improved.push(now.case_id);
  }
  const p = mcnemarExact(regressed.length, improved.length);
  return {
    baseline_run_id: baselineRunId,
    paired,
    regressed,
    improved,
    changed,
    pass_rate_before: passRate(before),
    pass_rate_after: passRate(after),
    test: { name: 'mcnemar_exact', b: regressed.length, c: improved.length, p_value: p },
    significant: p < SIGNIFICANCE,
  };
}

function checkThresholds(thresholds: Record<string, number>, specs: readonly ScorerSpec[]): void {
  for (const scorer of Object.keys(thresholds)) {
    if (!specs.some((spec) => spec.name === scorer)) {
      throw problem('refused', `thresholds names ${scorer}, which the run does not score with (scorers: ${specs.map((spec) => spec.name).join(', ')})`, [
        { field: `/body/thresholds/${scorer}`, message: 'not a scorer of the run' },
      ]);
    }
  }
}

const formatRate = (rate: number): string => `${(rate * 100).toFixed(1)}%`;

function describe(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 2000) : String(error).slice(0, 2000);
}
