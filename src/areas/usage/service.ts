// Runs of proxied model calls (spec 01 §2.6 agent_loop_stopped, budget_exhausted), free of any
// wire format: each proxy asks `beforeForward` before it sends a call upstream, tells `afterAnswer`
// what came back, and releases the call's hold when no answer came. Usage is counted per agent,
// model and UTC day in the database (one atomic upsert per call, `model_usage`). A daily call budget
// is taken call by call with one conditional update of a counter row (`agent_usage`); a daily cost
// budget is held the same way, by reserving each call's worst-case cost on a counter row before it
// is forwarded and settling it to the real cost after the answer, so every gateway process sharing
// the database sees the same counts. Loops are the same proposed tool call again and again in one
// run (the session), tracked like the guard's loop rule: in this process's memory, and in Redis
// when `redis_url` is set.
import { createHash } from 'node:crypto';
import { fingerprint } from '../../engine/findings/fingerprint.js';
import { findingType } from '../../engine/findings/catalog.js';
import { problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { WriteQueue } from '../../infra/lib/write-queue.js';
import type { Decision } from '../../engine/pipeline/decide.js';
import type { AgentDirectory, AgentLimits } from '../../engine/pipeline/agents.js';
import { LoopTracker, argumentDigest } from '../../engine/pipeline/runs.js';
import { SharedStateUnavailable, type SharedSessionState } from '../../engine/pipeline/shared-state.js';
import type { Recorder } from '../../engine/recording/recorder.js';
import type { Store } from '../../infra/store/db.js';
import { PriceTable, tokenCountsOf, type ModelPrice } from './prices.js';
import * as usage from './store.js';

/** A run stopped by the gateway: the proxy answers it as a refusal in its own wire format. */
export interface RunStop {
  kind: 'budget' | 'loop';
  /** The looping tool (loops only). */
  tool?: string;
  /** The text of the refusal. */
  reason: string;
  /** A recorded decision (verdict block) for the refusal's `parapet` field. */
  decision: Decision;
}

/** A tool call the model proposed, as the proxy read it from the answer. */
export interface ProposedCall {
  name: string;
  /** The arguments as sent (a JSON text) or already parsed. */
  arguments: unknown;
}

export interface AnswerFacts {
  agent: string;
  model: string;
  /** The hold `beforeForward` gave the call: its reserved cost is settled to the real cost. */
  hold?: CostHold;
  /** False for an answer cut short (a stream blocked, failed or left): its usage may be missing tokens. */
  complete?: boolean;
  /** The run: the session the proxy derived (X-Parapet-Session, body user, or a hash). */
  sessionId: string;
  /** The answer's `usage` in any proxied format (null when the upstream sent none). */
  usage: unknown;
  toolCalls: readonly ProposedCall[];
}

export interface RunGovernorDeps {
  store: Store;
  agents: AgentDirectory;
  recorder: Recorder;
  clock: Clock;
  prices: Readonly<Record<string, ModelPrice>>;
  /** Counting a forwarded call failed: logged, the answer still goes out (its budget may then undercount). */
  onError?: (error: unknown) => void;
  /** Loop windows shared by every gateway process (Redis); absent: this process's own. */
  sharedState?: SharedSessionState;
}

/** A call's reserved worst-case cost: settled by `afterAnswer`; `release` gives it back when the call got no answer. */
export interface CostHold {
  /** Gives the reservation back unless the call was settled (idempotent, never throws). */
  release(): Promise<void>;
}

/** What `beforeForward` says of a call: a refusal, or go ahead with the cost held for it. */
export interface Admission {
  stop: RunStop | null;
  hold: CostHold;
}

/** Agents without a cost budget reserve nothing. */
const NO_HOLD: CostHold = { release: async () => undefined };

/** A reservation on the agent's cost row for one day (the day it was made, whenever the answer comes). */
class CostReservation implements CostHold {
  private open = true;

  constructor(
    private readonly db: Store['db'],
    private readonly agent: string,
    private readonly day: string,
    /** USD reserved: the call's worst case. */
    readonly amount: number,
    private readonly onError: ((error: unknown) => void) | undefined,
  ) {}

  /**
   * Replaces the reservation by the real cost. An answer cut short, or without usage, keeps at
   * least its reservation: the upstream may have billed tokens the gateway did not see.
   */
  async settle(cost: number, known: boolean): Promise<void> {
    if (!this.open) return;
    this.open = false;
    const charged = known ? cost : Math.max(cost, this.amount);
    await this.adjust(charged - this.amount);
  }

  async release(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    await this.adjust(-this.amount);
  }

  private async adjust(delta: number): Promise<void> {
    try {
      await usage.adjustCost(this.db, this.agent, this.day, delta);
    } catch (error) {
      // The row keeps more than was spent: the budget errs on the side of refusing.
      this.onError?.(error);
    }
  }
}

/** How long counts of agents without a budget wait to be written together. */
const PENDING_FLUSH_MS = 200;

/** Model names come from callers: cut so that a row key stays bounded. */
const modelKey = (model: string): string => model.slice(0, 200);

export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

export class RunGovernor {
  readonly prices: PriceTable;
  private readonly loops = new LoopTracker();
  /**
   * Counts of agents without a daily budget wait here briefly and are written merged, so that a
   * busy proxy does not write once per call; an agent with a budget is written at once.
   */
  private readonly pending: WriteQueue<usage.UsageDelta>;

  constructor(private readonly deps: RunGovernorDeps) {
    this.prices = new PriceTable(deps.prices);
    this.pending = new WriteQueue((batch) => usage.addBatch(deps.store.db, batch), {
      flushMs: PENDING_FLUSH_MS,
      ...(deps.onError === undefined ? {} : { onError: deps.onError }),
    });
  }

  /** Writes the counts waiting in this process (GET /api/usage reads after it; shutdown calls it). */
  async flush(): Promise<void> {
    await this.pending.flush();
  }

  /**
   * Before a call goes upstream: refuses it when the agent's daily call or cost budget is used up,
   * records the refused call and raises budget_exhausted. A call budget is taken one call at a time
   * by an atomic conditional update (exact across processes and concurrent requests). A cost budget
   * reserves the call's worst-case cost (`PriceTable.worstCaseCostOf`: the request's size as input
   * tokens, its max tokens as output) while the day's spent plus reserved cost is under the budget,
   * with the same kind of update; the answer settles it to the real cost (`afterAnswer`), a call
   * without an answer releases it (`hold.release()`). So concurrent calls overshoot the budget by
   * at most the last admitted call. Agents without a daily budget cost nothing here.
   * @example const { stop, hold } = await runs.beforeForward(agent, body.model, sessionId, body); if (stop) return refuse(stop.reason, stop.decision);
   */
  async beforeForward(agent: string, model: string, sessionId?: string, request?: unknown): Promise<Admission> {
    const { maxCallsPerDay, maxCostUsdPerDay } = this.deps.agents.lookup(agent).limits;
    if (maxCallsPerDay === null && maxCostUsdPerDay === null) return { stop: null, hold: NO_HOLD };
    // Counts this process still holds would be missing from what the budget reads.
    await this.pending.flush();
    const now = this.deps.clock.now();
    const day = dayOf(now);
    const db = this.deps.store.db;
    let stop: { limit: 'calls_per_day' | 'cost_usd_per_day'; reason: string; evidence: Record<string, unknown> } | null = null;
    let hold: CostHold = NO_HOLD;
    try {
      // Cost first: a call refused for cost must not take one of the day's calls.
      if (maxCostUsdPerDay !== null) {
        const worstCase = this.prices.worstCaseCostOf(model, request);
        if (await usage.reserveCost(db, agent, day, worstCase, maxCostUsdPerDay)) hold = new CostReservation(db, agent, day, worstCase, this.deps.onError);
        else stop = await this.costStop(agent, day, maxCostUsdPerDay);
      }
      if (stop === null && maxCallsPerDay !== null && (await usage.reserveCall(db, agent, day, maxCallsPerDay)) === null) {
        // The call does not go: its cost reservation goes back.
        await hold.release();
        hold = NO_HOLD;
        stop = {
          limit: 'calls_per_day',
          reason: `Agent ${agent} has used its budget of ${maxCallsPerDay} model calls for ${day} (UTC); the call was not sent to the model.`,
          evidence: { limit: maxCallsPerDay, used: maxCallsPerDay },
        };
      }
    } catch (error) {
      // A budget that cannot be read is not known to have room: the call waits for the database.
      await hold.release();
      this.deps.onError?.(error);
      throw problem('unavailable', `the daily budget of agent ${agent} could not be read; try again`);
    }
    if (stop === null) return { stop: null, hold };
    this.noteRefused(agent, model);
    const decision = this.stopDecision(agent, sessionId, 'input', undefined, 'runs.budget_exhausted', 'The agent has used its daily model budget.', stop.reason, now, [
      {
        type: 'budget_exhausted',
        parts: [stop.limit, day],
        title: `Agent ${agent} used its ${stop.limit === 'calls_per_day' ? 'model call' : 'model cost'} budget for ${day}`,
        evidence: { ...stop.evidence, window: 'day', day, kind: stop.limit, model },
      },
    ]);
    return { stop: { kind: 'budget', reason: stop.reason, decision }, hold: NO_HOLD };
  }

  /** Why a call was refused for cost: what the day spent, and what calls in flight hold besides. */
  private async costStop(agent: string, day: string, limit: number): Promise<{ limit: 'cost_usd_per_day'; reason: string; evidence: Record<string, unknown> }> {
    const db = this.deps.store.db;
    const [{ costUsd }, charged] = await Promise.all([usage.dayTotals(db, agent, day), usage.chargedCost(db, agent, day)]);
    const spent = roundUsd(costUsd);
    const reserved = roundUsd(Math.max(0, (charged ?? costUsd) - costUsd));
    const inFlight = reserved > 0 ? `, ${reserved} USD more held for calls in flight or answers cut short` : '';
    return {
      limit: 'cost_usd_per_day',
      reason: `Agent ${agent} has used its budget of ${limit} USD of model cost for ${day} (UTC, ${spent} USD spent${inFlight}); the call was not sent to the model.`,
      evidence: { limit, used: spent, reserved },
    };
  }

  /**
   * After a forwarded call's answer: adds the call, its tokens and cost to the agent's usage (one
   * atomic upsert, awaited so that the next call's budget check sees it), then notes each proposed
   * tool call; the Nth identical proposal (same tool, same canonical arguments) within the agent's
   * loop window stops the run: the proxy answers a refusal instead, and agent_loop_stopped is raised.
   * The call's cost hold is settled first (see `beforeForward`).
   * @example const stop = await runs.afterAnswer({ agent, model, sessionId, hold, usage: completion.usage, toolCalls });
   */
  async afterAnswer(facts: AnswerFacts): Promise<RunStop | null> {
    const now = this.deps.clock.now();
    const tokens = tokenCountsOf(facts.usage) ?? { prompt_tokens: 0, completion_tokens: 0 };
    const cost = this.prices.costOf(facts.model, tokens);
    const delta: usage.UsageDelta = {
      agent: facts.agent,
      model: modelKey(facts.model),
      day: dayOf(now),
      calls: 1,
      blocked: 0,
      unpriced: cost === null ? 1 : 0,
      promptTokens: tokens.prompt_tokens,
      completionTokens: tokens.completion_tokens,
      costUsd: cost ?? 0,
    };
    // The cost row first, then the usage row: a reservation made between the two still finds the
    // call's cost on the cost row.
    if (facts.hold instanceof CostReservation) await facts.hold.settle(cost ?? 0, facts.complete !== false && tokenCountsOf(facts.usage) !== null);
    const { maxCallsPerDay, maxCostUsdPerDay } = this.deps.agents.lookup(facts.agent).limits;
    if (maxCallsPerDay === null && maxCostUsdPerDay === null && !(facts.hold instanceof CostReservation)) this.pending.push(delta);
    else {
      try {
        // Awaited: the agent's next call reads this cost before it is forwarded.
        await usage.addCalls(this.deps.store.db, delta);
      } catch (error) {
        // The upstream already answered and was paid for: losing the answer too would help no one.
        this.deps.onError?.(error);
      }
    }
    return await this.loopStop(facts.agent, facts.sessionId, facts.toolCalls, now);
  }

  /** A call answered without the upstream for another reason (a policy refusal): counted as blocked. */
  noteRefused(agent: string, model: string): void {
    // No tokens and no cost: no budget reads it, so it waits with the other pending counts.
    this.pending.push({
      agent,
      model: modelKey(model),
      day: dayOf(this.deps.clock.now()),
      calls: 1,
      blocked: 1,
      unpriced: 0,
      promptTokens: 0,
      completionTokens: 0,
      costUsd: 0,
    });
  }

  /**
   * One proposed call in its loop window: in the state every gateway process shares when it is
   * configured (a run's answers may go through different processes), else, or when it cannot be
   * reached, in this process's own.
   */
  private async noteLoop(agent: string, sessionId: string, tool: string, args: unknown, limits: AgentLimits, nowMs: number): Promise<{ loop: boolean; repeats: number }> {
    const local = this.loops.note(agent, sessionId, tool, args, limits, nowMs);
    const shared = this.deps.sharedState;
    if (shared === undefined) return local;
    try {
      const times = await shared.loop({ scope: 'proposed', agent, sessionId, tool, argumentsDigest: argumentDigest(args), windowMs: limits.loopWindowSeconds * 1000, keep: limits.loopThreshold * 2, nowMs });
      return { loop: times.length >= limits.loopThreshold, repeats: times.length };
    } catch (error) {
      if (!(error instanceof SharedStateUnavailable)) throw error;
      return local;
    }
  }

  /** Notes the proposed tool calls of one answer; the first that makes a loop stops the run. */
  async loopStop(agent: string, sessionId: string, toolCalls: readonly ProposedCall[], now: Date = this.deps.clock.now()): Promise<RunStop | null> {
    if (toolCalls.length === 0) return null;
    const limits = this.deps.agents.lookup(agent).limits;
    let looping: { name: string; repeats: number } | null = null;
    for (const call of toolCalls) {
      const { loop, repeats } = await this.noteLoop(agent, sessionId, call.name, parsedArguments(call.arguments), limits, now.getTime());
      if (loop && looping === null) looping = { name: call.name, repeats };
    }
    if (looping === null) return null;
    const reason =
      `The run was stopped as a loop: the model proposed ${looping.name} with the same arguments ${looping.repeats} times within ` +
      `${limits.loopWindowSeconds} s (loop_threshold ${limits.loopThreshold}). The tool call was not passed on.`;
    const decision = this.stopDecision(agent, sessionId, 'tool_args', looping.name, 'runs.loop_stopped', 'The model proposes the same tool call in a loop.', reason, now, [
      {
        type: 'agent_loop_stopped',
        parts: [sessionId, looping.name],
        title: `Looping run of ${agent} stopped at ${looping.name}`,
        evidence: { session_id: sessionId, tool: looping.name, repeats: looping.repeats, loop_threshold: limits.loopThreshold, loop_window_seconds: limits.loopWindowSeconds },
      },
    ]);
    return { kind: 'loop', tool: looping.name, reason, decision };
  }

  /** A block decision of the gateway's own, recorded as a trace with its findings. */
  private stopDecision(
    agent: string,
    sessionId: string | undefined,
    surface: 'input' | 'tool_args',
    tool: string | undefined,
    ruleId: string,
    message: string,
    reason: string,
    now: Date,
    findings: Array<{ type: string; parts: string[]; title: string; evidence: Record<string, unknown> }>,
  ): Decision {
    const facts = this.deps.agents.lookup(agent);
    const subject = facts.registered ? `agent:${agent}` : 'agent:None';
    const rule = { rule_id: ruleId, pack: 'runs', effect: 'block', mode: 'enforce' as const, message };
    const decision: Decision = {
      decision_id: newId('dec'),
      verdict: 'block',
      effective_verdict: 'block',
      mode: 'enforce',
      rules_fired: [rule],
      reason,
      explanation: { decisive: rule, detectors: [], dispute: { endpoint: 'POST /api/guardrails/feedback', decision_id: '' } },
      entities: [],
      degraded: [],
    };
    decision.explanation.dispute.decision_id = decision.decision_id;
    const at = now.toISOString();
    this.deps.recorder.record({
      trace: {
        id: decision.decision_id,
        at,
        agent,
        subject,
        surface,
        tool: tool ?? null,
        verdict: 'block',
        effective_verdict: 'block',
        mode: 'enforce',
        rules: JSON.stringify(decision.rules_fired),
        entities: '[]',
        degraded: '[]',
        detectors: '[]',
        latency_ms: 0,
        // Nothing of the caller's content is recorded: the refusal is about counts, not text.
        content_sha256: EMPTY_SHA256,
        content_length: 0,
        content: null,
        session_id: sessionId ?? null,
        trace_id: null,
        environment: null,
        facts: null,
        canary: null,
      },
      findings: findings.map((finding) => ({
        fingerprint: fingerprint(finding.type, subject, [agent, ...finding.parts]),
        type: finding.type,
        severity: findingType(finding.type).default_severity,
        title: finding.title,
        subject,
        agent: facts.registered ? agent : null,
        at,
        evidence: { ...finding.evidence, agent, decision_id: decision.decision_id },
        decisionId: decision.decision_id,
      })),
    });
    return decision;
  }
}

const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

const roundUsd = (value: number): number => Math.round(value * 1_000_000) / 1_000_000;

/** Arguments compared as canonical JSON: a text that parses is compared by value, key order aside. */
function parsedArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
