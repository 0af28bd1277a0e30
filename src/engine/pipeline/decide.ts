// decide(): the one decision pipeline behind every entry point (guard routes, proxies, MCP,
// playground, simulation, red team). Identify the agent, gather facts, run the detectors for the
// surface under budget, evaluate every bound pack, assemble the Decision, then hand the record
// to the recorder (batched, after the answer). No HTTP here.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { DetectorRegistry } from '../detectors/registry.js';
import { UNTRUSTED_SURFACES, type Detection, type DetectorRun, type DetectorSettings, type DetectorStatus, type Surface } from '../detectors/types.js';
import { findingsFor } from './findings.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { TraceSpan } from '../../infra/lib/trace-span.js';
import { evaluate, strongest, type CallFacts, type CompiledPack, type FiredRule } from '../policy/evaluate.js';
import { storeFacts } from '../policy/facts.js';
import type { PolicyRegistry } from '../policy/registry.js';
import type { BlastRadius, Mode, Verdict } from '../policy/schema.js';
import type { FindingUpsert, Recorder } from '../recording/recorder.js';
import { matchProtection } from './protection-match.js';
import { analyseAction, type ActionFacts } from './actions/index.js';
import { taintName, type AgentDirectory, type AgentFacts, type AgentLimits } from './agents.js';
import type { DetectionCache } from './cache.js';
import { actionsOf, allowedHosts, checkCapability, grantFor, type CapabilityCheck } from './capability.js';
import { runDetectors, type BudgetScaling, type RunResult } from './runner.js';
import type { RequestBudget } from './request-budget.js';
import { LoopTracker, argumentDigest, hourWindow, type UsageCounter } from './runs.js';
import { SessionTaint, TAINT_HOSTILE, TAINT_UNTRUSTED, originLevel, taintFrom, type ArgumentTaint, type Remembered } from './taint.js';
import { CrescendoTracker, drift as driftOf, driftDetection, turnRisk, type TrajectoryDrift } from './crescendo.js';
import { SHARED_STATE_DEGRADED, SharedStateUnavailable, type SharedSessionState } from './shared-state.js';

export { EMPTY_DIRECTORY, type AgentDirectory, type AgentFacts } from './agents.js';

export interface GuardCall {
  agent: string;
  surface: Surface;
  content: string;
  taintSource?: string;
  provenance?: Record<string, string>;
  tool?: string;
  /** A tool call's arguments as sent (content is their JSON). */
  arguments?: Record<string, unknown>;
  priorTools?: readonly string[];
  priorSteps?: readonly unknown[];
  /** An approval a person gave for this exact call (same agent, tool and arguments); used once. */
  approvalId?: string;
  completion?: Record<string, unknown> | null;
  jsonSchema?: Record<string, unknown>;
  /**
   * Evidence supplied with the call (the guard bodies' `context` array): a grounded record, retrieved
   * chunks with their sources, the user's entitlements. Detectors that check an answer against it
   * read it from their DetectContext; a call with context is never answered from the detection cache.
   */
  context?: readonly unknown[];
  sessionId?: string;
  traceId?: string;
  environment?: string;
  intent?: string;
  /** agent_message: the recipient and what the signature check found. */
  recipient?: string;
  signature?: SignatureStatus;
  /** MCP calls (src/mcp): the server and tool, and whether the tool drifted from its pin or is unregistered. */
  mcp?: McpCallFacts;
  /**
   * The detector time all checks of one governed call share (request_budget_ms); absent: a single
   * check, bound by enforcement_budget_ms alone.
   */
  requestBudget?: RequestBudget;
  /**
   * The span the decision is traced under (the route's server span); absent, tracing is off and
   * the pipeline makes no span. Inside the pipeline it is the decision's own span.
   */
  span?: TraceSpan;
}

/** What the MCP registry says of the tool an MCP call names (`mcp_tool` condition). */
export interface McpCallFacts {
  server: string;
  tool: string;
  /** drifted: listed but not as reviewed (changed, new or removed); undeclared: not registered; null: pinned. */
  fact: 'drifted' | 'undeclared' | null;
  /** The registry status of the tool (pinned, changed, new, removed), null when unregistered. */
  status: string | null;
}

/** What the signature check of an inter-agent message found (see src/messages). */
export type SignatureStatus = 'valid' | 'unsigned' | 'no_key' | 'bad_signature' | 'stale' | 'replayed' | 'incomplete';

export interface FiredRuleView {
  rule_id: string;
  pack: string;
  effect: string;
  mode: Mode;
  message: string;
  entity?: string;
  score?: number;
  detector?: string;
  span?: { start: number; end: number };
  /** The approval that satisfied this escalation. */
  approved_by?: string;
}

/** Facts besides detections that took part in a tool call's decision. */
export interface ToolCallFacts {
  taint: { level: 'trusted' | 'untrusted' | 'hostile'; sources: Record<string, string> };
  capability: { outcomes: string[]; grant_id: string | null; problems: string[] };
  action: { kinds: string[]; destructive: boolean; blast_radius: BlastRadius; unanalysable: string[]; escalation: { chain: string[]; reason: string } | null; findings: Array<{ kind: string; argument: string; radius: string; reason: string }> } | null;
  loop: { detected: boolean; repeats: number };
  budget: { exceeded: boolean; used: number | null; limit: number | null };
  approval?: { id: string; outcome: 'used' | 'not_valid'; why?: string };
}

