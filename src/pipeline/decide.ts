// decide(): the one decision pipeline behind every entry point (guard routes, proxies, MCP,
// playground, simulation, red team). Identify the agent, gather facts, run the detectors for the
// surface under budget, evaluate every bound pack, assemble the Decision, then hand the record
// to the recorder (batched, after the answer). No HTTP here.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { DetectorRegistry } from '../detectors/registry.js';
import { UNTRUSTED_SURFACES, type Detection, type DetectorSettings, type Surface } from '../detectors/types.js';
import { findingsFor } from '../findings/raise.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { evaluate, type CallFacts, type FiredRule } from '../policy/evaluate.js';
import type { PolicyRegistry } from '../policy/registry.js';
import type { Mode, Verdict } from '../policy/schema.js';
import type { Recorder } from '../recording/recorder.js';
import type { DetectionCache } from './cache.js';
import { runDetectors, type DetectorRun, type DetectorStatus, type RunResult } from './runner.js';

/** What the pipeline knows of an agent; the agent registry provides it (default: nobody is registered). */
export interface AgentFacts {
  registered: boolean;
  declaredTools: readonly string[] | null;
  grants: ReadonlySet<string>;
}

export interface AgentDirectory {
  lookup(slug: string): AgentFacts;
}

export const EMPTY_DIRECTORY: AgentDirectory = {
  lookup: () => ({ registered: false, declaredTools: null, grants: new Set() }),
};

export interface GuardCall {
  agent: string;
  surface: Surface;
  content: string;
  taintSource?: string;
  provenance?: Record<string, string>;
  tool?: string;
  completion?: Record<string, unknown> | null;
  jsonSchema?: Record<string, unknown>;
  sessionId?: string;
  traceId?: string;
  environment?: string;
  intent?: string;
}

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
  };
  entities: string[];
  degraded: string[];
  /** The content with personal data masked or tokenized, when an enforcing rule says so. */
  transformed_content?: string;
}

export interface PipelineSettings {
  enforcementBudgetMs: number;
  detectorTimeoutMs: number;
  failMode: 'open' | 'closed';
  detectorSettings: DetectorSettings;
  recordContent: 'none' | 'redacted' | 'full';
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
  /** Called with every decision, after it is assembled (metrics). */
  observe?: (decision: Decision, surface: Surface, runs: readonly DetectorRun[], latencyMs: number) => void;
}

const FAIL_CLOSED: FiredRule = {
  rule_id: 'pipeline.fail_closed',
  pack: 'pipeline',
  effect: 'block',
  mode: 'enforce',
  message: 'A detector did not complete and the deployment or an enforcing pack fails closed.',
  detector_rule: false,
};

export class Pipeline {
  // Tokens for personal data are keyed per process: stable within a conversation, useless outside.
  private readonly tokenKey = randomBytes(32);
  private readonly storedByResult = new WeakMap<readonly Detection[], { sha256: string; redacted: () => string }>();

  constructor(private readonly deps: PipelineDeps) {}

  async decide(call: GuardCall): Promise<Decision> {
    const started = performance.now();
    const { policies, settings } = this.deps;
    const agent = this.deps.agents.lookup(call.agent);
    const run = await this.detect(call);

    const packs = policies.packs();
    const facts: CallFacts = {
      surface: call.surface,
      detections: run.detections,
      taint: taintOf(call),
      capability: capabilityOf(call, agent),
      completionFacts: call.completion ?? null,
      // Without a declared card (an unregistered sender) a message cannot be shown to match one.
      agentCardMismatch: call.surface === 'agent_message' && !agent.registered,
      degraded: run.degraded.length > 0,
      actionKinds: [],
      actionDestructive: false,
      budgetExceeded: false,
      loopDetected: false,
    };
    const evaluation = evaluate(packs, facts);
    let { verdict, effectiveVerdict, decisive } = evaluation;
    let mode = evaluation.mode;
    const fired = [...evaluation.fired];

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

    const decisionId = newId('dec');
    const views = fired.map(view);
    const decisiveView = decisive === null ? null : view(decisive);
    const decision: Decision = {
      decision_id: decisionId,
      verdict,
      effective_verdict: effectiveVerdict,
      mode,
      rules_fired: views,
      reason: reasonFor(decisive, verdict, effectiveVerdict),
      explanation: {
        decisive: decisiveView,
        detectors: run.runs.map(({ key, status, matched, ms, cached }) => ({ key, status, matched, ms, ...(cached ? { cached } : {}) })),
        dispute: { endpoint: 'POST /api/guardrails/feedback', decision_id: decisionId },
      },
      entities: [...new Set(run.detections.map((detection) => detection.entity))].sort(),
      degraded: run.degraded,
    };
    const transformed = this.transform(call.content, fired, run.detections);
    if (transformed !== null) decision.transformed_content = transformed;

    const latencyMs = performance.now() - started;
    this.record(call, agent, decision, fired, run.detections, run.runs, latencyMs);
    this.deps.observe?.(decision, call.surface, run.runs, latencyMs);
    return decision;
  }

