// Online evaluation (spec 02 "Evaluations"): scoring sampled recorded traffic in the background
// (job `eval.online`), drift of the online results between a recent and a baseline window (read
// only; the job raises `drift` and `over_refusal` findings by the same rule), and SLOs over them.
import { createHash } from 'node:crypto';
import { findingType } from '../../../engine/findings/catalog.js';
import { fingerprint } from '../../../engine/findings/fingerprint.js';
import type { FindingUpsert } from '../../../engine/recording/recorder.js';
import { actorOf, type Principal } from '../../../infra/auth/principal.js';
import { problem } from '../../../infra/http/problems.js';
import { PermanentJobError, type JobHandler } from '../../../infra/jobs/worker.js';
import { newId } from '../../../infra/lib/ids.js';
import { readJson, readJsonObject, readJsonStrings, writeJson } from '../../../infra/store/json-columns.js';
import type { EvalOutputRow, EvalResultRow, EvalRunRow, EvalSloRow } from '../../../infra/store/tables.js';
import type { EvalContext } from '../context.js';
import { resolveScorers, scoreAll, scorerByName } from '../scorers/index.js';
import type { ScoreSubject, ScorerSpec } from '../types.js';
import { assessDrift, driftWindows, DRIFT_ALPHA, DRIFT_MIN_EFFECT, DRIFT_MIN_SAMPLES, EMPTY_WINDOW, MAX_DISTRIBUTION_SCORES, type DriftItem } from './drift.js';
import type { Drift, DriftQuery, OnlineBody, OnlineStarted, Slo, SloBody, SloList, SloQuery } from './schemas.js';
import { measureSlo } from './slo.js';
import * as online from './store.js';

export const ONLINE_JOB = 'eval.online';
const ONLINE_JOB_ATTEMPTS = 3;
/** Decisions one online run reads at most, and per page. */
export const MAX_EXAMINED = 50_000;
const PAGE_SIZE = 500;
/** Longest answer text an output row keeps. */
const MAX_OUTPUT_CHARS = 8_192;
const MAX_REASON_CHARS = 2_000;
/** Bounds on a scorer spec's params as sent. */
const MAX_PARAMS_BYTES = 16_384;
const MAX_PARAMS_DEPTH = 6;
const DEFAULT_SINCE_DAYS = 7;
const DEFAULT_RATE = 0.1;
/** The windows the job judges drift over (GET /api/eval/drift's defaults). */
const RECENT_DAYS = 7;
const BASELINE_DAYS = 28;
const SLO_LIMIT = 500;
const DAY_MS = 86_400_000;
/** Scorers whose worsening is also an over-refusal. */

/** Strength of a verdict: the strongest decision of a request speaks for it. */
const VERDICT_RANK: Record<string, number> = { allow: 0, transform: 1, escalate: 2, block: 3 };
const rankOf = (verdict: string) => VERDICT_RANK[verdict] ?? 1;

/** Whether a request is in the sample: the same answer for the same decision id on every run. */
export function sampled(decisionId: string, rate: number): boolean {
  const bucket = createHash('sha256').update(decisionId).digest().readUIntBE(0, 6) % 1_000_000;
  return bucket < Math.round(rate * 1_000_000);
}

function strongest(decisions: readonly online.RecordedDecision[]): online.RecordedDecision | undefined {
  let best: online.RecordedDecision | undefined;
  for (const decision of decisions) {
    if (
      best === undefined ||
      rankOf(decision.verdict) > rankOf(best.verdict) ||
      (rankOf(decision.verdict) === rankOf(best.verdict) && rankOf(decision.effective_verdict) > rankOf(best.effective_verdict))
    ) {
      best = decision;
    }
  }
  return best;
}

function ruleIds(rules: string): string[] {
  const parsed = readJson<unknown>(rules, []);
  if (!Array.isArray(parsed)) return [];
  const ids: string[] = [];
  for (const rule of parsed) {
    if (typeof rule === 'string') ids.push(rule);
    else if (rule !== null && typeof rule === 'object' && typeof (rule as { rule_id?: unknown }).rule_id === 'string') ids.push((rule as { rule_id: string }).rule_id);
  }
  return ids;
}