export interface Decision {
  decision_id: string;
  verdict: Verdict;
  effective_verdict: Verdict;
  mode: Mode;
  rules_fired: FiredRuleView[];
  reason: string;
  explanation: {
    decisive: FiredRuleView | null;
    /** `cached`: the result of an earlier run on the same text; `ms` is then 0. */
    detectors: Array<{ key: string; status: DetectorStatus; matched: boolean; ms: number; cached?: boolean }>;
    dispute: { endpoint: string; decision_id: string };
    tool_call?: ToolCallFacts;
    /** Conversation-level risk signals (spec 01 §2.5); present only when one is raised. */
    action_risk?: TrajectoryDrift[];
  };
  entities: string[];
  degraded: string[];
  /** The content with personal data masked or tokenized, when an enforcing rule says so. */
  transformed_content?: string;
  /** The approval a held tool call waits for (verdict escalate). */
  approval_id?: string;
}

export interface PipelineSettings {
  enforcementBudgetMs: number;
  detectorTimeoutMs: number;
  /** How timeouts and budget grow with large texts, and the ceiling; absent: fixed (tests). */
  scaling?: BudgetScaling;
  failMode: 'open' | 'closed';
  detectorSettings: DetectorSettings;
  recordContent: 'none' | 'redacted' | 'full';
}

/** Approvals for held tool calls (src/approvals). */
export interface ApprovalGate {
  /** Creates a pending approval for a held call; returns its id. */
  hold(input: { agent: string; tool: string; argumentsDigest: string; arguments: string; decisionId: string; rules: string[]; reason: string }): Promise<string>;
  /** Uses an approved approval once for the same agent, tool and arguments; says why not otherwise. */
  use(input: { approvalId: string; agent: string; tool: string; argumentsDigest: string; decisionId: string }): Promise<{ ok: true } | { ok: false; why: string }>;
}

/**
 * Open hand-offs to people (src/areas/escalation), held in memory: no I/O, this is the hot path.
 * While an agent's session has an open enforce-mode hand-off, its output checks answer escalate.
 */
export interface HandoffDirectory {
  openFor(agent: string, sessionId: string): { id: string; reason: string } | undefined;
}

export interface PipelineDeps {
  detectors: DetectorRegistry;
  policies: PolicyRegistry;
  agents: AgentDirectory;
  recorder: Recorder;
  clock: Clock;
  settings: PipelineSettings;
  /** Detections by exact content; absent or disabled: every check runs the detectors. */
  cache?: DetectionCache;
  approvals?: ApprovalGate;
  /** Per-agent call counts across processes; absent: hourly limits are not enforced. */
  usage?: UsageCounter;
  /** Called with every decision, after it is assembled (metrics). */
  observe?: (decision: Decision, surface: Surface, runs: readonly DetectorRun[], latencyMs: number) => void;
  /** Drops findings a guardrail suppression covers (src/feedback/filter.ts); absent: every finding is recorded. */
  suppressions?: { filter(findings: FindingUpsert[], context: { agent: string; contentSha256: string }): FindingUpsert[] };
  /** Escalation hand-offs (issue 21); absent: output checks never escalate for a hand-off. */
  handoffs?: HandoffDirectory;
  /** Session taint, turns and loop windows shared by every gateway process (Redis); absent: this process's own. */
  sharedState?: SharedSessionState;
}

/**
 * A decision taken to try something out (evaluations, red team, playground): the same detectors and
 * policy evaluation, optionally against another set of packs, with no side effect on live state:
 * nothing is recorded, no finding raised, no approval held or used, no session, loop, budget or
 * metric counts the call.
 */
export interface TrialOptions {
  /** The compiled packs to evaluate instead of those bound to the agent (PolicyRegistry.replay). */
  packs?: readonly CompiledPack[];
}

const FAIL_CLOSED: FiredRule = {
  rule_id: 'pipeline.fail_closed',
  pack: 'pipeline',
  effect: 'block',
  mode: 'enforce',
  message: 'A detector did not complete and the deployment or an enforcing pack fails closed.',
  detector_rule: false,
};

/** Surfaces whose calls act on the world: a quarantined agent may still talk, not act. */
const ACTING_SURFACES: ReadonlySet<Surface> = new Set(['tool_args', 'memory_write', 'agent_message']);
/** An injection at this score in untrusted content makes the values taken from it hostile. */
const HOSTILE_SCORE = 0.6;

/** What the trace keeps of the policy side of a call: the facts evaluated and the canary cohort. */
interface PolicyRecord {
  facts: CallFacts | null;
  /** `key@version` of the canary candidate that decided the call, if any. */
  canary: string | null;
  /** Session drift raised by this call (crescendo.ts); its detection is in `facts`. */
  drift?: TrajectoryDrift;
}

export class Pipeline {
  // Tokens for personal data are keyed per process: stable within a conversation, useless outside.
  private readonly tokenKey = randomBytes(32);
  private readonly storedByResult = new WeakMap<readonly Detection[], { sha256: string; redacted: () => string }>();
  private readonly sessions = new SessionTaint();
  private readonly crescendo = new CrescendoTracker();
  private readonly loops = new LoopTracker();

  constructor(private readonly deps: PipelineDeps) {}

  async decide(call: GuardCall): Promise<Decision> {
    return (await this.decideAndRecord(call)).decision;
  }

  /**
   * The Decision plus what was recorded of the content (its digest, and the content as
   * `record_content` allows), for callers that keep their own records (memory entries, agent
   * messages).
   */
  async decideAndRecord(call: GuardCall): Promise<Decided> {
    return this.run(call, null);
  }

