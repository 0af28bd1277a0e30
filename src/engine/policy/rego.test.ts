import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluateWithOpa, stopOpa } from '../../../test/helpers/rego-opa.js';
import { SURFACES, type Detection, type Surface } from '../detectors/types.js';
import { compilePack, evaluate, type CallFacts } from './evaluate.js';
import { plainFacts } from './facts.js';
import { SHIPPED_PACKS } from './packs/index.js';
import { parsePack } from './parse.js';
import { factsToRegoInput, regoPackage, toolPatternRegex, toRego } from './rego.js';
import { BLAST_RADII, CAPABILITY_OUTCOMES, SIGNATURE_STATUSES, type Mode, type Pack } from './schema.js';

afterAll(stopOpa);

/** A pack with every condition of the `when` language, rule-level modes and a disabled rule. */
const EVERY_CONDITION = parsePack(`
key: every-condition
version: 3
mode: observe
rules:
  - id: cond.surface_and_entity
    when: { surface: [input, retrieved], entity: [PII.EMAIL, SECRET.JWT], min_score: 0.7 }
    effect: mask
  - id: cond.entity_prefix_enforced
    when: { entity_prefix: [INJECTION., SECRET.], min_score: 0.6 }
    effect: block
    mode: enforce
  - id: cond.entity_and_prefix
    when: { entity: PII.US_SSN, entity_prefix: PII.IBAN }
    effect: tokenize
  - id: cond.taint
    when: { taint_exceeds: 0.5 }
    effect: escalate
    mode: enforce
  - id: cond.capability
    when: { surface: tool_args, capability: constraint_violated }
    effect: block
  - id: cond.facts_unmet
    when: { surface: completion, facts_unmet: [work_verified, tests_passed] }
    effect: escalate
  - id: cond.card_and_signature
    when: { surface: agent_message, agent_card_mismatch: true, signature: [stale, replayed] }
    effect: block
    mode: enforce
  - id: cond.not_degraded
    when: { detector_degraded: false, surface: reasoning }
    effect: allow
  - id: cond.degraded
    when: { detector_degraded: true }
    effect: escalate
  - id: cond.too_large
    when: { content_too_large: true, surface: [input, retrieved] }
    effect: block
  - id: cond.actions
    when: { action_kind: [sql.delete, shell.rm], action_destructive: true, action_blast_radius: broad }
    effect: block
    mode: enforce
  - id: cond.actions_safe
    when: { action_destructive: false, action_blast_radius: narrow, action_escalation: false, action_unanalysable: false }
    effect: allow
  - id: cond.escalation_unanalysable
    when: { action_escalation: true, action_unanalysable: true }
    effect: block
  - id: cond.runs
    when: { budget_exceeded: true, loop_detected: false }
    effect: escalate
  - id: cond.loop
    when: { loop_detected: true }
    effect: block
    mode: observe
  - id: cond.mcp
    when: { mcp_tool: [drifted, undeclared], agent: [billing-bot, ops.agent] }
    effect: block
  - id: cond.tool_patterns
    when: { tool: ["refund_*", "db.*.drop", "a*b*c", "x.y[1]", "plain.tool"] }
    effect: escalate
  - id: cond.argument_numbers
    when: { tool: "refund_*", argument: [{ path: amount, op: gt, value: 500 }, { path: refund.total, op: lte, value: 1000 }] }
    effect: block
    mode: enforce
  - id: cond.argument_scalars
    when:
      argument:
        - { path: currency, op: eq, value: EUR }
        - { path: region, op: ne, value: eu }
        - { path: code, op: in, value: [7, "x", true] }
    effect: escalate
  - id: cond.argument_exists_arrays
    when: { argument: [{ path: items.0.sku, op: exists }, { path: items.length, op: gte, value: 2 }] }
    effect: mask
  - id: cond.argument_odd
    when: { argument: [{ path: amount, op: gt, value: "500" }] }
    effect: block
  - id: cond.argument_eq_number
    when: { argument: [{ path: amount, op: eq, value: 750 }, { path: flag, op: ne, value: true }] }
    effect: tokenize
    mode: enforce
  - id: cond.argument_lt
    when: { argument: { path: amount, op: lt, value: 10 } }
    effect: allow
    mode: enforce
  - id: cond.everything_at_once
    when: { surface: tool_args, tool: "refund_*", agent: billing-bot, taint_exceeds: 0, capability: granted, entity_prefix: PII., min_score: 0.5 }
    effect: escalate
  - id: cond.disabled
    when: { surface: input }
    effect: block
    enabled: false
    mode: enforce
  - id: cond.always
    when: {}
    effect: allow
`);

