// Every finding type of spec 01 §2.6 in one list: title, default severity, meaning and who raises
// it. GET /api/findings/types reads this list and the code that raises findings uses it.
export type Severity = 'critical' | 'high' | 'medium' | 'low';

export interface FindingType {
  type: string;
  title: string;
  default_severity: Severity;
  meaning: string;
  raised_by: string;
}

const entry = (type: string, title: string, default_severity: Severity, meaning: string, raised_by: string): FindingType => ({
  type,
  title,
  default_severity,
  meaning,
  raised_by,
});

export const FINDING_TYPES: readonly FindingType[] = [
  entry('guardrail_detection', 'Guardrail detection', 'high', 'A detector rule changed the outcome, or would have in observe.', 'decision pipeline'),
  entry('containment', 'Containment', 'high', 'A tool call was stopped or held by a non-detector rule.', 'decision pipeline'),
  entry('shadow_agent', 'Shadow agent', 'medium', 'Traffic from an agent that is not in the registry.', 'decision pipeline'),
  entry('unowned_agent', 'Unowned agent', 'medium', 'A registered agent has no owner.', 'agent registry'),
  entry('registry_drift', 'Registry drift', 'medium', 'Runtime behaviour differs from the declaration.', 'agent registry'),
  entry('undeclared_mcp_tool', 'Undeclared MCP tool', 'high', 'An agent called an unregistered MCP tool.', 'MCP governance'),
  entry('mcp_schema_drift', 'MCP schema drift', 'high', "An MCP tool's description, schema or impact changed since review; the call was blocked.", 'MCP governance'),
  entry('mcp_tool_added_under_wildcard', 'MCP tool added under a wildcard grant', 'medium', 'A registered server lists a new tool already allowed by a wildcard grant.', 'MCP governance'),
  entry('schema_drift', 'Tool listing changed', 'medium', "An MCP server's listing changed since the last scan.", 'MCP scan'),
  entry('tool_poisoning', 'Tool poisoning', 'critical', "A tool's description reads like an instruction.", 'MCP scan'),
  entry('unpinned_server', 'Unpinned server', 'low', "An MCP server's version is not pinned.", 'MCP scan'),
  entry('control_flow', 'Control flow from untrusted content', 'high', 'A tool call exists because of untrusted content.', 'decision pipeline'),
  entry('sycophancy', 'Sycophancy', 'medium', 'The answer adopted a false premise against the supplied grounded record.', 'answer integrity'),
  entry('trajectory_drift', 'Trajectory drift', 'medium', 'The conversation drifted against the evidence supplied with the call.', 'answer integrity'),
  entry('context_integrity', 'Context integrity', 'medium', 'The answer contradicts its context.', 'answer integrity'),
  entry('source_conflict', 'Source conflict', 'medium', 'Sources supplied with the call disagree.', 'answer integrity'),
  entry('source_authority', 'Source authority', 'medium', 'The answer relies on a source of lower authority than another supplied.', 'answer integrity'),
  entry('fabricated_citation', 'Fabricated citation', 'high', 'The answer cites a source that was not supplied.', 'answer integrity'),
  entry('integrity_error', 'Integrity error', 'medium', 'The integrity check could not be completed.', 'answer integrity'),
  entry('ai_disclosure_missing', 'AI disclosure missing', 'medium', 'The agent did not disclose that it is an AI where it had to.', 'commitment and disclosure checks'),
  entry('binding_commitment', 'Binding commitment', 'high', 'The agent made a commitment it may not make.', 'commitment and disclosure checks'),
  entry('adverse_action', 'Adverse action', 'high', 'The agent announced an adverse action.', 'commitment and disclosure checks'),
  entry('register_breach', 'Register breach', 'low', 'The agent left its required register.', 'commitment and disclosure checks'),
  entry('entitlement_disclosure', 'Entitlement disclosure', 'high', 'The agent disclosed what the subject may not see.', 'entitlement filter'),
  entry('inference_disclosure', 'Inference disclosure', 'high', 'The agent disclosed something inferable the subject may not know.', 'entitlement filter'),
  entry('aggregation_disclosure', 'Aggregation disclosure', 'high', 'Aggregated answers disclosed what single records may not.', 'entitlement filter'),
  entry('boundary_breach', 'Boundary breach', 'medium', 'The answer lies outside the declared knowledge boundary.', 'answerability'),
  entry('budget_breach', 'Budget breach', 'medium', 'A detector was skipped or timed out against its latency budget.', 'decision pipeline'),
  entry('content_too_large', 'Content too large to check', 'high', 'Content was too large to check in full within the detection ceiling; blocked where the baseline enforces.', 'decision pipeline'),
  entry('budget_exhausted', 'Budget exhausted', 'high', 'An agent hit its cost or call limit.', 'runs'),
  entry('agent_loop_stopped', 'Agent loop stopped', 'high', 'The proxy stopped a looping tool-calling run.', 'proxies'),
  entry('agent_stopped', 'Agent stopped', 'high', 'The kill switch or quarantine was used.', 'agent controls'),
  entry('delegation_depth', 'Delegation too deep', 'medium', 'Delegation between agents went deeper than allowed.', 'agent lineage'),
  entry('delegation_cycle', 'Delegation cycle', 'high', 'Delegation between agents loops.', 'agent lineage'),
  entry('missed_escalation', 'Missed escalation', 'high', 'A person should have been involved and was not.', 'escalation'),
  entry('incomplete_handoff', 'Incomplete hand-off', 'medium', 'A hand-off to a person lacked what they need.', 'escalation'),
  entry('handoff_sla_breach', 'Hand-off SLA breach', 'medium', 'A hand-off was not acknowledged in time.', 'escalation'),
  entry('orphaned_identity', 'Orphaned identity', 'medium', 'An identity has no owner.', 'identities'),
  entry('stale_identity', 'Stale identity', 'low', 'An identity has not been used for a long time.', 'identities'),
  entry('over_privileged', 'Over-privileged identity', 'high', 'An identity holds a `*` grant.', 'identities'),
  entry('redteam', 'Red-team probe got through', 'high', 'A probe got through.', 'red team'),
  entry('redteam_over_block', 'Red-team over-block', 'medium', 'A benign probe was blocked.', 'red team'),
  entry('redteam_mutation_class', 'Red-team mutation class', 'high', 'A mutation class of probes worked.', 'red team'),
  entry('redteam_posture_regression', 'Red-team posture regression', 'high', 'The posture weakened between campaigns.', 'red team'),
  entry('drift', 'Evaluation drift', 'medium', 'Evaluation quality moved against the baseline.', 'evaluations'),
  entry('over_refusal', 'Over-refusal', 'medium', 'The agent refuses more than the baseline.', 'evaluations'),
  entry('false_resolution', 'False resolution', 'medium', 'A resolved finding recurred.', 'findings queue'),
  entry('hardcoded_secret', 'Hard-coded secret', 'high', 'A code-host scan found a credential written into a repository file.', 'code-host scan'),
  entry('risky_prompt', 'Risky system prompt', 'medium', 'A code-host scan found a system prompt whose instructions the detectors flag.', 'code-host scan'),
  entry('monitor_change', 'Monitored target changed', 'medium', 'A monitor saw its target differ from the baseline (an API document, a repository scan).', 'monitors'),
  entry('stale_source', 'Stale knowledge source', 'medium', 'A monitored knowledge source is older than its freshness SLA.', 'monitors'),
  entry('recording_failure', 'Recording failure', 'high', 'The database refused a decision record; it was kept in the dead-letter table.', 'recorder'),
];

const BY_TYPE = new Map(FINDING_TYPES.map((item) => [item.type, item]));

export function findingType(type: string): FindingType {
  const found = BY_TYPE.get(type);
  if (found === undefined) throw new Error(`unknown finding type ${type}`);
  return found;
}

export const SEVERITY_RANK: Record<Severity, number> = { low: 1, medium: 2, high: 3, critical: 4 };