  /** A decision with no side effect on live state (TrialOptions); the one pipeline all the same. */
  async trial(call: GuardCall, options: TrialOptions = {}): Promise<Decision> {
    // A trial joins no conversation: session taint and drift would otherwise carry over into live calls.
    const { sessionId: _session, approvalId: _approval, ...isolated } = call;
    return (await this.run(isolated, options)).decision;
  }

  /** Not async: an untraced call (tracing off) gets no extra promise on its way. */
  private run(call: GuardCall, trial: TrialOptions | null): Promise<Decided> {
    return call.span === undefined ? this.decideCall(call, trial) : this.tracedDecision(call, call.span, trial);
  }

  /** The decision under its own span: ids, verdict and rule ids, never content. */
  private async tracedDecision(call: GuardCall, parent: TraceSpan, trial: TrialOptions | null): Promise<Decided> {
    const span = parent.child('parapet.decide', { 'parapet.agent': call.agent, 'parapet.surface': call.surface, 'parapet.trial': trial !== null, ...(call.tool === undefined ? {} : { 'parapet.tool': call.tool }) });
    try {
      const decided = await this.decideCall({ ...call, span }, trial);
      const { decision } = decided;
      span.set({
        'parapet.decision_id': decision.decision_id,
        'parapet.verdict': decision.verdict,
        'parapet.effective_verdict': decision.effective_verdict,
        'parapet.mode': decision.mode,
        'parapet.rules': decision.rules_fired.map((rule) => rule.rule_id),
        'parapet.degraded': decision.degraded,
      });
      return decided;
    } catch (error) {
      span.fail(error instanceof Error ? error.name : 'error');
      throw error;
    } finally {
      span.end();
    }
  }

  private async decideCall(call: GuardCall, trial: TrialOptions | null): Promise<Decided> {
    const started = performance.now();
    const { policies, settings, agents: directory } = this.deps;
    const agent = directory.lookup(call.agent);
    if (trial === null) directory.observe?.(call.agent, call.tool === undefined ? {} : { tool: call.tool });
    const stop = stoppedRule(agent, call.surface);
    if (stop !== null) return this.finish(call, agent, emptyRun(), [stop], { verdict: 'block', effective: 'block', decisive: stop, mode: 'enforce' }, started, null, newId('dec'), { facts: null, canary: null }, trial);

    const tool = call.tool === undefined ? undefined : directory.tool?.(call.tool);
    const schemaCall = call.jsonSchema === undefined && tool !== undefined && tool.jsonSchema !== null ? { ...call, jsonSchema: tool.jsonSchema } : call;
    let run = await this.detect(schemaCall);
    const nowMs = this.deps.clock.now().getTime();
    const noted = call.sessionId === undefined ? null : this.noteSession(call, call.sessionId, run, nowMs);
    const sessionState = noted instanceof Promise ? await noted : noted;
    if (sessionState?.degraded === true) run = degradedRun(run);
    const drift = sessionState?.drift ?? null;
    const toolFacts = call.surface === 'tool_args' && call.tool !== undefined ? await this.toolCallFacts(call, call.tool, agent, nowMs, trial !== null) : null;
    if (toolFacts?.sharedStateDegraded === true) run = degradedRun(run);

    const live = trial?.packs === undefined ? policies.packsFor({ agent: call.agent, team: agent.team, environment: call.environment ?? agent.environment, session: call.sessionId ?? null }) : null;
    const packs = live?.packs ?? (trial?.packs as readonly CompiledPack[]);
    const canary = live?.canary ?? null;
    const facts: CallFacts = {
      surface: call.surface,
      detections: drift === null ? run.detections : [...run.detections, driftDetection(drift)],
      taint: toolFacts?.taintLevel ?? contentTaint(call),
      capability: toolFacts?.capability.outcomes ?? new Set(),
      completionFacts: call.completion ?? null,
      agentCardMismatch: call.surface === 'agent_message' && cardMismatch(call, agent, run.detections, directory),
      degraded: run.degraded.length > 0,
      contentTooLarge: run.contentTooLarge !== undefined,
      actionKinds: toolFacts?.action?.kinds ?? [],
      actionDestructive: toolFacts?.action?.destructive ?? false,
      actionBlastRadius: toolFacts?.action?.blastRadius ?? 'none',
      actionEscalation: (toolFacts?.action?.escalation ?? null) !== null,
      actionUnanalysable: (toolFacts?.action?.unanalysable.length ?? 0) > 0,
      budgetExceeded: toolFacts?.budget.exceeded ?? false,
      loopDetected: toolFacts?.loop.detected ?? false,
      signature: call.signature ?? null,
      mcpTool: call.mcp?.fact ?? null,
      agent: call.agent,
      tool: call.tool ?? null,
      args: call.surface === 'tool_args' ? (toolFacts?.args ?? call.arguments ?? null) : null,
    };
    const policySpan = call.span?.child('parapet.policy', { 'parapet.packs': packs.map((pack) => `${pack.key}@${pack.version}`) });
    const evaluation = evaluate(packs, facts);
    if (policySpan !== undefined) {
      policySpan.set({ 'parapet.rules': evaluation.fired.map((rule) => rule.rule_id), 'parapet.verdict': evaluation.verdict, 'parapet.effective_verdict': evaluation.effectiveVerdict });
      policySpan.end();
    }
    let { verdict, effectiveVerdict, decisive } = evaluation;
    let mode = evaluation.mode;
    const fired = [...evaluation.fired];
    const protectionRule = protectedTerm(agent, call);
    if (protectionRule !== null) {
      fired.push(protectionRule);
      verdict = 'block';
      effectiveVerdict = 'block';
      decisive = protectionRule;
      mode = 'enforce';
    }

    if (facts.degraded) {
      const enforcing = packs.some((pack) => pack.mode === 'enforce');
      const packClosed = packs.some(
        (pack) =>
          pack.mode === 'enforce' &&
          pack.failMode === 'closed' &&
          (pack.detectionSurfaces === 'all' || pack.detectionSurfaces.has(call.surface)),
      );
      if (enforcing && (settings.failMode === 'closed' || packClosed)) {
        fired.push(FAIL_CLOSED);
        verdict = 'block';
        effectiveVerdict = 'block';
        decisive = FAIL_CLOSED;
        mode = 'enforce';
      }
    }

    // An open enforce-mode hand-off of this session: the agent's answer goes to a person instead.
    // Trials carry no session, so they never see one; a block stays a block.
    const handoff = call.surface === 'output' && call.sessionId !== undefined ? this.deps.handoffs?.openFor(call.agent, call.sessionId) : undefined;
    if (handoff !== undefined) {
      const rule = handoffRule(handoff);
      fired.push(rule);
      if (verdict !== 'block') {
        verdict = 'escalate';
        decisive = rule;
        mode = 'enforce';
      }
      if (effectiveVerdict !== 'block') effectiveVerdict = 'escalate';
    }

    const outcome = { verdict, effective: effectiveVerdict, decisive, mode };
    const decisionId = newId('dec');
    if (toolFacts !== null && trial === null) await this.applyApproval(call, toolFacts, fired, outcome, decisionId);
    return this.finish(call, agent, run, fired, outcome, started, toolFacts, decisionId, { facts, canary, ...(drift === null ? {} : { drift }) }, trial);
  }

