import { describe, expect, it } from 'vitest';
import { ALL_DETECTORS } from '../detectors/index.js';
import { diffPacks, implies, lintPolicies, type LintFinding, type LintPolicy, type ScopeLevel } from './lint.js';
import { SHIPPED_PACKS } from './packs/index.js';
import { parsePack } from './parse.js';
import type { Mode, Pack, Rule, When } from './schema.js';

const SHIPPED = SHIPPED_PACKS.map(parsePack);
const live = (pack: Pack, level: ScopeLevel = 'org', mode: Mode = pack.mode, scopeId = level === 'org' ? 'org' : `${level}-1`): LintPolicy => ({ pack, mode, level, scopeId });
const rule = (id: string, when: When, effect: Rule['effect'] = 'block', extra: Partial<Rule> = {}): Rule => ({ id, when, effect, ...extra });
const pack = (key: string, rules: Rule[], mode: Mode = 'enforce'): Pack => ({ key, version: 1, mode, rules });
const lintOne = (rules: Rule[], options = {}) => lintPolicies([live(pack('custom', rules))], [], options);
const codes = (findings: LintFinding[]) => findings.map((finding) => `${finding.code}:${finding.severity}:${finding.rule_id ?? '-'}`);
const clone = (value: Pack): Pack => structuredClone(value);
const shipped = (key: string): Pack => clone(SHIPPED.find((candidate) => candidate.key === key) as Pack);

