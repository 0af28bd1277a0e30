// Turns one decision into the findings it raises (spec 01 §2.6): a finding is one problem, not one
// detection, identified by a fingerprint over its type, subject and identifying parts.
// Hot path: pure; the recorder writes the result in a batch.
import type { DetectorRun } from '../detectors/types.js';
import { findingType, type Severity } from '../findings/catalog.js';
import { fingerprint } from '../findings/fingerprint.js';
import type { FiredRule } from '../policy/evaluate.js';
import type { FindingUpsert } from '../recording/recorder.js';
import type { Decision, GuardCall } from './decide.js';

export interface RaiseContext {
  call: GuardCall;
  registered: boolean;
  subject: string;
  decision: Decision;
  fired: readonly FiredRule[];
  runs: readonly DetectorRun[];
  at: string;
  /** The content could not be checked in full within the detection ceiling. */
  contentTooLarge?: { chars: number; scannedChars: number; reason: 'size' | 'time' };
  /** Tool calls: where argument taint came from, and whether the tool is outside the declaration. */
  toolCall?: {
    taint: { level: number; sources: Record<string, string> };
    undeclared: boolean;
    budget: { exceeded: boolean; used: number | null; limit: number | null };
    /** Why earlier steps and this call compose an escalation, when they do. */
    escalation: string | null;
  };
}

/** Why a containment happened, in the words of spec 01 §2.6. */
const CONTAINMENT_CAUSE: Record<string, string> = {
  'capability.denied': 'no permission',
  'capability.action_denied': 'no permission',
  'capability.approval_required': 'approval required',
  'capability.taint_exceeded': 'untrusted data',
  'capability.constraint_violated': 'data scope',
  'taint.hostile_arguments': 'untrusted data',
  'action.destructive_total': 'destructive',
  'action.destructive_broad': 'blast radius',
  'action.broad_reach': 'blast radius',
  'action.unanalysable': 'fail closed',
  'action.privilege_escalation': 'composition',
  'runs.loop_detected': 'runaway',
  'runs.budget_exceeded': 'limit exceeded',
  'agent.killed': 'another policy rule',
  'agent.quarantined': 'another policy rule',
  'agent_message.signature': 'tamper',
  'protection.word': 'business rule',
  'protection.avoid': 'business rule',
  'tool.not_declared': 'unknown tool',
  'completion.unverified_claim': 'unverified completion',
  'pipeline.fail_closed': 'fail closed',
  'agent_message.agent_card_mismatch': 'another policy rule',
  'mcp.schema_drift': 'tamper',
  'mcp.undeclared_tool': 'unknown tool',
};

/**
 * Detections of the answer-integrity and disclosure detectors (src/engine/detectors/integrity)
 * raise their own finding types (spec 01 §2.6) rather than a guardrail detection.
 */
const ENTITY_FINDING: Record<string, string> = {
  'INTEGRITY.SYCOPHANCY': 'sycophancy',
  'INTEGRITY.CONTEXT_CONTRADICTION': 'context_integrity',
  'INTEGRITY.FABRICATED_CITATION': 'fabricated_citation',
  'INTEGRITY.SOURCE_CONFLICT': 'source_conflict',
  'INTEGRITY.SOURCE_AUTHORITY': 'source_authority',
  'INTEGRITY.EVIDENCE_MALFORMED': 'integrity_error',
  'INTEGRITY.TRAJECTORY_DRIFT': 'trajectory_drift',
  'DISCLOSURE.AI_MISSING': 'ai_disclosure_missing',
  'DISCLOSURE.BINDING_COMMITMENT': 'binding_commitment',
  'DISCLOSURE.ADVERSE_ACTION': 'adverse_action',
  'DISCLOSURE.REGISTER_BREACH': 'register_breach',
  'DISCLOSURE.ENTITLEMENT': 'entitlement_disclosure',
  'DISCLOSURE.INFERENCE': 'inference_disclosure',
  'DISCLOSURE.AGGREGATION': 'aggregation_disclosure',
  'ANSWERABILITY.BOUNDARY_BREACH': 'boundary_breach',
};