  /**
   * What a check of a session adds to it: untrusted content to recognise in later tool arguments,
   * and an input turn's risk for crescendo (drift is one more detection). Kept in this process and,
   * when configured, in the shared state in one round trip; where that fails, this process's own
   * view decides and the decision is degraded.
   */
  private noteSession(call: GuardCall, sessionId: string, run: RunResult, nowMs: number): SessionNote | Promise<SessionNote> {
    let remembered: Remembered | undefined;
    if (untrustedContent(call)) {
      const hostile = run.detections.some((d) => d.entity.startsWith('INJECTION.') && d.score >= HOSTILE_SCORE);
      remembered = this.sessions.remember(call.agent, sessionId, call.surface, call.content, hostile, nowMs);
    }
    const risk = call.surface === 'input' ? turnRisk(run.detections) : undefined;
    const drift = risk === undefined ? null : this.crescendo.note(call.agent, sessionId, risk, nowMs);
    const shared = this.deps.sharedState;
    // Nothing to share, or nowhere to share it: no promise on the way.
    if (shared === undefined || (remembered === undefined && risk === undefined)) return { drift, degraded: false };
    return shared.note(call.agent, sessionId, { ...(remembered === undefined ? {} : { remember: remembered }), ...(risk === undefined ? {} : { risk }) }).then(
      (risks) => ({ drift: risks === null ? drift : driftOf(risks), degraded: false }),
      (error: unknown) => {
        if (!(error instanceof SharedStateUnavailable)) throw error;
        return { drift, degraded: true };
      },
    );
  }

  /** Taint, capability, action analysis, loop and budget state of one tool call. */
  private async toolCallFacts(call: GuardCall, tool: string, agent: AgentFacts, nowMs: number, trial = false): Promise<GatheredToolFacts> {
    const args = call.arguments ?? {};
    const shared = trial || this.deps.sharedState === undefined ? undefined : await this.sharedToolState(this.deps.sharedState, call, tool, args, agent.limits, nowMs);
    const taint = this.argumentTaint(call, args, nowMs, shared?.remembered);
    const grant = grantFor(agent, tool);
    const action = analyseAction({
      tool,
      arguments: args,
      ...(call.priorTools === undefined ? {} : { priorTools: call.priorTools }),
      ...(call.priorSteps === undefined ? {} : { priorSteps: call.priorSteps }),
      knownHosts: allowedHosts(grant),
    });
    const capability = checkCapability({ agent, tool, args, actions: actionsOf(action.kinds), taint: taint.level });
    const local = trial ? { loop: false, repeats: 0 } : this.loops.note(call.agent, call.sessionId, tool, args, agent.limits, nowMs);
    const loop = shared?.times === undefined ? local : { loop: shared.times.length >= agent.limits.loopThreshold, repeats: shared.times.length };
    const budget = { exceeded: false, used: null as number | null, limit: agent.limits.maxToolCallsPerHour };
    if (budget.limit !== null && this.deps.usage !== undefined && !trial) {
      budget.used = await this.deps.usage.increment(call.agent, hourWindow(new Date(nowMs)));
      budget.exceeded = budget.used > budget.limit;
    }
    return { taintLevel: taint.level, taint, capability, action, loop: { detected: loop.loop, repeats: loop.repeats }, budget, args, sharedStateDegraded: shared?.degraded === true };
  }

  /** The session's remembered content and this call's loop window from the shared state, in one round trip. */
  private async sharedToolState(
    shared: SharedSessionState,
    call: GuardCall,
    tool: string,
    args: Record<string, unknown>,
    limits: AgentLimits,
    nowMs: number,
  ): Promise<{ remembered?: Remembered[]; times?: number[]; degraded: boolean }> {
    try {
      const { remembered, times } = await shared.toolCall({
        scope: 'guard',
        agent: call.agent,
        sessionId: call.sessionId,
        tool,
        argumentsDigest: argumentDigest(args),
        windowMs: limits.loopWindowSeconds * 1000,
        keep: limits.loopThreshold * 2,
        nowMs,
      });
      return { remembered, times, degraded: false };
    } catch (error) {
      if (!(error instanceof SharedStateUnavailable)) throw error;
      return { degraded: true };
    }
  }