describe('lintPolicies', () => {
  it('passes the shipped packs against themselves, with no finding at all', () => {
    const report = lintPolicies(SHIPPED.map((item) => live(item)), SHIPPED);
    expect(report.findings).toEqual([]);
    expect(report).toMatchObject({ passed: true, counts: { critical: 0, high: 0, medium: 0, low: 0 } });
  });

  it('passes the shipped packs with the entity types of every registered detector as the known list', () => {
    // Plus the detector an area registers at the composition root (src/areas/answerability/detector.ts).
    const fromAreas = ['ANSWERABILITY.OUT_OF_BOUNDS', 'ANSWERABILITY.OUT_OF_BOUNDS_OBSERVED', 'ANSWERABILITY.BOUNDARY_BREACH'];
    const knownEntities = [...ALL_DETECTORS.flatMap((detector) => detector.entityTypes), ...fromAreas];
    const report = lintPolicies(SHIPPED.map((item) => live(item, 'org', item.mode, '')), SHIPPED, { knownEntities });
    expect(report.findings).toEqual([]);
  });

  describe('never_fires', () => {
    it.each([
      ['argument off tool_args', { surface: 'input', argument: { path: 'amount', op: 'gt', value: 5 } }],
      ['capability off tool_args', { surface: ['output', 'retrieved'], capability: 'denied' }],
      ['action facts off tool_args', { surface: 'tool_result', action_destructive: true, action_blast_radius: 'broad' }],
      ['loop and budget off tool_args', { surface: 'memory_write', loop_detected: true }],
      ['signature off agent_message', { surface: 'input', signature: 'stale' }],
      ['card mismatch off agent_message', { surface: 'output', agent_card_mismatch: true }],
      ['taint_exceeds 1', { taint_exceeds: 1 }],
      ['gt with a non-number', { surface: 'tool_args', argument: { path: 'amount', op: 'gt', value: '500' } }],
      ['in with an empty list', { surface: 'tool_args', argument: { path: 'amount', op: 'in', value: [] } }],
      ['eq with a list', { surface: 'tool_args', argument: { path: 'amount', op: 'eq', value: [1, 2] } }],
    ] as Array<[string, When]>)('reports %s (high)', (_name, when) => {
      const report = lintOne([rule('custom.rule', when)]);
      expect(codes(report.findings)).toContain('never_fires:high:custom.rule');
      expect(report.passed).toBe(false);
    });

    it('does not report conditions that hold off tool_args (false flags, radius none, tool names)', () => {
      const report = lintOne([rule('custom.rule', { surface: 'tool_result', action_destructive: false, action_blast_radius: 'none', loop_detected: false, tool: 'search_*' }, 'escalate')]);
      expect(report.findings).toEqual([]);
    });

    it('reports entity types no installed detector emits, and only part of the condition as unknown_entity', () => {
      const options = { knownEntities: ['PII.EMAIL', 'SECRET.JWT'] };
      expect(codes(lintOne([rule('custom.none', { entity: 'PII.PASSPORT', entity_prefix: 'TOXIC.', min_score: 0.5 })], options).findings)).toEqual(['never_fires:high:custom.none']);
      const partial = lintOne([rule('custom.part', { entity: ['PII.EMAIL', 'PII.PASSPORT'], min_score: 0.5 })], options);
      expect(codes(partial.findings)).toEqual(['unknown_entity:low:custom.part']);
      expect(partial.findings[0]?.message).toContain('PII.PASSPORT');
      expect(partial.passed).toBe(true);
    });

    it('reports a min_score above the highest score the detector family emits', () => {
      const options = { maxScores: { 'INJECTION.': 0.85, 'PII.US_SSN': 0.95 } };
      expect(codes(lintOne([rule('custom.high', { entity_prefix: 'INJECTION.', min_score: 0.9 })], options).findings)).toEqual(['never_fires:high:custom.high']);
      expect(lintOne([rule('custom.ok', { entity_prefix: 'INJECTION.', min_score: 0.8 })], options).findings).toEqual([]);
      expect(lintOne([rule('custom.ssn', { entity: 'PII.US_SSN', min_score: 0.9 })], options).findings).toEqual([]);
      // A prefix with no known maximum may reach 1.
      expect(lintOne([rule('custom.unknown', { entity_prefix: 'PII.', min_score: 0.99 })], options).findings).toEqual([]);
    });
  });

  describe('threshold_out_of_range', () => {
    it('reports min_score 0 (or none) on blocking (medium) and escalating (low) rules, not on masking ones', () => {
      const report = lintOne([rule('custom.block', { entity_prefix: 'PII.' })]);
      expect(codes(report.findings)).toEqual(['threshold_out_of_range:medium:custom.block']);
      expect(report.passed).toBe(true);
      expect(codes(lintOne([rule('custom.escalate', { surface: 'output', entity: 'PII.EMAIL', min_score: 0 }, 'escalate')]).findings)).toEqual(['threshold_out_of_range:low:custom.escalate']);
      expect(lintOne([rule('custom.mask', { surface: 'input', entity_prefix: 'PII.' }, 'mask')]).findings).toEqual([]);
    });

    it('reports min_score above 0.99 (medium) and a min_score without entity conditions (low)', () => {
      expect(codes(lintOne([rule('custom.sure', { entity_prefix: 'SECRET.', min_score: 0.995 })]).findings)).toEqual(['threshold_out_of_range:medium:custom.sure']);
      expect(codes(lintOne([rule('custom.stray', { surface: 'tool_args', min_score: 0.5, loop_detected: true })]).findings)).toEqual(['threshold_out_of_range:low:custom.stray']);
    });

    it('reports taint_exceeds 0 on untrusted surfaces, not on tool_args', () => {
      expect(codes(lintOne([rule('custom.taint', { surface: ['retrieved', 'tool_args'], taint_exceeds: 0 }, 'escalate')]).findings)).toEqual(['threshold_out_of_range:medium:custom.taint']);
      expect(lintOne([rule('custom.args', { surface: 'tool_args', taint_exceeds: 0 }, 'escalate')]).findings).toEqual([]);
    });
  });

  it('reports facts_unmet off completion as misplaced_condition: it holds on every call there (high)', () => {
    expect(codes(lintOne([rule('custom.facts', { surface: ['completion', 'output'], facts_unmet: ['work_verified'] }, 'escalate')]).findings)).toEqual(['misplaced_condition:high:custom.facts']);
    expect(codes(lintOne([rule('custom.anywhere', { facts_unmet: ['work_verified'] }, 'escalate')]).findings)).toEqual(['misplaced_condition:high:custom.anywhere']);
  });

  describe('shadowed_rule', () => {
    it('reports a blocking rule that a broader enforcing rule always outvotes (high)', () => {
      const report = lintOne([
        rule('custom.broad', { entity_prefix: 'INJECTION.', min_score: 0.6 }),
        rule('custom.narrow', { surface: ['input', 'retrieved'], entity: 'INJECTION.INSTRUCTION_OVERRIDE', min_score: 0.8 }),
      ]);
      expect(codes(report.findings)).toEqual(['shadowed_rule:high:custom.narrow']);
      expect(report.findings[0]?.message).toContain('custom.broad');
    });

    it('reports a masking rule outvoted by a blocking one as medium', () => {
      const report = lintOne([rule('custom.block', { entity_prefix: 'PII.', min_score: 0.5 }), rule('custom.mask', { surface: 'output', entity_prefix: 'PII.EMAIL', min_score: 0.5 }, 'mask')]);
      expect(codes(report.findings)).toEqual(['shadowed_rule:medium:custom.mask']);
    });

    it('reports only the later of two identical rules', () => {
      const when: When = { surface: 'tool_args', loop_detected: true };
      expect(codes(lintOne([rule('custom.first', when), rule('custom.second', when)]).findings)).toEqual(['shadowed_rule:high:custom.second']);
    });

    it.each([
      ['a higher min_score on the broader rule', { entity_prefix: 'PII.', min_score: 0.9 }, 'block', 'enforce'],
      ['a weaker effect', { entity_prefix: 'PII.', min_score: 0.5 }, 'escalate', 'enforce'],
      ['mask against tokenize', { entity_prefix: 'PII.', min_score: 0.5 }, 'tokenize', 'enforce'],
      ['observe against enforce', { entity_prefix: 'PII.', min_score: 0.5 }, 'block', 'observe'],
      ['a narrower surface list', { surface: 'output', entity_prefix: 'PII.', min_score: 0.5 }, 'block', 'enforce'],
      ['another tool pattern', { entity_prefix: 'PII.', min_score: 0.5, tool: 'pay_*' }, 'block', 'enforce'],
      ['a stricter argument bound', { entity_prefix: 'PII.', min_score: 0.5, argument: { path: 'amount', op: 'gt', value: 900 } }, 'block', 'enforce'],
    ] as Array<[string, When, Rule['effect'], Mode]>)('stays silent for %s', (_name, when, effect, mode) => {
      const target = rule('custom.target', { surface: ['tool_args', 'input'], entity: 'PII.EMAIL', min_score: 0.7, tool: 'refund_*', argument: { path: 'amount', op: 'gte', value: 500 } }, effect === 'tokenize' ? 'mask' : 'block', { mode: 'enforce' });
      const report = lintOne([rule('custom.other', when, effect, { mode }), target]);
      expect(codes(report.findings).filter((code) => code.startsWith('shadowed_rule'))).toEqual([]);
    });

    it('reports that same target once the other rule covers it (the control for the cases above)', () => {
      const target = rule('custom.target', { surface: ['tool_args', 'input'], entity: 'PII.EMAIL', min_score: 0.7, tool: 'refund_*', argument: { path: 'amount', op: 'gte', value: 500 } }, 'block', { mode: 'enforce' });
      const other = rule('custom.other', { entity_prefix: 'PII.', min_score: 0.5, tool: ['refund_*', 'pay_*'], argument: { path: 'amount', op: 'gt', value: 100 } }, 'block', { mode: 'enforce' });
      expect(codes(lintOne([other, target]).findings)).toEqual(['shadowed_rule:high:custom.target']);
    });

    it('counts an org pack over a team pack, but not a team pack over another team or over org', () => {
      const broad = pack('org-wide', [rule('custom.all_secrets', { entity_prefix: 'SECRET.', min_score: 0.5 })]);
      const narrow = pack('team-pack', [rule('custom.jwt', { entity: 'SECRET.JWT', min_score: 0.9 })]);
      expect(codes(lintPolicies([live(broad), live(narrow, 'team')], []).findings)).toEqual(['shadowed_rule:high:custom.jwt']);
      expect(lintPolicies([live(broad, 'team', 'enforce', 'a'), live(narrow, 'team', 'enforce', 'b')], []).findings).toEqual([]);
      expect(lintPolicies([live(narrow), live(pack('wide-team', broad.rules), 'team')], []).findings).toEqual([]);
    });
  });

  describe('loosens_baseline', () => {
    const baseline = [shipped('agent-boundaries'), shipped('baseline')];
    const lint = (changed: Pack, level: ScopeLevel = 'org', mode?: Mode) => {
      const others = baseline.filter((item) => item.key !== changed.key).map((item) => live(item));
      return lintPolicies([...others, live(changed, level, mode ?? changed.mode)], baseline);
    };

    it('reports an enforcing baseline rule removed at org level as critical, at team level as high', () => {
      const removed = shipped('agent-boundaries');
      removed.rules = removed.rules.filter((item) => item.id !== 'capability.denied');
      expect(codes(lint(removed).findings)).toEqual(['loosens_baseline:critical:capability.denied']);
      const teamReport = lintPolicies([live(shipped('baseline')), live(shipped('agent-boundaries'), 'team'), live(removed, 'team', 'enforce', 'team-2')], baseline);
      expect(codes(teamReport.findings)).toContain('loosens_baseline:high:capability.denied');
      expect(teamReport.passed).toBe(false);
    });

    it('reports a disabled rule, a weaker effect and a rule-level move to observe', () => {
      const changed = shipped('agent-boundaries');
      (changed.rules[0] as Rule).enabled = false;
      (changed.rules[1] as Rule).effect = 'allow';
      (changed.rules[2] as Rule).mode = 'observe';
      const report = lint(changed);
      expect(codes(report.findings).sort()).toEqual(['loosens_baseline:critical:capability.action_denied', 'loosens_baseline:critical:capability.approval_required', 'loosens_baseline:critical:capability.denied']);
      const messages = report.findings.map((finding) => finding.message).join(' ');
      for (const reason of ['The baseline rule is disabled', 'Effect weakened from escalate to allow', 'Mode changed from enforce to observe']) expect(messages).toContain(reason);
    });

    it('reports a raised min_score, and a pack that ships enforce running in observe, once for the pack', () => {
      const raised = shipped('agent-boundaries');
      const pii = raised.rules.find((item) => item.id === 'pii.memory_and_agent_message') as Rule;
      pii.when.min_score = 0.8;
      const report = lint(raised);
      expect(codes(report.findings)).toEqual(['loosens_baseline:critical:pii.memory_and_agent_message']);
      expect(report.findings[0]?.message).toContain('min_score raised from 0.5 to 0.8');
      const observed = lint(shipped('agent-boundaries'), 'org', 'observe');
      expect(codes(observed.findings)).toEqual(['loosens_baseline:critical:-']);
    });

    it('reports a condition change it cannot prove harmless, and not one it can', () => {
      const narrowed = shipped('agent-boundaries');
      (narrowed.rules.find((item) => item.id === 'pii.memory_and_agent_message') as Rule).when.surface = 'memory_write';
      expect(codes(lint(narrowed).findings)).toEqual(['loosens_baseline:critical:pii.memory_and_agent_message']);
      const widened = shipped('agent-boundaries');
      (widened.rules.find((item) => item.id === 'pii.memory_and_agent_message') as Rule).when.surface = ['memory_write', 'agent_message', 'output'];
      // Widening loses nothing (it now outvotes baseline's pii.mask_output on output, which is reported apart).
      expect(codes(lint(widened).findings).filter((code) => code.startsWith('loosens_baseline'))).toEqual([]);
    });

    it('reports a loosened observe-only baseline rule as medium, and a missing baseline pack', () => {
      const baselinePack = shipped('baseline');
      baselinePack.rules = baselinePack.rules.filter((item) => item.id !== 'pii.mask_output');
      expect(codes(lint(baselinePack).findings)).toEqual(['loosens_baseline:medium:pii.mask_output']);
      // Promoted to enforce in the live set, the same removal is critical.
      expect(codes(lint(baselinePack, 'org', 'enforce').findings)).toEqual(['loosens_baseline:critical:pii.mask_output']);
      const missing = lintPolicies([live(shipped('baseline'))], baseline);
      expect(codes(missing.findings)).toEqual(['loosens_baseline:critical:-']);
      expect(missing.findings[0]?.message).toContain('agent-boundaries');
    });
  });
});

