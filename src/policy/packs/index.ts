// The packs shipped with Parapet, written in the pack language itself. `baseline` is spec 01 §4's
// baseline (in observe until promoted); `agent-boundaries` and `injection-guards` reproduce the
// observed results of spec 01 §2.3, including which of their rules enforce by default.

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

export const SHIPPED_PACKS: readonly string[] = [BASELINE, AGENT_BOUNDARIES, INJECTION_GUARDS];
