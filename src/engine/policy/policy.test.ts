import { describe, expect, it } from 'vitest';
import type { Detection } from '../detectors/types.js';
import { compilePack, evaluate, type CallFacts } from './evaluate.js';
import { plainFacts } from './facts.js';
import { PackInvalid, parsePack } from './parse.js';
import { SHIPPED_PACKS } from './packs/index.js';

const packs = SHIPPED_PACKS.map((text) => compilePack(parsePack(text)));

const detection = (entity: string, score = 0.9): Detection => ({ entity, score, start: 0, end: 5, explanation: 'test', detector: 'test' });
const facts = (overrides: Partial<CallFacts>): CallFacts => ({ ...plainFacts('input', 'test-agent'), ...overrides });

// spec 01 §2.3, the observed table (an agent with no grants), as policy facts.
describe('shipped packs reproduce spec 01 §2.3', () => {
  it.each([
    ['memory_write injection', facts({ surface: 'memory_write', taint: 1, detections: [detection('INJECTION.INSTRUCTION_OVERRIDE')] }), 'allow', 'block', ['injection.memory_and_agent_message']],
    ['agent_message with personal data', facts({ surface: 'agent_message', agentCardMismatch: true, detections: [detection('PII.EMAIL'), detection('PII.US_PHONE')] }), 'escalate', 'escalate', ['pii.memory_and_agent_message', 'agent_message.agent_card_mismatch']],
    ['reasoning adopting an injection', facts({ surface: 'reasoning', detections: [detection('INJECTION.INSTRUCTION_OVERRIDE')] }), 'allow', 'block', ['injection.adopted_in_reasoning']],
    ['completion without facts', facts({ surface: 'completion' }), 'escalate', 'escalate', ['completion.unverified_claim']],
    ['tool call with injection and e-mail', facts({ surface: 'tool_args', capability: new Set(['denied'] as const), detections: [detection('INJECTION.INSTRUCTION_OVERRIDE'), detection('PII.EMAIL')] }), 'block', 'block', ['capability.denied', 'injection.in_tool_arguments']],
  ] as const)('%s', (_name, call, verdict, effective, rules) => {
    const result = evaluate(packs, call);
    expect(result.verdict).toBe(verdict);
    expect(result.effectiveVerdict).toBe(effective);
    expect(result.fired.map((rule) => rule.rule_id).sort()).toEqual([...rules].sort());
  });

  it('satisfies the completion rule when work_verified is reported', () => {
    const result = evaluate(packs, facts({ surface: 'completion', completionFacts: { work_verified: true } }));
    expect(result.fired).toEqual([]);
    expect(result.mode).toBe('enforce');
  });

  it('reports the decisive pack mode: observe when only observing rules fire', () => {
    expect(evaluate(packs, facts({ surface: 'input', detections: [detection('INJECTION.JAILBREAK', 0.95)] })).mode).toBe('observe');
  });

  it('respects thresholds: injection at 0.65 fires on retrieved (0.6) but not on input (0.7)', () => {
    const weak = [detection('INJECTION.INSTRUCTION_OVERRIDE', 0.65)];
    expect(evaluate(packs, facts({ surface: 'retrieved', detections: weak })).effectiveVerdict).toBe('block');
    expect(evaluate(packs, facts({ surface: 'input', detections: weak })).fired).toEqual([]);
  });

  it('blocks in enforce what it only reports in observe', () => {
    const enforced = SHIPPED_PACKS.map((text) => compilePack(parsePack(text), 'enforce'));
    const call = facts({ surface: 'input', detections: [detection('INJECTION.INSTRUCTION_OVERRIDE')] });
    expect(evaluate(packs, call).verdict).toBe('allow');
    expect(evaluate(enforced, call).verdict).toBe('block');
  });
});

describe('mcp_tool condition (agent-boundaries)', () => {
  it.each([
    ['a drifted MCP tool is blocked', facts({ surface: 'tool_args', mcpTool: 'drifted', capability: new Set(['granted'] as const) }), 'block', ['mcp.schema_drift']],
    ['an unregistered MCP tool is blocked', facts({ surface: 'tool_args', mcpTool: 'undeclared', capability: new Set(['granted'] as const) }), 'block', ['mcp.undeclared_tool']],
    ['a pinned MCP tool fires nothing', facts({ surface: 'tool_args', mcpTool: null, capability: new Set(['granted'] as const) }), 'allow', []],
    ['the fact does not apply off tool_args', facts({ surface: 'tool_result', mcpTool: 'drifted' }), 'allow', []],
  ] as const)('%s', (_name, call, verdict, rules) => {
    const result = evaluate(packs, call);
    expect(result.verdict).toBe(verdict);
    expect(result.fired.map((rule) => rule.rule_id)).toEqual(rules);
  });

  it('refuses an unknown mcp_tool value', () => {
    expect(() => parsePack('key: x\nversion: 1\nmode: observe\nrules:\n  - { id: a.b, when: { mcp_tool: renamed }, effect: block }\n')).toThrow(PackInvalid);
  });
});

describe('parsePack', () => {
  it('names the line and column of a YAML error', () => {
    try {
      parsePack('key: x\nrules: [\n');
      throw new Error('expected PackInvalid');
    } catch (error) {
      expect(error).toBeInstanceOf(PackInvalid);
      expect((error as PackInvalid).errors[0]?.line).toBeGreaterThan(0);
    }
  });

  it.each([
    ['unknown condition', 'key: x\nversion: 1\nmode: observe\nrules:\n  - { id: a.b, when: { colour: red }, effect: block }\n'],
    ['bad effect', 'key: x\nversion: 1\nmode: observe\nrules:\n  - { id: a.b, when: {}, effect: explode }\n'],
    ['threshold out of range', 'key: x\nversion: 1\nmode: observe\nrules:\n  - { id: a.b, when: { min_score: 2 }, effect: block }\n'],
    ['duplicate rule', 'key: x\nversion: 1\nmode: observe\nrules:\n  - { id: a.b, when: {}, effect: block }\n  - { id: a.b, when: {}, effect: allow }\n'],
  ])('refuses a pack with a %s', (_name, text) => {
    expect(() => parsePack(text)).toThrow(PackInvalid);
  });
});