  /** Explicit provenance and taint_source first, then values recognised from the session's untrusted content. */
  private argumentTaint(call: GuardCall, args: Record<string, unknown>, nowMs: number, shared: readonly Remembered[] | undefined): ArgumentTaint {
    const result: ArgumentTaint = { sources: {}, level: 0 };
    for (const [name, origin] of Object.entries(call.provenance ?? {})) {
      const level = originLevel(origin);
      if (level === 0) continue;
      result.sources[name] = origin;
      result.level = Math.max(result.level, level);
    }
    const declared = originLevel(call.taintSource);
    if (declared > 0) {
      result.sources['*'] = call.taintSource as string;
      result.level = Math.max(result.level, declared);
    }
    // The shared copy holds every process's view of the session; this process's own is the fallback.
    const seen =
      shared !== undefined
        ? taintFrom(shared, args)
        : call.sessionId !== undefined && this.sessions.has(call.agent, call.sessionId, nowMs)
          ? this.sessions.arguments(call.agent, call.sessionId, args, nowMs)
          : null;
    if (seen !== null) {
      for (const [path, source] of Object.entries(seen.sources)) result.sources[path] ??= source;
      result.level = Math.max(result.level, seen.level);
    }
    return result;
  }

  /**
   * A held call that carries the id of an approved approval for the same agent, tool and arguments
   * goes through once: its escalations are satisfied. A call that policy blocks anyway does not
   * use the approval up.
   */
  private async applyApproval(call: GuardCall, facts: GatheredToolFacts, fired: FiredRule[], outcome: Outcome, decisionId: string): Promise<void> {
    const gate = this.deps.approvals;
    if (call.approvalId === undefined || gate === undefined) return;
    const escalations = fired.filter((rule) => rule.effect === 'escalate');
    const rest = fired.filter((rule) => rule.effect !== 'escalate');
    if (escalations.length === 0) {
      facts.approval = { id: call.approvalId, outcome: 'not_valid', why: 'the call needs no approval' };
      return;
    }
    const without = strongest(rest);
    if (without.verdict === 'block') {
      facts.approval = { id: call.approvalId, outcome: 'not_valid', why: 'the call is blocked whatever the approval' };
      return;
    }
    const used = await gate.use({
      approvalId: call.approvalId,
      agent: call.agent,
      tool: call.tool as string,
      argumentsDigest: argumentDigest(facts.args),
      decisionId,
    });
    if (!used.ok) {
      facts.approval = { id: call.approvalId, outcome: 'not_valid', why: used.why };
      return;
    }
    facts.approval = { id: call.approvalId, outcome: 'used' };
    for (const rule of escalations) rule.approved_by = call.approvalId;
    outcome.verdict = without.verdict;
    outcome.effective = without.effectiveVerdict;
    outcome.decisive = without.decisive;
    outcome.mode = without.decisive?.mode ?? outcome.mode;
  }

  /** Assembles the Decision, holds an escalated tool call for approval, and hands the record over. */
  private async finish(
    call: GuardCall,
    agent: AgentFacts,
    run: RunResult,
    fired: FiredRule[],
    outcome: Outcome,
    started: number,
    toolFacts: GatheredToolFacts | null = null,
    decisionId = newId('dec'),
    policy: PolicyRecord = { facts: null, canary: null },
    trial: TrialOptions | null = null,
  ): Promise<Decided> {
    const { verdict, effective, decisive, mode } = outcome;
    const views = fired.map(view);
    const decisiveView = decisive === null ? null : view(decisive);
    const decision: Decision = {
      decision_id: decisionId,
      verdict,
      effective_verdict: effective,
      mode,
      rules_fired: views,
      reason: reasonFor(decisive, verdict, effective, toolFacts),
      explanation: {
        decisive: decisiveView,
        detectors: run.runs.map(({ key, status, matched, ms, cached }) => ({ key, status, matched, ms, ...(cached ? { cached } : {}) })),
        dispute: { endpoint: 'POST /api/guardrails/feedback', decision_id: decisionId },
      },
      entities: [...new Set((policy.facts?.detections ?? run.detections).map((detection) => detection.entity))].sort(),
      degraded: run.degraded,
    };
    if (toolFacts !== null) decision.explanation.tool_call = toolCallView(toolFacts);
    if (policy.drift !== undefined) decision.explanation.action_risk = [policy.drift];
    const transformed = this.transform(call.content, fired, run.detections);
    if (transformed !== null) decision.transformed_content = transformed.text;
    if (verdict === 'escalate' && toolFacts !== null && this.deps.approvals !== undefined && trial === null) {
      decision.approval_id = await this.deps.approvals.hold({
        agent: call.agent,
        tool: call.tool as string,
        argumentsDigest: argumentDigest(toolFacts.args),
        arguments: this.storedContent(call.content, run.detections).redacted(),
        decisionId,
        rules: fired.filter((rule) => rule.effect === 'escalate' && rule.mode === 'enforce').map((rule) => rule.rule_id),
        reason: decision.reason,
      });
      decision.reason = `${decision.reason} Held for approval ${decision.approval_id}: a person approves it with POST /api/approvals/${decision.approval_id}/approve, then the same call with approval_id goes through once.`;
    }

    const latencyMs = performance.now() - started;
    if (trial !== null) return { decision, contentSha256: '', recordedContent: null, ...(transformed === null ? {} : { replacements: transformed.replacements }) };
    // Recording is an enqueue (the recorder writes in batches off the request path); its span also
    // covers the wait for room when the backlog is full.
    const recordSpan = call.span?.child('parapet.record');
    const recorded = this.record(call, agent, decision, fired, run.detections, run.runs, latencyMs, toolFacts, policy, run.contentTooLarge);
    this.deps.observe?.(decision, call.surface, run.runs, latencyMs);
    // The recorder's backlog is full (its database is slow or away): the answer waits for room
    // rather than a record being dropped or a crash losing more than the backlog's bound.
    const room = this.deps.recorder.room();
    recordSpan?.set({ 'parapet.record.waited': room !== undefined });
    if (room !== undefined) await room;
    recordSpan?.end();
    return { decision, ...recorded, ...(transformed === null ? {} : { replacements: transformed.replacements }) };
  }