/** The baseline rule that blocks content too large to check (packs/shipped/baseline.yaml). */
const CONTENT_TOO_LARGE_RULE = 'detection.content_too_large';

/** A composed escalation that starts from reading a secret is about credentials. */
function causeOf(ruleId: string, escalation: string | null): string {
  if (ruleId === 'action.privilege_escalation' && escalation !== null && /credential|secret/i.test(escalation)) return 'credentials';
  // Operators' own rules (POST /api/business/rules, /api/custom-rules) are business rules.
  if (ruleId.startsWith('business.') || ruleId.startsWith('custom.')) return CONTAINMENT_CAUSE[ruleId] ?? 'business rule';
  return CONTAINMENT_CAUSE[ruleId] ?? 'another policy rule';
}

export function findingsFor(context: RaiseContext): FindingUpsert[] {
  const { call, subject, decision, at } = context;
  const findings: FindingUpsert[] = [];
  const agent = context.registered ? call.agent : null;
  const add = (type: string, parts: string[], title: string, evidence: Record<string, unknown>, severity?: Severity) =>
    findings.push({
      fingerprint: fingerprint(type, subject, parts),
      type,
      severity: severity ?? findingType(type).default_severity,
      title,
      subject,
      agent,
      at,
      evidence: { ...evidence, agent: call.agent, surface: call.surface, decision_id: decision.decision_id },
      decisionId: decision.decision_id,
    });

  if (!context.registered) {
    add('shadow_agent', [call.agent], `Traffic from unregistered agent ${call.agent}`, { agent_name: call.agent });
  }
  for (const rule of context.fired) {
    if (rule.effect !== 'block' && rule.effect !== 'escalate') continue;
    const outcome = rule.effect === 'block' ? 'blocked' : 'held';
    if (rule.detector_rule) {
      const entity = rule.detection?.entity ?? rule.rule_id;
      const ownType = ENTITY_FINDING[entity];
      if (ownType !== undefined) {
        const what = findingType(ownType).title;
        const title = rule.mode === 'observe' ? `Would have been blocked: ${what} on ${call.surface}` : `${what} ${outcome} on ${call.surface}`;
        add(ownType, [entity], title, {
          rule_id: rule.rule_id,
          pack: rule.pack,
          mode: rule.mode,
          entity,
          score: rule.detection?.score,
          detector: rule.detection?.detector,
          pattern: rule.detection?.pattern,
          explanation: rule.detection?.explanation,
        }, rule.severity);
        continue;
      }
      const title =
        rule.mode === 'observe'
          ? `Would have been blocked: ${entity} on ${call.surface}`
          : `${entity} ${outcome} on ${call.surface} (${rule.effect === 'block' ? 'contained' : 'held for approval'})`;
      add('guardrail_detection', [rule.rule_id, entity], title, {
        rule_id: rule.rule_id,
        pack: rule.pack,
        mode: rule.mode,
        entity,
        score: rule.detection?.score,
        detector: rule.detection?.detector,
      }, rule.severity);
      continue;
    }
    // Its own finding type below says more than a containment would.
    if (rule.rule_id === CONTENT_TOO_LARGE_RULE) continue;
    const tool = call.tool ?? call.surface;
    const title =
      rule.mode === 'observe'
        ? `Would have been blocked: ${tool} by ${rule.rule_id}`
        : `${tool} ${outcome} by ${rule.rule_id} (${rule.effect === 'block' ? 'contained' : 'held for approval'})`;
    add('containment', [tool, rule.rule_id], title, {
      rule_id: rule.rule_id,
      pack: rule.pack,
      mode: rule.mode,
      tool: call.tool,
      cause: causeOf(rule.rule_id, context.toolCall?.escalation ?? null),
    }, rule.severity);
  }
  const toolCall = context.toolCall;
  if (toolCall !== undefined && call.tool !== undefined) {
    // A tool call whose arguments came from untrusted content exists because of that content;
    // it is a problem when the content carried an injection or a rule stopped the call for it.
    const stoppedForTaint = context.fired.some(
      (rule) => (rule.rule_id === 'capability.taint_exceeded' || rule.rule_id === 'taint.hostile_arguments') && rule.effect !== 'allow',
    );
    if (toolCall.taint.level >= 1 || (toolCall.taint.level > 0 && stoppedForTaint)) {
      add('control_flow', [call.tool, ...Object.keys(toolCall.taint.sources).sort()], `Tool call ${call.tool} driven by untrusted content`, {
        tool: call.tool,
        tainted_arguments: toolCall.taint.sources,
        taint: toolCall.taint.level >= 1 ? 'hostile' : 'untrusted',
      });
    }
    if (toolCall.budget.exceeded) {
      add('budget_exhausted', ['tool_calls_per_hour'], `Agent ${call.agent} used its budget of ${toolCall.budget.limit} tool calls this hour`, {
        limit: toolCall.budget.limit,
        used: toolCall.budget.used,
        window: 'hour',
      });
    }
    if (context.registered && toolCall.undeclared) {
      add('registry_drift', ['tool', call.tool], `Agent ${call.agent} called ${call.tool}, which it does not declare`, { tool: call.tool, seen: 'tool' });
    }
  }
  const mcp = call.mcp;
  if (mcp !== undefined && mcp.fact !== null) {
    // The MCP facts raise their own types besides the containment (spec 01 §2.6).
    const rule = context.fired.find((item) => item.rule_id === (mcp.fact === 'drifted' ? 'mcp.schema_drift' : 'mcp.undeclared_tool'));
    const stopped = rule !== undefined && rule.mode === 'enforce' && rule.effect === 'block';
    const prefix = rule !== undefined && rule.mode === 'observe' ? 'Would have been blocked: ' : '';
    const evidence = { server: mcp.server, tool: mcp.tool, tool_key: call.tool, status: mcp.status, rule_id: rule?.rule_id ?? null, blocked: stopped };
    if (mcp.fact === 'drifted') {
      add('mcp_schema_drift', [mcp.server, mcp.tool], `${prefix}MCP tool ${mcp.server}/${mcp.tool} is not as reviewed (${mcp.status ?? 'changed'})${stopped ? ' (contained)' : ''}`, evidence);
    } else {
      add('undeclared_mcp_tool', [mcp.server, mcp.tool], `${prefix}Agent ${call.agent} called unregistered MCP tool ${mcp.server}/${mcp.tool}${stopped ? ' (contained)' : ''}`, evidence);
    }
  }
  const tooLarge = context.contentTooLarge;
  if (tooLarge !== undefined) {
    const rule = context.fired.find((item) => item.rule_id === CONTENT_TOO_LARGE_RULE);
    const blocked = rule !== undefined && rule.mode === 'enforce' && rule.effect === 'block';
    const prefix = rule !== undefined && rule.mode === 'observe' ? 'Would have been blocked: ' : '';
    const why = tooLarge.reason === 'size' ? `only its head and tail (${tooLarge.scannedChars} characters) were checked` : 'the detectors ran out of time at the ceiling';
    add('content_too_large', [call.surface], `${prefix}${tooLarge.chars} characters on ${call.surface} too large to check in full: ${why}${blocked ? ' (contained)' : ''}`, {
      chars: tooLarge.chars,
      scanned_chars: tooLarge.scannedChars,
      reason: tooLarge.reason,
      rule_id: rule?.rule_id ?? null,
      blocked,
    });
  }
  for (const run of context.runs) {
    if (run.status === 'ok') continue;
    add('budget_breach', [run.key, run.status], `Detector ${run.key} ${run.status === 'skipped_budget' ? 'skipped for budget' : run.status}`, {
      detector: run.key,
      status: run.status,
      ms: run.ms,
    });
  }
  return findings;
}