/** One request as scorers see it: its decisions (one, or all of one trace id), in time order. */
export function subjectOf(decisions: readonly online.RecordedDecision[]): {
  subject: ScoreSubject;
  first: online.RecordedDecision;
  decisionIds: string[];
  outputVerdict: string | null;
} {
  const first = decisions[0] as online.RecordedDecision;
  const inputs = decisions.filter((decision) => decision.surface !== 'output');
  const outputs = decisions.filter((decision) => decision.surface === 'output');
  const input = strongest(inputs);
  const output = strongest(outputs);
  const outputEntities = outputs.length === 0 ? null : [...new Set(outputs.flatMap((decision) => readJsonStrings(decision.entities)))].sort();
  const subject: ScoreSubject = {
    source: 'online',
    input: inputs.find((decision) => decision.content !== null)?.content ?? null,
    // The last answer checked is the one the caller got.
    output: [...outputs].reverse().find((decision) => decision.content !== null)?.content ?? null,
    decision:
      input === undefined
        ? null
        : { verdict: input.verdict, effective_verdict: input.effective_verdict, entities: readJsonStrings(input.entities), rules: ruleIds(input.rules) },
    outputEntities,
    // `verdict` is what the caller got; `effective_verdict` what enforcing would have done.
    blockedByGateway: decisions.some((decision) => decision.verdict === 'block'),
    latencyMs: decisions.reduce((sum, decision) => sum + decision.latency_ms, 0),
    costUsd: null,
    error: null,
    expected: {},
    labels: [],
    context: { decision_id: first.id, trace_id: first.trace_id },
  };
  return { subject, first, decisionIds: decisions.map((decision) => decision.id), outputVerdict: output?.verdict ?? null };
}

function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return 1 + deepest;
}

function checkSpecParams(raw: OnlineBody['scorers']): void {
  for (const [index, entry] of (raw ?? []).entries()) {
    if (typeof entry === 'string' || entry.params === undefined) continue;
    const field = `/body/scorers/${index}/params`;
    if (Buffer.byteLength(JSON.stringify(entry.params)) > MAX_PARAMS_BYTES) {
      throw problem('invalid-request', `scorer ${entry.name}: params are larger than ${MAX_PARAMS_BYTES} bytes as JSON`, [{ field, message: `at most ${MAX_PARAMS_BYTES} bytes` }]);
    }
    if (depthOf(entry.params) > MAX_PARAMS_DEPTH) {
      throw problem('invalid-request', `scorer ${entry.name}: params are nested more than ${MAX_PARAMS_DEPTH} levels deep`, [{ field, message: `at most ${MAX_PARAMS_DEPTH} levels` }]);
    }
  }
}

const cut = (text: string | null, max: number) => (text === null || text.length <= max ? text : text.slice(0, max));
const finiteOrNull = (value: number | null) => (value === null || !Number.isFinite(value) ? null : value);