  /**
   * Detections for the call's content: from the cache when the same text was checked on the same
   * surface by the same detectors (a check with its own JSON Schema is never cached), else by
   * running the detectors under budget.
   */
  private async detect(call: GuardCall): Promise<RunResult> {
    const { detectors, settings, cache } = this.deps;
    const forSurface = detectors.forSurface(call.surface);
    const cacheable = cache !== undefined && call.jsonSchema === undefined;
    if (cacheable) {
      const hit = cache.get(call.surface, call.content, forSurface);
      if (hit !== undefined) return { ...hit, runs: hit.runs.map(asCached) };
    }
    const run = await runDetectors(
      forSurface,
      call.content,
      { surface: call.surface, settings: settings.detectorSettings, ...(call.jsonSchema ? { jsonSchema: call.jsonSchema } : {}) },
      { budgetMs: settings.enforcementBudgetMs, defaultTimeoutMs: settings.detectorTimeoutMs },
    );
    detectors.note(run.runs);
    if (cacheable) cache.set(call.surface, call.content, forSurface, run);
    return run;
  }

  /** Masks or tokenizes personal data when an enforcing mask/tokenize rule fired. */
  private transform(content: string, fired: readonly FiredRule[], detections: readonly Detection[]): string | null {
    const rule = fired.find((item) => item.mode === 'enforce' && (item.effect === 'mask' || item.effect === 'tokenize'));
    if (rule === undefined) return null;
    const spans = nonOverlapping(detections.filter((detection) => detection.entity.startsWith('PII.')));
    if (spans.length === 0) return null;
    let output = '';
    let cursor = 0;
    for (const detection of spans) {
      output += content.slice(cursor, detection.start);
      const value = content.slice(detection.start, detection.end);
      output +=
        rule.effect === 'mask'
          ? `[${detection.entity}]`
          : `<${detection.entity}:${createHmac('sha256', this.tokenKey).update(value).digest('hex').slice(0, 12)}>`;
      cursor = detection.end;
    }
    return output + content.slice(cursor);
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
  ): void {
    const at = this.deps.clock.now().toISOString();
    const stored = this.storedContent(call.content, detections);
    const subject = agent.registered ? `agent:${call.agent}` : 'agent:None';
    const { recordContent } = this.deps.settings;
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
        content: recordContent === 'full' ? call.content : recordContent === 'redacted' ? stored.redacted() : null,
        session_id: call.sessionId ?? null,
        trace_id: call.traceId ?? null,
        environment: call.environment ?? null,
      },
      findings: findingsFor({ call, registered: agent.registered, subject, decision, fired, runs, at }),
    });
  }
}

const asCached = (run: DetectorRun): DetectorRun => ({ key: run.key, status: run.status, matched: run.matched, ms: 0, cached: true });

function view(rule: FiredRule): FiredRuleView {
  const result: FiredRuleView = { rule_id: rule.rule_id, pack: rule.pack, effect: rule.effect, mode: rule.mode, message: rule.message };
  if (rule.detection !== undefined) {
    result.entity = rule.detection.entity;
    result.score = Math.round(rule.detection.score * 1000) / 1000;
    if (rule.detection.detector !== undefined) result.detector = rule.detection.detector;
    result.span = { start: rule.detection.start, end: rule.detection.end };
  }
  return result;
}

function reasonFor(decisive: FiredRule | null, verdict: Verdict, effective: Verdict): string {
  if (decisive === null) return 'No rule matched; the call is allowed.';
  if (verdict === effective || decisive.mode === 'enforce') return decisive.message;
  return `Allowed because pack ${decisive.pack} is in observe; enforcing, it would ${effective}: ${decisive.message}`;
}

function taintOf(call: GuardCall): number {
  if (UNTRUSTED_SURFACES.includes(call.surface)) return 1;
  if (call.taintSource !== undefined && UNTRUSTED_SURFACES.includes(call.taintSource as Surface)) return 1;
  const origins = Object.values(call.provenance ?? {});
  return origins.some((origin) => UNTRUSTED_SURFACES.includes(origin as Surface)) ? 1 : 0;
}

function capabilityOf(call: GuardCall, agent: AgentFacts): Set<'denied' | 'granted' | 'not_declared'> {
  const outcome = new Set<'denied' | 'granted' | 'not_declared'>();
  if (call.surface !== 'tool_args' || call.tool === undefined) return outcome;
  outcome.add(agent.grants.has(call.tool) || agent.grants.has('*') ? 'granted' : 'denied');
  // Only a registered agent has a declaration to compare with (CONTRACT.md: `tool.not_declared`).
  if (agent.registered && !(agent.declaredTools ?? []).includes(call.tool)) outcome.add('not_declared');
  return outcome;
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