  /**
   * Detections for the call's content: from the cache when the same text was checked on the same
   * surface by the same detectors (a check with its own JSON Schema is never cached), else by
   * running the detectors under budget.
   */
  private async detect(call: GuardCall): Promise<RunResult> {
    const { detectors, settings, cache } = this.deps;
    const forSurface = detectors.forSurface(call.surface);
    const cacheable = cache !== undefined && call.jsonSchema === undefined && call.context === undefined;
    if (cacheable) {
      const hit = cache.get(call.surface, cacheKey(call, forSurface), forSurface);
      if (hit !== undefined) {
        // Nothing ran: the span says so instead of one span per detector.
        call.span?.child('parapet.detect', { 'parapet.detect.cached': true, 'parapet.detector.keys': hit.runs.map((run) => run.key) }).end();
        return { ...hit, runs: hit.runs.map(asCached) };
      }
    }
    const span = call.span?.child('parapet.detect', { 'parapet.detect.cached': false });
    const limits = { budgetMs: settings.enforcementBudgetMs, defaultTimeoutMs: settings.detectorTimeoutMs, ...(settings.scaling === undefined ? {} : { scaling: settings.scaling }) };
    const context = {
      surface: call.surface,
      settings: settings.detectorSettings,
      ...(call.jsonSchema ? { jsonSchema: call.jsonSchema } : {}),
      ...(call.context === undefined ? {} : { evidence: call.context }),
      agent: call.agent,
    };
    const budget = call.requestBudget;
    if (budget !== undefined) budget.checkedChars += call.content.length;
    const run =
      budget === undefined
        ? await runDetectors(forSurface, call.content, context, limits, span)
        : await budget.spend(() =>
            runDetectors(forSurface, call.content, context, { ...limits, requestLeftMs: budget.leftMs(), callChars: budget.checkedChars }, span),
          );
    if (span !== undefined) {
      span.set({ 'parapet.degraded': run.degraded, 'parapet.content_too_large': run.contentTooLarge !== undefined });
      span.end();
    }
    if (run.requestBudgetSpent === true) budget?.exhaust();
    detectors.note(run.runs);
    if (cacheable) cache.set(call.surface, cacheKey(call, forSurface), forSurface, run);
    return run;
  }

  /** Masks or tokenizes personal data when an enforcing mask/tokenize rule fired. */
  private transform(content: string, fired: readonly FiredRule[], detections: readonly Detection[]): { text: string; replacements: Replacement[] } | null {
    const rule = fired.find((item) => item.mode === 'enforce' && (item.effect === 'mask' || item.effect === 'tokenize'));
    if (rule === undefined) return null;
    const spans = nonOverlapping(detections.filter((detection) => detection.entity.startsWith('PII.')));
    if (spans.length === 0) return null;
    let output = '';
    let cursor = 0;
    const replacements: Replacement[] = [];
    for (const detection of spans) {
      output += content.slice(cursor, detection.start);
      const value = content.slice(detection.start, detection.end);
      const replacement =
        rule.effect === 'mask'
          ? `[${detection.entity}]`
          : `<${detection.entity}:${createHmac('sha256', this.tokenKey).update(value).digest('hex').slice(0, 12)}>`;
      output += replacement;
      replacements.push({ start: detection.start, end: detection.end, replacement });
      cursor = detection.end;
    }
    return { text: output + content.slice(cursor), replacements };
  }

  /**
   * The content's digest and redacted form for the trace. A result from the detection cache is the
   * same object for every repeat of its text, so both are computed once per cached text.
   */
  private storedContent(content: string, detections: readonly Detection[]): { sha256: string; redacted: () => string } {
    const known = this.storedByResult.get(detections);
    if (known !== undefined) return known;
    let redacted: string | undefined;
    const stored = {
      sha256: createHash('sha256').update(content).digest('hex'),
      redacted: () => (redacted ??= redact(content, detections)),
    };
    this.storedByResult.set(detections, stored);
    return stored;
  }