// A deterministic generator (mulberry32), so every run checks the same corpus.
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ENTITIES = ['PII.EMAIL', 'PII.US_SSN', 'PII.IBAN_DE', 'PII.IBAN', 'SECRET.JWT', 'SECRET.AWS_KEY', 'INJECTION.INSTRUCTION_OVERRIDE', 'TOXIC.INSULT'];
// Scores on and around the thresholds the packs use (0.5, 0.6, 0.7, 0.9).
const SCORES = [0, 0.3, 0.49, 0.5, 0.51, 0.59, 0.6, 0.61, 0.69, 0.7, 0.71, 0.89, 0.9, 0.95, 1];
const TOOLS = [null, 'refund_order', 'refund_', 'refund', 'db.users.drop', 'db..drop', 'db.drop', 'abc', 'ac', 'axbyc', 'x.y[1]', 'x.y1', 'plain.tool', 'plain_tool', 'transfer'];
const ARGUMENT_SAMPLES: Array<Record<string, unknown> | null> = [
  null,
  {},
  { amount: 750 },
  { amount: '750.00', refund: { total: 900 } },
  { amount: ' 501 ', refund: { total: '1000' } },
  { amount: 'lots', refund: { total: 10 } },
  { amount: 499, refund: { total: 2000 } },
  { amount: 9, currency: 'EUR', code: '7' },
  { amount: 750, flag: true },
  { amount: 750, flag: 'true', currency: 'EUR', region: 'eu', code: true },
  { amount: null, currency: 'EUR', code: 'x' },
  { currency: 'usd', region: 'us', code: 7.0 },
  { items: [{ sku: 'a' }, { sku: 'b' }] },
  { items: [{ sku: null }, {}] },
  { items: [{ sku: 1 }] },
  { items: { 0: { sku: 'k' }, length: 3 } },
  { amount: -3, refund: { total: -1 } },
  { amount: '-12.5' },
  { amount: '1e3' },
];
const COMPLETION = [null, {}, { work_verified: true }, { work_verified: true, tests_passed: true }, { work_verified: 'true', tests_passed: true }];
const KINDS = [[], ['sql.delete'], ['shell.rm', 'http.get'], ['http.get']];
const AGENTS = ['billing-bot', 'ops.agent', 'other'];

const detection = (entity: string, score: number): Detection => ({ entity, score, start: 0, end: 1, explanation: 'corpus' });
const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

const baseFacts = (surface: Surface): CallFacts => plainFacts(surface, 'billing-bot');

function corpus(): CallFacts[] {
  const cases: CallFacts[] = [];
  // Every surface with every entity, at scores on and just under the packs' thresholds.
  const thresholds = [0.49, 0.5, 0.59, 0.6, 0.69, 0.7, 0.89, 0.9];
  SURFACES.forEach((surface, row) => {
    ENTITIES.forEach((entity, column) => cases.push({ ...baseFacts(surface), detections: [detection(entity, thresholds[(row + column) % thresholds.length] as number)] }));
  });
  // A call that meets every condition of cond.everything_at_once, and the same call missing one each.
  const everything: CallFacts = { ...baseFacts('tool_args'), tool: 'refund_order', taint: 0.2, capability: new Set(['granted'] as const), detections: [detection('PII.EMAIL', 0.5)] };
  cases.push(everything, { ...everything, taint: 0 }, { ...everything, agent: 'other' }, { ...everything, tool: 'refund' }, { ...everything, detections: [detection('PII.EMAIL', 0.49)] });
  // Every argument sample on a refund tool, where the argument rules look.
  for (const args of ARGUMENT_SAMPLES) cases.push({ ...baseFacts('tool_args'), tool: 'refund_order', args });
  // Random combinations of every fact.
  const random = generator(20261121);
  for (let index = 0; index < 260; index += 1) {
    const surface = pick(random, SURFACES);
    const detections = Array.from({ length: Math.floor(random() * 4) }, () => detection(pick(random, ENTITIES), pick(random, SCORES)));
    const capability = new Set(CAPABILITY_OUTCOMES.filter(() => random() < 0.2));
    cases.push({
      surface,
      detections,
      taint: pick(random, [0, 0.2, 0.5, 0.51, 1]),
      capability,
      completionFacts: pick(random, COMPLETION),
      agentCardMismatch: random() < 0.4,
      degraded: random() < 0.3,
      contentTooLarge: random() < 0.2,
      actionKinds: pick(random, KINDS),
      actionDestructive: random() < 0.5,
      actionBlastRadius: pick(random, BLAST_RADII),
      actionEscalation: random() < 0.3,
      actionUnanalysable: random() < 0.3,
      budgetExceeded: random() < 0.3,
      loopDetected: random() < 0.3,
      signature: pick(random, [null, ...SIGNATURE_STATUSES]),
      mcpTool: pick(random, [null, 'drifted', 'undeclared'] as const),
      agent: pick(random, AGENTS),
      tool: surface === 'tool_args' || random() < 0.2 ? pick(random, TOOLS) : null,
      args: surface === 'tool_args' || random() < 0.2 ? pick(random, ARGUMENT_SAMPLES) : null,
    });
  }
  return cases;
}

const CORPUS = corpus();
const INPUTS = CORPUS.map(factsToRegoInput);

