// Library packs: policies written in the pack language that operators can install (GET
// /api/library/packs, POST .../{pack_id}/install). Unlike the shipped packs they are not bound
// until installed, and they install in observe so that their effect is seen before it is enforced.

export interface LibraryPack {
  id: string;
  name: string;
  text: string;
}

const FINANCIAL_ACTIONS = `
key: financial-actions
mode: observe
description: Money-moving tool calls need a person above set amounts; tainted ones are blocked.
rules:
  - id: finance.refund_approval
    when: { surface: tool_args, tool: ["*refund*"], argument: { path: amount, op: gt, value: 500 } }
    effect: escalate
    severity: high
    message: Refunds above 500 need a person's approval.
  - id: finance.transfer_approval
    when: { surface: tool_args, tool: ["*transfer*", "*payout*", "*wire*"], argument: { path: amount, op: gt, value: 1000 } }
    effect: escalate
    severity: high
    message: Transfers above 1,000 need a person's approval.
  - id: finance.tainted_money_movement
    when: { surface: tool_args, tool: ["*refund*", "*transfer*", "*payout*", "*wire*", "*payment*"], taint_exceeds: 0.4 }
    effect: block
    severity: critical
    message: A money-moving call carries arguments that came from untrusted content.
`;

const STRICT_PERSONAL_DATA = `
key: strict-personal-data
mode: observe
description: No personal data leaves in answers, tool arguments or memory; masks it on the way in.
rules:
  - id: pii.block_output
    when: { surface: [output, completion], entity_prefix: PII., min_score: 0.6 }
    effect: block
    severity: high
    message: Personal data in the model's answer.
  - id: pii.block_tool_args
    when: { surface: tool_args, entity_prefix: PII., min_score: 0.6 }
    effect: block
    severity: high
    message: Personal data in a tool call's arguments.
  - id: pii.block_memory
    when: { surface: memory_write, entity_prefix: PII., min_score: 0.5 }
    effect: block
    severity: medium
    message: Personal data written to long-term memory.
  - id: pii.mask_input
    when: { surface: input, entity_prefix: PII., min_score: 0.5 }
    effect: mask
    message: Personal data in the input is masked before the model sees it.
`;

const CODE_AGENT = `
key: code-agent
mode: observe
description: Coding agents - destructive shell and SQL held for a person, broad ones blocked.
rules:
  - id: code.block_total_blast_radius
    when: { surface: tool_args, action_blast_radius: total }
    effect: block
    severity: critical
    message: The command would affect everything it can reach.
  - id: code.hold_destructive
    when: { surface: tool_args, action_destructive: true }
    effect: escalate
    severity: high
    message: A destructive command needs a person's approval.
  - id: code.block_secrets_in_args
    when: { surface: tool_args, entity_prefix: SECRET., min_score: 0.8 }
    effect: block
    severity: critical
    message: A secret is in a tool call's arguments.
`;

const RAG_HARDENING = `
key: rag-hardening
mode: observe
description: Retrieval-augmented agents - lower thresholds on retrieved and tool content, no tainted tool calls.
rules:
  - id: rag.block_retrieved_injection
    when: { surface: [retrieved, tool_result], entity_prefix: INJECTION., min_score: 0.4 }
    effect: block
    severity: high
    message: Instructions hidden in retrieved or tool content.
  - id: rag.hold_tainted_tool_calls
    when: { surface: tool_args, taint_exceeds: 0.4 }
    effect: escalate
    severity: high
    message: A tool call built from untrusted content needs a person's approval.
`;

export const LIBRARY_PACKS: readonly LibraryPack[] = [
  { id: 'financial-actions', name: 'Financial actions', text: FINANCIAL_ACTIONS },
  { id: 'strict-personal-data', name: 'Strict personal data', text: STRICT_PERSONAL_DATA },
  { id: 'code-agent', name: 'Coding agents', text: CODE_AGENT },
  { id: 'rag-hardening', name: 'Retrieval hardening', text: RAG_HARDENING },
];