  private record(
    call: GuardCall,
    agent: AgentFacts,
    decision: Decision,
    fired: readonly FiredRule[],
    detections: readonly Detection[],
    runs: readonly DetectorRun[],
    latencyMs: number,
    toolFacts: GatheredToolFacts | null,
    policy: PolicyRecord,
    contentTooLarge: RunResult['contentTooLarge'],
  ): { contentSha256: string; recordedContent: string | null } {
    const at = this.deps.clock.now().toISOString();
    const stored = this.storedContent(call.content, detections);
    const subject = agent.registered ? `agent:${call.agent}` : 'agent:None';
    const { recordContent } = this.deps.settings;
    const recordedContent = recordContent === 'full' ? call.content : recordContent === 'redacted' ? stored.redacted() : null;
    this.deps.recorder.record({
      trace: {
        id: decision.decision_id,
        at,
        agent: call.agent,
        subject,
        surface: call.surface,
        tool: call.tool ?? null,
        verdict: decision.verdict,
        effective_verdict: decision.effective_verdict,
        mode: decision.mode,
        rules: JSON.stringify(decision.rules_fired),
        entities: JSON.stringify(decision.entities),
        degraded: JSON.stringify(decision.degraded),
        detectors: JSON.stringify(decision.explanation.detectors),
        latency_ms: Math.round(latencyMs * 1000) / 1000,
        content_sha256: stored.sha256,
        content_length: call.content.length,
        content: recordedContent,
        session_id: call.sessionId ?? null,
        trace_id: call.traceId ?? null,
        environment: call.environment ?? null,
        facts: policy.facts === null ? null : storeFacts(policy.facts, recordContent === 'full' ? 'full' : 'scalars'),
        canary: policy.canary,
      },
      findings: this.suppress(call.agent, stored.sha256, findingsFor({
        call,
        registered: agent.registered,
        subject,
        decision,
        // A hand-off is tracked by the escalation area, not as a containment finding.
        fired: fired.filter((rule) => rule.rule_id !== HANDOFF_RULE_ID),
        runs,
        at,
        ...(contentTooLarge === undefined ? {} : { contentTooLarge }),
        ...(toolFacts === null
          ? {}
          : {
              toolCall: {
                taint: toolFacts.taint,
                undeclared: toolFacts.capability.outcomes.has('not_declared'),
                budget: toolFacts.budget,
                escalation: toolFacts.action.escalation?.reason ?? null,
              },
            }),
      })),
    });
    return { contentSha256: stored.sha256, recordedContent };
  }

  /** Hot path: the suppression filter looks only at this agent's suppressions and the global ones. */
  private suppress(agent: string, contentSha256: string, findings: FindingUpsert[]): FindingUpsert[] {
    return this.deps.suppressions === undefined || findings.length === 0 ? findings : this.deps.suppressions.filter(findings, { agent, contentSha256 });
  }
}

/** What a cached detection is kept under: the text, and the agent too when a detector's answer depends on it. */
const cacheKey = (call: GuardCall, detectors: readonly { agentScoped?: boolean }[]): string =>
  detectors.some((detector) => detector.agentScoped === true) ? `${call.agent}\u0000${call.content}` : call.content;

const asCached = (run: DetectorRun): DetectorRun => ({ key: run.key, status: run.status, matched: run.matched, ms: 0, cached: true });

function view(rule: FiredRule): FiredRuleView {
  const result: FiredRuleView = { rule_id: rule.rule_id, pack: rule.pack, effect: rule.effect, mode: rule.mode, message: rule.message };
  if (rule.detection !== undefined) {
    result.entity = rule.detection.entity;
    result.score = Math.round(rule.detection.score * 1000) / 1000;
    if (rule.detection.detector !== undefined) result.detector = rule.detection.detector;
    result.span = { start: rule.detection.start, end: rule.detection.end };
  }
  if (rule.approved_by !== undefined) result.approved_by = rule.approved_by;
  return result;
}

function reasonFor(decisive: FiredRule | null, verdict: Verdict, effective: Verdict, toolFacts: GatheredToolFacts | null): string {
  const approval = toolFacts?.approval;
  const approvalNote =
    approval === undefined ? '' : approval.outcome === 'used' ? ` Approval ${approval.id} was used for this call.` : ` Approval ${approval.id} was not used: ${approval.why ?? 'not valid'}.`;
  if (decisive === null) return `No rule matched; the call is allowed.${approvalNote}`;
  const problems = toolFacts !== null && decisive.rule_id.startsWith('capability.') && toolFacts.capability.problems.length > 0 ? ` (${toolFacts.capability.problems.join('; ')})` : '';
  if (verdict === 'block' && decisive.on_block !== undefined) return `${decisive.on_block}${approvalNote}`;
  const why = decisive.detection?.explainsVerdict === true && decisive.detection.explanation !== '' ? ` ${decisive.detection.explanation}` : '';
  if (verdict === effective || decisive.mode === 'enforce') return `${decisive.message}${why}${problems}${approvalNote}`;
  return `Allowed because pack ${decisive.pack} is in observe; enforcing, it would ${effective}: ${decisive.message}${problems}${approvalNote}`;
}

export interface Decided {
  decision: Decision;
  contentSha256: string;
  recordedContent: string | null;
  /**
   * The spans of the content that `transformed_content` replaced (offsets into the checked content),
   * so that a proxy can rewrite the parts of a wire message and restore tokens in the answer.
   */
  replacements?: Replacement[];
}

/** One masked or tokenized span: `content.slice(start, end)` became `replacement`. */
export interface Replacement {
  start: number;
  end: number;
  replacement: string;
}

interface Outcome {
  verdict: Verdict;
  effective: Verdict;
  decisive: FiredRule | null;
  mode: Mode;
}

/** What a check of a session added to it: the drift it shows, and whether the shared copy was out of reach. */
interface SessionNote {
  drift: TrajectoryDrift | null;
  degraded: boolean;
}

interface GatheredToolFacts {
  taintLevel: number;
  taint: ArgumentTaint;
  capability: CapabilityCheck;
  action: ActionFacts;
  loop: { detected: boolean; repeats: number };
  budget: { exceeded: boolean; used: number | null; limit: number | null };
  args: Record<string, unknown>;
  approval?: { id: string; outcome: 'used' | 'not_valid'; why?: string };
  /** The shared session state could not be read: this process's own view decided. */
  sharedStateDegraded: boolean;
}