function expected(pack: Pack, mode?: Mode) {
  const compiled = [compilePack(pack, mode)];
  return CORPUS.map((facts) => {
    const result = evaluate(compiled, facts);
    const decisive = result.decisive === null ? null : { rule_id: result.decisive.rule_id, pack: result.decisive.pack, effect: result.decisive.effect, mode: result.decisive.mode };
    return { verdict: result.verdict, effective_verdict: result.effectiveVerdict, fired: result.fired.map((rule) => rule.rule_id).sort(), decisive };
  });
}

const PACKS: Array<[string, Pack, Mode | undefined]> = [
  ...SHIPPED_PACKS.map((text): [string, Pack, Mode | undefined] => {
    const pack = parsePack(text);
    return [pack.key, pack, undefined];
  }),
  ['every-condition', EVERY_CONDITION, undefined],
  ['every-condition promoted to enforce', EVERY_CONDITION, 'enforce'],
];

describe('toRego evaluated by OPA (v0.47, WebAssembly) agrees with evaluate()', () => {
  it('has a corpus of at least 300 cases that makes every rule of the test pack fire and not fire', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(300);
    const compiled = [compilePack(EVERY_CONDITION)];
    const firedCounts = new Map<string, number>();
    for (const facts of CORPUS) for (const rule of evaluate(compiled, facts).fired) firedCounts.set(rule.rule_id, (firedCounts.get(rule.rule_id) ?? 0) + 1);
    const enabled = EVERY_CONDITION.rules.filter((rule) => rule.enabled !== false && rule.id !== 'cond.argument_odd');
    for (const rule of enabled) {
      const count = firedCounts.get(rule.id) ?? 0;
      expect(count, rule.id).toBeGreaterThan(0);
      if (rule.id !== 'cond.always') expect(count, rule.id).toBeLessThan(CORPUS.length);
    }
  });

  it.each(PACKS)('%s', async (_name, pack, mode) => {
    const results = await evaluateWithOpa(toRego(pack, mode === undefined ? {} : { mode }), INPUTS);
    const wanted = expected(pack, mode);
    const mismatches = results.flatMap((result, index) => (isDeepStrictEqual(result, wanted[index]) ? [] : [{ index, facts: INPUTS[index], opa: result, evaluate: wanted[index] }]));
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(results).toHaveLength(CORPUS.length);
  }, 120_000);
});

describe('toRego', () => {
  it('names the package after the key, with - as _', () => {
    expect(regoPackage('agent-boundaries')).toBe('parapet.policy.agent_boundaries');
    expect(toRego(parsePack(SHIPPED_PACKS[1] as string))).toContain('package parapet.policy.agent_boundaries\n\nimport rego.v1\n');
  });

  it('leaves disabled rules out and gives each rule its own mode, else the pack mode', () => {
    const text = toRego(EVERY_CONDITION);
    expect(text).not.toContain('cond.disabled');
    expect(text).toContain('{"rule_id": "cond.taint", "pack": "every-condition", "effect": "escalate", "mode": "enforce", "strength": 2}');
    expect(text).toContain('{"rule_id": "cond.capability", "pack": "every-condition", "effect": "block", "mode": "observe", "strength": 3}');
    expect(toRego(EVERY_CONDITION, { mode: 'enforce' })).toContain('{"rule_id": "cond.loop", "pack": "every-condition", "effect": "block", "mode": "observe", "strength": 3}');
  });

  it('quotes everything but * in tool patterns', () => {
    expect(toolPatternRegex('x.y[1]*')).toBe('(?s)^x\\.y\\[1\\].*$');
    expect(toolPatternRegex('a*b*c')).toBe('(?s)^a.*b.*c$');
  });

  it('exports a pack with no enabled rules as one that never fires', async () => {
    const empty: Pack = { key: 'empty', version: 1, mode: 'enforce', rules: [{ id: 'x.off', when: {}, effect: 'block', enabled: false }] };
    const [result] = await evaluateWithOpa(toRego(empty), [INPUTS[0]]);
    expect(result).toEqual({ verdict: 'allow', effective_verdict: 'allow', fired: [], decisive: null });
  });

  it('renders the facts as the documented input document', () => {
    const facts: CallFacts = { ...baseFacts('tool_args'), capability: new Set(['not_declared', 'denied'] as const), tool: 'refund_order', args: { amount: 5 }, detections: [detection('PII.EMAIL', 0.8)] };
    expect(factsToRegoInput(facts)).toEqual({
      surface: 'tool_args',
      agent: 'billing-bot',
      tool: 'refund_order',
      args: { amount: 5 },
      detections: [{ entity: 'PII.EMAIL', score: 0.8 }],
      taint: 0,
      capability: ['denied', 'not_declared'],
      completion_facts: null,
      agent_card_mismatch: false,
      degraded: false,
      content_too_large: false,
      action_kinds: [],
      action_destructive: false,
      action_blast_radius: 'none',
      action_escalation: false,
      action_unanalysable: false,
      budget_exceeded: false,
      loop_detected: false,
      signature: null,
      mcp_tool: null,
    });
  });
});