/** Runs `work` over `items` with at most `limit` at a time, answers in the items' order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

export class OnlineService {
  constructor(readonly ctx: EvalContext) {}

  jobHandlers(): Record<string, JobHandler> {
    return { [ONLINE_JOB]: this.runJob };
  }

  /** POST /api/eval/online: a queued online run and its job. */
  async start(caller: Principal, body: OnlineBody): Promise<OnlineStarted> {
    const { audit, clock, queue } = this.ctx;
    checkSpecParams(body.scorers);
    const specs = resolveScorers(body.scorers, 'online', { judge: this.ctx.helpers.judge });
    const sinceDays = body.since_days ?? DEFAULT_SINCE_DAYS;
    const rate = body.rate ?? DEFAULT_RATE;
    const actor = actorOf(caller);
    const id = newId('run');
    const at = clock.now().toISOString();
    const jobId = await audit.transact(async (trx, append) => {
      const job = await queue.enqueue(ONLINE_JOB, { run_id: id }, { maxAttempts: ONLINE_JOB_ATTEMPTS, createdBy: actor }, trx);
      const row: EvalRunRow = {
        id,
        kind: 'online',
        suite: null,
        suite_version: null,
        agent: body.agent,
        target: writeJson({ type: 'online' }),
        scorers: writeJson(specs),
        baseline_run_id: null,
        runner: 'worker',
        status: 'queued',
        job_id: job.id,
        total: 0,
        done: 0,
        error: null,
        options: writeJson({ since_days: sinceDays, rate }),
        created_by: actor,
        created_at: at,
        started_at: null,
        finished_at: null,
      };
      await online.insertRun(trx, row);
      await append({
        actor,
        action: 'eval.online_started',
        target: id,
        detail: { agent: body.agent, scorers: specs.map((spec) => spec.name), since_days: sinceDays, rate, job_id: job.id },
      });
      return job.id;
    });
    return { id, status: 'queued', job_id: jobId, agent: body.agent, since_days: sinceDays, rate };
  }

  /** The `eval.online` job: samples, scores and stores the agent's recorded requests, then judges drift. */
  private readonly runJob: JobHandler = async ({ job, payload, signal }) => {
    const { store } = this.ctx;
    const runId = typeof payload.run_id === 'string' ? payload.run_id : '';
    const run = await online.findRun(store.db, runId);
    if (run === undefined || run.kind !== 'online' || run.agent === null) throw new PermanentJobError(`no online evaluation run with id ${runId}`);
    if (run.status === 'completed' || run.status === 'failed') return { run_id: run.id, status: run.status };
    try {
      return await this.score(run, signal);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const last = job.attempts >= job.max_attempts || error instanceof PermanentJobError;
      // Results already stored stay: a later attempt skips what they scored.
      await online.updateRun(store.db, run.id, last ? { status: 'failed', error: message, finished_at: this.ctx.clock.now().toISOString() } : { error: message });
      throw error;
    }
  };

  private async score(run: EvalRunRow, signal: AbortSignal): Promise<Record<string, unknown>> {
    const { store, clock, helpers, config } = this.ctx;
    const agent = run.agent as string;
    const options = readJsonObject(run.options);
    const sinceDays = typeof options.since_days === 'number' ? options.since_days : DEFAULT_SINCE_DAYS;
    const rate = typeof options.rate === 'number' ? options.rate : DEFAULT_RATE;
    const specs = readJson<ScorerSpec[]>(run.scorers, []);
    const names = [...new Set(specs.map((spec) => spec.name))];
    const startedAt = clock.now();
    await online.updateRun(store.db, run.id, { status: 'running', started_at: run.started_at ?? startedAt.toISOString(), error: null });

    const from = new Date(startedAt.getTime() - sinceDays * DAY_MS).toISOString();
    // A decision recorded in the very millisecond the run started is still in.
    const to = new Date(startedAt.getTime() + 1).toISOString();
    const seenTraces = new Set<string>();
    let after: { at: string; id: string } | null = null;
    let examined = 0;
    let sampledCount = 0;
    let skipped = 0;

    while (examined < MAX_EXAMINED) {
      if (signal.aborted) throw new Error('the job lost its lease');
      const page = await online.decisionPage(store.db, { agent, from, to, after, limit: Math.min(PAGE_SIZE, MAX_EXAMINED - examined) });
      if (page.length === 0) break;
      examined += page.length;
      const last = page[page.length - 1] as online.RecordedDecision;
      after = { at: last.at, id: last.id };

      // A request is its first decision in the window: alone, or with the rest of its trace id.
      const lone: online.RecordedDecision[] = [];
      const tracedFirsts: online.RecordedDecision[] = [];
      for (const decision of page) {
        if (decision.trace_id !== null) {
          if (seenTraces.has(decision.trace_id)) continue;
          seenTraces.add(decision.trace_id);
        }
        if (!sampled(decision.id, rate)) continue;
        (decision.trace_id === null ? lone : tracedFirsts).push(decision);
      }
      const traced = await online.decisionsOfTraces(store.db, { agent, from, to, traceIds: tracedFirsts.map((decision) => decision.trace_id as string) });
      const byTrace = new Map<string, online.RecordedDecision[]>();
      for (const decision of traced) {
        const list = byTrace.get(decision.trace_id as string) ?? [];
        list.push(decision);
        byTrace.set(decision.trace_id as string, list);
      }
      const requests = [...lone.map((decision) => [decision]), ...tracedFirsts.map((decision) => byTrace.get(decision.trace_id as string) ?? [decision])];
      const scored = await online.alreadyScored(store.db, requests.map((request) => (request[0] as online.RecordedDecision).id), names);

      const outputs: EvalOutputRow[] = [];
      const results: EvalResultRow[] = [];
      const work = requests.map((request) => {
        const built = subjectOf(request);
        const remaining = specs.filter((spec) => !scored.has(online.scoredKey(built.first.id, spec.name)));
        return { built, remaining };
      });
      const todo = work.filter((item) => item.remaining.length > 0);
      skipped += work.length - todo.length;
      const outcomes = await mapLimit(todo, config.eval_concurrency, async ({ built, remaining }) => {
        try {
          return { built, scored: await scoreAll(built.subject, remaining, helpers), error: null };
        } catch (error) {
          return { built, scored: [], error: error instanceof Error ? error.message : String(error) };
        }
      });
      for (const { built, scored: pairs, error } of outcomes) {
        const { subject, first, outputVerdict } = built;
        const outputId = newId('out');
        outputs.push({
          id: outputId,
          run_id: run.id,
          case_id: null,
          decision_id: first.id,
          agent,
          at: first.at,
          output: cut(subject.output, MAX_OUTPUT_CHARS),
          verdict: subject.decision?.verdict ?? outputVerdict,
          entities: writeJson(subject.outputEntities ?? []),
          latency_ms: subject.latencyMs,
          cost_usd: null,
          // A scorer that threw leaves the request unscored: a later run tries it again.
          error: error === null ? null : cut(`scoring failed: ${error}`, MAX_REASON_CHARS),
          detail: writeJson({
            decision_ids: built.decisionIds,
            trace_id: first.trace_id,
            rules: subject.decision?.rules ?? [],
            output_verdict: outputVerdict,
            blocked_by_gateway: subject.blockedByGateway,
          }),
        });
        for (const { spec, outcome } of pairs) {
          if (outcome === null) continue;
          results.push({
            id: newId('res'),
            run_id: run.id,
            output_id: outputId,
            case_id: null,
            decision_id: first.id,
            agent,
            at: first.at,
            scorer: spec.name,
            score: finiteOrNull(outcome.score),
            passed: outcome.passed ? 1 : 0,
            threshold: finiteOrNull(outcome.threshold),
            reason: cut(outcome.reason, MAX_REASON_CHARS) ?? '',
            annotation: null,
            annotation_note: null,
            annotated_by: null,
            annotated_at: null,
          });
        }
      }
      sampledCount += outcomes.length;
      await online.writeScored(store.db, { outputs, results, runId: run.id, progress: { total: sampledCount, done: sampledCount } });
      if (page.length < PAGE_SIZE) break;
    }

    const now = clock.now();
    const drift = await this.measureDrift(agent, names, RECENT_DAYS, BASELINE_DAYS, now);
    const findings = this.findingsOf(agent, run.id, drift, now.toISOString());
    this.ctx.recorder.raise(findings);
    const summary = { examined, sampled: sampledCount, skipped_already_scored: skipped };
    await online.updateRun(store.db, run.id, {
      status: 'completed',
      total: sampledCount,
      done: sampledCount,
      error: null,
      finished_at: now.toISOString(),
      options: writeJson({ ...options, ...summary }),
    });
    return { run_id: run.id, ...summary, findings: findings.map((finding) => `${finding.type}:${String(finding.evidence.scorer)}`) };
  }

  /**
   * drift for each worsened scorer; over_refusal as well when it is the over_refusal scorer (benign
   * requests refused). A worse `refusal` rate alone is not over-refusal: more attacks blocked is the
   * gateway doing its job.
   */
  private findingsOf(agent: string, runId: string, drift: Drift, at: string): FindingUpsert[] {
    const subject = `agent:${agent}`;
    const findings: FindingUpsert[] = [];
    for (const item of drift.items) {
      if (!item.significant || item.direction !== 'worse') continue;
      const evidence = {
        scorer: item.scorer,
        run_id: runId,
        windows: drift.windows,
        recent: item.recent,
        baseline: item.baseline,
        delta: item.delta,
        test: item.test.name,
        statistic: item.test.statistic,
        p_value: item.test.p_value,
        alpha: drift.alpha,
        distribution: item.distribution,
        reason: item.reason,
      };
      const rates = `${percentOf(item.baseline.pass_rate)} → ${percentOf(item.recent.pass_rate)}`;
      const raise = (type: 'drift' | 'over_refusal', title: string) =>
        findings.push({
          fingerprint: fingerprint(type, subject, [item.scorer]),
          type,
          severity: findingType(type).default_severity,
          title,
          subject,
          agent,
          at,
          evidence,
          decisionId: null,
        });
      raise('drift', `Evaluation drift for ${agent}: ${item.scorer} pass rate ${rates}`);
      if (item.scorer === 'over_refusal') raise('over_refusal', `${agent} refuses more: ${item.scorer} pass rate ${rates}`);
    }
    return findings;
  }

  /** GET /api/eval/drift: read-only. */
  async drift(query: DriftQuery): Promise<Drift> {
    if (query.scorer !== undefined && scorerByName(query.scorer) === undefined) {
      throw problem('invalid-request', `no scorer named ${query.scorer} (GET /api/eval/scorers lists them)`, [{ field: '/query/scorer', message: 'unknown scorer' }]);
    }
    return this.measureDrift(query.agent, query.scorer === undefined ? undefined : [query.scorer], query.recent_days ?? RECENT_DAYS, query.baseline_days ?? BASELINE_DAYS, this.ctx.clock.now());
  }

  /** Drift of the agent's online results, per scorer named (else per scorer with results in either window). */
  private async measureDrift(agent: string, scorers: readonly string[] | undefined, recentDays: number, baselineDays: number, now: Date): Promise<Drift> {
    const { db } = this.ctx.store;
    const windows = driftWindows(now, recentDays, baselineDays);
    const only = scorers?.length === 1 ? scorers[0] : undefined;
    const [recent, baseline] = await Promise.all([
      online.windowAggregates(db, { agent, ...windows.recent, ...(only === undefined ? {} : { scorer: only }) }),
      online.windowAggregates(db, { agent, ...windows.baseline, ...(only === undefined ? {} : { scorer: only }) }),
    ]);
    const names = scorers ?? [...new Set([...recent.keys(), ...baseline.keys()])].sort();
    const items: DriftItem[] = [];
    for (const scorer of names) {
      const recentWindow = recent.get(scorer) ?? EMPTY_WINDOW;
      const baselineWindow = baseline.get(scorer) ?? EMPTY_WINDOW;
      let scores: { recent: number[]; baseline: number[] } | null = null;
      if (recentWindow.scoreCount > 0 && baselineWindow.scoreCount > 0) {
        const graded =
          (await online.hasGradedScores(db, { agent, scorer, ...windows.recent })) || (await online.hasGradedScores(db, { agent, scorer, ...windows.baseline }));
        if (graded) {
          const [recentScores, baselineScores] = await Promise.all([
            online.windowScores(db, { agent, scorer, ...windows.recent, limit: MAX_DISTRIBUTION_SCORES }),
            online.windowScores(db, { agent, scorer, ...windows.baseline, limit: MAX_DISTRIBUTION_SCORES }),
          ]);
          scores = { recent: recentScores, baseline: baselineScores };
        }
      }
      items.push(assessDrift(scorer, recentWindow, baselineWindow, scores));
    }
    return { agent, alpha: DRIFT_ALPHA, min_samples: DRIFT_MIN_SAMPLES, min_effect: DRIFT_MIN_EFFECT, windows, items };
  }

  /** POST /api/eval/slos: inserts (created) or updates the target of the SLO with the same key. */
  async saveSlo(caller: Principal, body: SloBody): Promise<{ created: boolean; slo: Slo }> {
    const { audit, clock } = this.ctx;
    const scorer = scorerByName(body.scorer);
    if (scorer === undefined || !scorer.appliesTo.includes('online')) {
      throw problem('refused', `${body.scorer} is not a scorer of online results (GET /api/eval/scorers: appliesTo includes online)`, [
        { field: '/body/scorer', message: 'not a scorer of online results' },
      ]);
    }
    const key = { agent: body.agent, scorer: body.scorer, objective: body.objective ?? 'pass_rate', window_days: Number.parseInt(body.window ?? '28d', 10) };
    const target = body.target ?? 0.95;
    const actor = actorOf(caller);
    const at = clock.now().toISOString();
    const saved = await audit.transact(async (trx, append) => {
      const detail = { agent: key.agent, scorer: key.scorer, objective: key.objective, window: `${key.window_days}d`, target };
      let existing = await online.findSlo(trx, key);
      if (existing === undefined) {
        const row: EvalSloRow = { id: newId('slo'), ...key, target, created_by: actor, created_at: at, updated_at: at };
        if (await online.insertSloIfAbsent(trx, row)) {
          await append({ actor, action: 'eval.slo_saved', target: row.id, detail: { ...detail, created: true } });
          return { created: true, row };
        }
        // Saved by a concurrent request meanwhile: this one changes it.
        existing = (await online.findSlo(trx, key)) as EvalSloRow;
      }
      if (existing.target === target) return { created: false, row: existing };
      await online.updateSloTarget(trx, existing.id, target, at);
      await append({ actor, action: 'eval.slo_saved', target: existing.id, detail: { ...detail, created: false, previous_target: existing.target } });
      return { created: false, row: { ...existing, target, updated_at: at } };
    });
    return { created: saved.created, slo: await this.sloToWire(saved.row, clock.now()) };
  }

  /** GET /api/eval/slos. */
  async listSlos(query: SloQuery): Promise<SloList> {
    const rows = await online.listSlos(this.ctx.store.db, { ...(query.agent === undefined ? {} : { agent: query.agent }), limit: SLO_LIMIT });
    const now = this.ctx.clock.now();
    const items: Slo[] = [];
    for (const row of rows) items.push(await this.sloToWire(row, now));
    return { items, next_cursor: null };
  }

  private async sloToWire(row: EvalSloRow, now: Date): Promise<Slo> {
    const { db } = this.ctx.store;
    const to = now.toISOString();
    const windowFrom = new Date(now.getTime() - row.window_days * DAY_MS).toISOString();
    const dayFrom = new Date(now.getTime() - DAY_MS).toISOString();
    const [window, day] = await Promise.all([
      online.windowAggregates(db, { agent: row.agent, scorer: row.scorer, from: windowFrom, to }),
      online.windowAggregates(db, { agent: row.agent, scorer: row.scorer, from: dayFrom, to }),
    ]);
    const target = Number(row.target);
    const measured = measureSlo(target, window.get(row.scorer) ?? EMPTY_WINDOW, day.get(row.scorer) ?? EMPTY_WINDOW);
    return {
      id: row.id,
      agent: row.agent,
      scorer: row.scorer,
      objective: 'pass_rate',
      window: `${row.window_days}d`,
      target,
      ...measured,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }
}

const percentOf = (rate: number | null) => (rate === null ? 'n/a' : `${(rate * 100).toFixed(1)}%`);