describe('implies', () => {
  it.each([
    [{ surface: 'input', entity: 'PII.EMAIL', min_score: 0.8 }, { entity_prefix: 'PII.', min_score: 0.5 }, true],
    [{ entity_prefix: 'PII.EMAIL' }, { entity_prefix: 'PII.' }, true],
    [{ entity_prefix: 'PII.' }, { entity: 'PII.EMAIL' }, false],
    [{ taint_exceeds: 0.7 }, { taint_exceeds: 0.5 }, true],
    [{ taint_exceeds: 0.5 }, { taint_exceeds: 0.7 }, false],
    [{ facts_unmet: ['a'] }, { facts_unmet: ['a', 'b'] }, true],
    [{ facts_unmet: ['a', 'b'] }, { facts_unmet: ['a'] }, false],
    [{ action_blast_radius: 'total' }, { action_blast_radius: 'broad' }, true],
    [{}, { action_blast_radius: 'none' }, true],
    [{ tool: 'refund_card' }, { tool: 'refund_*' }, true],
    [{ tool: 'refund_card_*' }, { tool: 'refund_*' }, true],
    [{ tool: 'refund_*' }, { tool: 'refund_card_*' }, false],
    [{ tool: 'x_*_y' }, { tool: '*_y' }, true],
    [{ argument: { path: 'a', op: 'gt', value: 10 } }, { argument: { path: 'a', op: 'gte', value: 10 } }, true],
    [{ argument: { path: 'a', op: 'gte', value: 10 } }, { argument: { path: 'a', op: 'gt', value: 10 } }, false],
    [{ argument: { path: 'a', op: 'lt', value: 3 } }, { argument: { path: 'a', op: 'exists' } }, true],
    [{ argument: { path: 'a', op: 'ne', value: 3 } }, { argument: { path: 'a', op: 'exists' } }, false],
    [{ argument: { path: 'a', op: 'in', value: [1, 2] } }, { argument: { path: 'a', op: 'in', value: [1, 2, 3] } }, true],
    [{ agent: 'a' }, { agent: ['a', 'b'] }, true],
    [{ detector_degraded: true }, { detector_degraded: false }, false],
    [{ surface: 'input' }, {}, true],
  ] as Array<[When, When, boolean]>)('%j ⇒ %j is %s', (from, to, expected) => {
    expect(implies(from, to)).toBe(expected);
  });
});