function toolCallView(facts: GatheredToolFacts): ToolCallFacts {
  const { action } = facts;
  return {
    taint: { level: taintName(facts.taintLevel), sources: facts.taint.sources },
    capability: { outcomes: [...facts.capability.outcomes].sort(), grant_id: facts.capability.grant?.id ?? null, problems: facts.capability.problems },
    action: {
      kinds: action.kinds,
      destructive: action.destructive,
      blast_radius: action.blastRadius,
      unanalysable: action.unanalysable,
      escalation: action.escalation,
      findings: action.findings.map(({ kind, argument, radius, reason }) => ({ kind, argument, radius, reason })),
    },
    loop: facts.loop,
    budget: facts.budget,
    ...(facts.approval === undefined ? {} : { approval: facts.approval }),
  };
}

/** The kill switch blocks every call; quarantine blocks the calls that act (tools, memory, messages). */
function stoppedRule(agent: AgentFacts, surface: Surface): FiredRule | null {
  if (agent.control === 'killed') {
    return { rule_id: 'agent.killed', pack: 'agent-controls', effect: 'block', mode: 'enforce', message: 'The agent is stopped by the kill switch; an admin resumes it with POST /api/agents/{slug}/resume.', detector_rule: false };
  }
  if (agent.control === 'quarantined' && ACTING_SURFACES.has(surface)) {
    return { rule_id: 'agent.quarantined', pack: 'agent-controls', effect: 'block', mode: 'enforce', message: 'The agent is quarantined: it may not call tools, write memory or message other agents until an admin resumes it.', detector_rule: false };
  }
  return null;
}

const HANDOFF_RULE_ID = 'escalation.handoff';

/** The fired rule of an open enforce-mode hand-off: the application routes the user to a person. */
function handoffRule(handoff: { id: string; reason: string }): FiredRule {
  return {
    rule_id: HANDOFF_RULE_ID,
    pack: 'escalation',
    effect: 'escalate',
    mode: 'enforce',
    message: `The conversation is handed off to a person (hand-off ${handoff.id}: ${handoff.reason}); route the user to them.`,
    detector_rule: false,
  };
}

/** Surfaces an agent's protections (words and topics to avoid) apply to: what it is told and what it says. */
const PROTECTED_SURFACES: ReadonlySet<Surface> = new Set(['input', 'output']);

/** The operator's per-agent protections: a listed word or avoided topic in input or output blocks the call. */
function protectedTerm(agent: AgentFacts, call: GuardCall): FiredRule | null {
  if (agent.protection === null || !PROTECTED_SURFACES.has(call.surface)) return null;
  const match = matchProtection(agent.protection, call.content);
  if (match === null) return null;
  const what = match.kind === 'word' ? 'word' : 'topic';
  return {
    rule_id: match.kind === 'word' ? 'protection.word' : 'protection.avoid',
    pack: 'agent-protection',
    effect: 'block',
    mode: 'enforce',
    message: agent.protection.message ?? `The agent's protections do not allow the ${what} "${match.term}".`,
    detection: { entity: 'PROTECTION.TERM', score: 1, start: match.start, end: match.end, explanation: `${what} "${match.term}"`, detector: 'agent-protection' },
    detector_rule: false,
  };
}

/** The run with the shared state listed among what did not complete (a copy: a cached run is shared). */
function degradedRun(run: RunResult): RunResult {
  return run.degraded.includes(SHARED_STATE_DEGRADED) ? run : { ...run, degraded: [...run.degraded, SHARED_STATE_DEGRADED] };
}

function emptyRun(): RunResult {
  return { detections: [], runs: [], degraded: [] };
}

function untrustedContent(call: GuardCall): boolean {
  return UNTRUSTED_SURFACES.includes(call.surface) || originLevel(call.taintSource) > 0;
}

/** Taint of content checked on a surface other than tool arguments. */
function contentTaint(call: GuardCall): number {
  let level = UNTRUSTED_SURFACES.includes(call.surface) ? TAINT_UNTRUSTED : originLevel(call.taintSource);
  for (const origin of Object.values(call.provenance ?? {})) level = Math.max(level, originLevel(origin));
  return Math.min(level, TAINT_HOSTILE);
}

/**
 * An inter-agent message matches its sender's declared card only when the sender is registered,
 * the recipient (if named) is a registered agent, and personal data travels only from a sender
 * that declares it handles personal data.
 */
function cardMismatch(call: GuardCall, sender: AgentFacts, detections: readonly Detection[], directory: AgentDirectory): boolean {
  if (!sender.registered) return true;
  if (call.recipient !== undefined && call.recipient !== '' && !directory.lookup(call.recipient).registered) return true;
  const carriesPersonalData = detections.some((detection) => detection.entity.startsWith('PII.'));
  return carriesPersonalData && !sender.dataClasses.some((dataClass) => /^(pii|personal|personal[_ ]data)$/i.test(dataClass));
}

function nonOverlapping(detections: readonly Detection[]): Detection[] {
  const sorted = [...detections].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Detection[] = [];
  let end = -1;
  for (const detection of sorted) {
    if (detection.start < end) continue;
    kept.push(detection);
    end = detection.end;
  }
  return kept;
}

/** The content with every detected span replaced by its entity type, for the trace. */
function redact(content: string, detections: readonly Detection[]): string {
  let output = '';
  let cursor = 0;
  for (const detection of nonOverlapping(detections)) {
    output += content.slice(cursor, detection.start) + `[${detection.entity}]`;
    cursor = detection.end;
  }
  return output + content.slice(cursor);
}

