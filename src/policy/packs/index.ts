// The packs shipped with Parapet, written in the pack language itself. `baseline` is spec 01 §4's
// baseline (in observe until promoted); `agent-boundaries` and `injection-guards` reproduce the
// observed results of spec 01 §2.3, including which of their rules enforce by default;
// `tool-actions` acts on what a tool call would do (action analysis, loops, budgets).

export const BASELINE = `
key: baseline
version: 1
mode: observe
description: Injection, secrets and personal data on the way in and out (spec 01 section 4).
rules:
  - id: injection.block_input
    when: { surface: input, entity_prefix: INJECTION., min_score: 0.7 }
    effect: block
    message: Prompt injection in the input.
  - id: injection.block_untrusted_content
    when: { surface: [retrieved, tool_result], entity_prefix: INJECTION., min_score: 0.6 }
    effect: block
    message: Prompt injection in retrieved or tool content.
  - id: secrets.block
    when: { entity_prefix: SECRET., min_score: 0.9 }
    effect: block
    message: A credential or secret is in the content.
  - id: pii.block_us_ssn
    when: { entity: PII.US_SSN, min_score: 0.5 }
    effect: block
    message: A US social security number is in the content.
  - id: pii.tokenize_input
    when: { surface: input, entity_prefix: PII., min_score: 0.5 }
    effect: tokenize
    message: Personal data in the input is replaced by tokens.
  - id: pii.mask_output
    when: { surface: output, entity_prefix: PII., min_score: 0.5 }
    effect: mask
    message: Personal data in the output is masked.
  - id: detection.content_too_large
    when: { content_too_large: true }
    effect: block
    severity: high
    message: >-
      The content is too large to check in full within the detection ceiling (detection_max_chars
      after padding is condensed, or detection_ceiling_ms); what was not checked may hide anything.
`;

export const AGENT_BOUNDARIES = `
key: agent-boundaries
version: 1
mode: enforce
description: Default deny for tools, personal data crossing agent boundaries, unverified completion.
rules:
  - id: capability.denied
    when: { surface: tool_args, capability: denied }
    effect: block
    severity: high
    message: >-
      The agent holds no grant for this tool (default deny). To get one: 1) open
      GET /api/agents/{agent}/access, which proposes grants from the agent's observed traffic;
      2) approve the proposed grant with POST /api/agents/{agent}/access.
  - id: capability.approval_required
    when: { surface: tool_args, capability: approval_required }
    effect: escalate
    severity: medium
    message: The grant for this tool asks a person to approve each call.
  - id: capability.action_denied
    when: { surface: tool_args, capability: action_denied }
    effect: block
    severity: high
    message: The call does something the grant does not allow.
  - id: capability.constraint_violated
    when: { surface: tool_args, capability: constraint_violated }
    effect: block
    severity: high
    message: The call's arguments are outside the grant's constraints.
  - id: capability.taint_exceeded
    when: { surface: tool_args, capability: taint_exceeded }
    effect: block
    severity: high
    message: Arguments of this call come from content less trusted than the grant accepts.
  - id: taint.hostile_arguments
    when: { surface: tool_args, taint_exceeds: 0.5 }
    effect: block
    severity: high
    message: Arguments of this call come from untrusted content that carried an injection.
  - id: agent_message.signature
    when: { surface: agent_message, signature: [bad_signature, stale, replayed, incomplete, no_key] }
    effect: block
    severity: high
    message: The message's signature does not verify, is stale, or replays an earlier nonce.
  - id: tool.not_declared
    when: { surface: tool_args, capability: not_declared }
    effect: escalate
    severity: medium
    message: The tool is not among the agent's declared tools; declare it or approve the call.
  - id: pii.memory_and_agent_message
    when: { surface: [memory_write, agent_message], entity_prefix: PII., min_score: 0.5 }
    effect: escalate
    severity: medium
    message: Personal data is about to be stored in memory or sent to another agent.
  - id: agent_message.agent_card_mismatch
    when: { surface: agent_message, agent_card_mismatch: true }
    effect: escalate
    severity: medium
    message: The message does not match the sender's declared agent card.
  - id: completion.unverified_claim
    when: { surface: completion, facts_unmet: [work_verified] }
    effect: escalate
    severity: medium
    message: The agent claims it is finished, but the facts that prove it were not reported.
  - id: mcp.schema_drift
    when: { surface: tool_args, mcp_tool: drifted }
    effect: block
    severity: high
    message: >-
      The MCP tool's description, schema or annotations differ from what was reviewed (or it was
      never reviewed). Rescan with POST /api/mcp-servers/{name}/scan and accept the change with
      POST /api/mcp-servers/{name}/tools.
  - id: mcp.undeclared_tool
    when: { surface: tool_args, mcp_tool: undeclared }
    effect: block
    severity: high
    message: >-
      The MCP tool is not registered: register its server with POST /api/mcp-servers, scan it and
      accept the tool before agents call it.
`;

export const INJECTION_GUARDS = `
key: injection-guards
version: 1
mode: observe
description: Injected instructions reaching memory, other agents, reasoning and tool arguments.
rules:
  - id: injection.memory_and_agent_message
    when: { surface: [memory_write, agent_message], entity_prefix: INJECTION., min_score: 0.6 }
    effect: block
    message: Injected instructions are about to be stored in memory or passed to another agent.
  - id: injection.adopted_in_reasoning
    when: { surface: reasoning, entity_prefix: INJECTION., min_score: 0.6 }
    effect: block
    message: The model's reasoning adopts an injected instruction.
  - id: injection.in_tool_arguments
    when: { surface: tool_args, entity_prefix: INJECTION., min_score: 0.6 }
    effect: block
    message: Tool arguments carry injected instructions.
`;

export const TOOL_ACTIONS = `
key: tool-actions
version: 1
mode: enforce
description: What a tool call would do - SQL, shell and HTTP arguments, composed escalation, loops and budgets.
rules:
  - id: action.unanalysable
    when: { surface: tool_args, action_unanalysable: true }
    effect: block
    severity: high
    message: An argument could not be analysed (SQL without the optional parser, or SQL that does not parse); the call fails closed.
  - id: action.destructive_total
    when: { surface: tool_args, action_destructive: true, action_blast_radius: total }
    effect: block
    severity: critical
    message: The call would destroy data or a system wholesale.
  - id: action.destructive_broad
    when: { surface: tool_args, action_destructive: true, action_blast_radius: broad }
    effect: escalate
    severity: high
    message: The call would change or delete data beyond a narrow scope; a person approves it.
  - id: action.broad_reach
    when: { surface: tool_args, action_destructive: false, action_blast_radius: broad }
    effect: escalate
    severity: medium
    message: The call reaches beyond a narrow scope (an unknown host, an internal address, a whole table); a person approves it.
  - id: action.privilege_escalation
    when: { surface: tool_args, action_escalation: true }
    effect: block
    severity: high
    message: Earlier steps and this call compose a privilege escalation.
  - id: runs.loop_detected
    when: { surface: tool_args, loop_detected: true }
    effect: block
    severity: high
    message: The agent repeats the same call in a loop.
  - id: runs.budget_exceeded
    when: { surface: tool_args, budget_exceeded: true }
    effect: block
    severity: high
    message: The agent has used its tool-call budget for this hour.
`;

export const SHIPPED_PACKS: readonly string[] = [BASELINE, AGENT_BOUNDARIES, INJECTION_GUARDS, TOOL_ACTIONS];