describe('diffPacks', () => {
  const base = shipped('agent-boundaries');

  it('lists no change and no loosening for the same pack', () => {
    expect(diffPacks(base, clone(base))).toMatchObject({ added: [], removed: [], changed: [], fields: [], loosens: false });
  });

  it('treats a new pack as added rules that tighten', () => {
    const diff = diffPacks(null, base);
    expect(diff.added.map((item) => item.rule_id)).toEqual(base.rules.map((item) => item.id));
    expect(diff).toMatchObject({ from_version: null, to_version: 1, loosens: false });
  });

  it('marks an added rule and a stronger effect as tightening', () => {
    const next = clone(base);
    next.version = 2;
    next.rules.push(rule('custom.extra', { surface: 'tool_args', loop_detected: true }));
    (next.rules.find((item) => item.id === 'tool.not_declared') as Rule).effect = 'block';
    const diff = diffPacks(base, next);
    expect(diff.fields).toEqual(['version']);
    expect(diff.added).toEqual([{ rule_id: 'custom.extra', fields: [], loosens: false, reasons: [] }]);
    expect(diff.changed).toEqual([{ rule_id: 'tool.not_declared', fields: ['effect'], loosens: false, reasons: [] }]);
    expect(diff.loosens).toBe(false);
  });

  it('marks removed, disabled, weakened, observe and raised-min_score rules as loosening', () => {
    const next = clone(base);
    next.rules = next.rules.filter((item) => item.id !== 'mcp.undeclared_tool');
    const find = (id: string) => next.rules.find((item) => item.id === id) as Rule;
    find('capability.denied').enabled = false;
    find('capability.action_denied').effect = 'escalate';
    find('capability.taint_exceeded').mode = 'observe';
    find('pii.memory_and_agent_message').when.min_score = 0.7;
    const diff = diffPacks(base, next);
    expect(diff.removed).toEqual([{ rule_id: 'mcp.undeclared_tool', fields: [], loosens: true, reasons: ['Rule removed'] }]);
    expect(diff.changed.map((item) => [item.rule_id, item.fields, item.loosens])).toEqual([
      ['capability.denied', ['enabled'], true],
      ['capability.action_denied', ['effect'], true],
      ['capability.taint_exceeded', ['mode'], true],
      ['pii.memory_and_agent_message', ['when.min_score'], true],
    ]);
    expect(diff.changed[3]?.reasons).toEqual(['min_score raised from 0.5 to 0.7']);
    expect(diff.loosens).toBe(true);
  });

  it('marks the pack going to observe or fail open as loosening, once for the pack', () => {
    const next = clone(base);
    next.mode = 'observe';
    const diff = diffPacks({ ...base, fail_mode: 'closed' }, next);
    expect(diff.fields).toEqual(['mode', 'fail_mode']);
    expect(diff.reasons).toEqual(['Pack mode changed from enforce to observe', 'fail_mode changed from closed to open']);
    expect(diff.changed).toEqual([]);
    expect(diff.loosens).toBe(true);
  });

  it('marks a condition change as loosening unless it provably narrows nothing', () => {
    const widen = clone(base);
    const wider = widen.rules.find((item) => item.id === 'taint.hostile_arguments') as Rule;
    wider.when.taint_exceeds = 0.3;
    wider.message = 'Reworded.';
    const widened = diffPacks(base, widen);
    expect(widened.changed).toEqual([{ rule_id: 'taint.hostile_arguments', fields: ['message', 'when.taint_exceeds'], loosens: false, reasons: [] }]);
    const narrow = clone(base);
    (narrow.rules.find((item) => item.id === 'taint.hostile_arguments') as Rule).when.tool = 'refund_*';
    const narrowed = diffPacks(base, narrow);
    expect(narrowed.changed).toEqual([{ rule_id: 'taint.hostile_arguments', fields: ['when.tool'], loosens: true, reasons: ['Conditions changed in a way that may match fewer calls'] }]);
    expect(narrowed.loosens).toBe(true);
  });

  it('does not count re-enabling a rule or changing a disabled one as loosening', () => {
    const off = clone(base);
    (off.rules[0] as Rule).enabled = false;
    const on = clone(base);
    expect(diffPacks(off, on)).toMatchObject({ loosens: false, changed: [{ rule_id: 'capability.denied', fields: ['enabled'], loosens: false }] });
    const offWeaker = clone(off);
    (offWeaker.rules[0] as Rule).effect = 'allow';
    expect(diffPacks(off, offWeaker).loosens).toBe(false);
  });
});
