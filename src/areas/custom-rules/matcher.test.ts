// Custom rule matching as tables: keywords as whole words, linear-time patterns (and the refusals),
// sequences in order within a distance, require polarity, and the detector plus pack evaluated by
// the policy engine.
import { describe, expect, it } from 'vitest';
import { SURFACES, type DetectContext } from '../../engine/detectors/types.js';
import { compilePack, evaluate, type CallFacts } from '../../engine/policy/evaluate.js';
import { plainFacts } from '../../engine/policy/facts.js';
import { PackSchema } from '../../engine/policy/schema.js';
import Value from 'typebox/value';
import { toDefinition } from './definition.js';
import { CustomRulesDetector } from './detector.js';
import { compileCustomRule, entityOf, ruleIdOf, RuleInvalid, type CustomRuleDefinition } from './matcher.js';
import { customRulesPack } from './pack.js';
import { compileSafeRegex, UnsafePattern } from './safe-regex.js';
import type { UpsertCustomRuleBody } from './schemas.js';

const rule = (fields: Partial<UpsertCustomRuleBody>): CustomRuleDefinition => toDefinition({ key: 'test', name: 'Test rule', ...fields });
const spans = (definition: CustomRuleDefinition, text: string) => compileCustomRule(definition).run(text).spans.map(({ start, end }) => text.slice(start, end));
const context = (surface: DetectContext['surface']): DetectContext => ({ surface, settings: { pii_packs: [] } });

describe('keyword rules', () => {
  it.each([
    ['a phrase in any case', ['project falcon'], 'About PROJECT Falcon today', ['PROJECT Falcon']],
    ['a phrase across a line break', ['project falcon'], 'project\n  falcon', ['project\n  falcon']],
    ['not inside a longer word', ['ban'], 'banana bandana ban.', ['ban']],
    ['several words, every occurrence', ['acme', 'globex'], 'acme, Globex and ACME', ['acme', 'Globex', 'ACME']],
    ['a keyword ending in punctuation', ['c++'], 'we write C++ daily', ['C++']],
    ['letters of other scripts are word characters', ['ñandú'], 'el ñandúes, el Ñandú', ['Ñandú']],
    ['regex syntax in a keyword is literal', ['a.b*'], 'axbbb a.b* ok', ['a.b*']],
  ])('%s', (_name, entries, text, expected) => {
    expect(spans(rule({ entries }), text)).toEqual(expected);
  });

  it('matches case-sensitively when asked', () => {
    expect(spans(rule({ entries: ['Falcon'], case_sensitive: true }), 'falcon Falcon FALCON')).toEqual(['Falcon']);
  });

  it('names the keyword that matched', () => {
    const outcome = compileCustomRule(rule({ entries: ['project falcon'] })).run('PROJECT   FALCON');
    expect(outcome.spans[0]?.entry).toBe('project falcon');
  });

  it('refuses a keyword rule without entries', () => {
    expect(() => compileCustomRule(rule({ entries: [] }))).toThrow(RuleInvalid);
  });
});

describe('regex rules', () => {
  it('finds every match with its offsets, case-sensitive by default', () => {
    const definition = rule({ kind: 'regex', entries: ['ACCT-\\d{6}'] });
    expect(definition.case_sensitive).toBe(true);
    expect(spans(definition, 'ACCT-123456 acct-654321 ACCT-000001')).toEqual(['ACCT-123456', 'ACCT-000001']);
  });

  it('reports offsets in UTF-16 code units like the rest of the gateway', () => {
    const text = '😀 ééx';
    const outcome = compileCustomRule(rule({ kind: 'regex', entries: ['é+x'] })).run(text);
    expect(outcome.spans[0]).toMatchObject({ start: 3, end: 6 });
  });

  it.each([
    ['(a)\\1', /backreferences/],
    ['(?P<n>a)(?P=n)', /backreferences/],
    ['foo(?=bar)', /lookahead/],
    ['(?<!x)foo', /lookbehind/],
    ['(?<=x)foo', /lookbehind/],
    ['a'.repeat(1001), /longer than 1000/],
    ['a*', /empty text/],
    ['(', /refuses it/],
    ['(x{1000}){1000}', /refuses it/],
  ])('refuses %s', (pattern, reason) => {
    let caught: unknown;
    try {
      compileSafeRegex(pattern, { caseSensitive: true });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UnsafePattern);
    expect((caught as UnsafePattern).reason).toMatch(reason);
  });

  it('names the bad pattern in the rule error', () => {
    let caught: unknown;
    try {
      compileCustomRule(rule({ kind: 'regex', entries: ['ok\\d+', '(a)\\1'] }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RuleInvalid);
    expect((caught as RuleInvalid).errors).toEqual([{ field: '/entries/1', message: expect.stringContaining('backreferences') }]);
  });

  it('refuses a pattern whose program is too large to locate matches quickly', () => {
    expect(() => compileSafeRegex('[a-z]{1000}!', { caseSensitive: true })).toThrow(/too complex: 1003 instructions/);
    expect(compileSafeRegex('[A-Z]{2}\\d{2}[A-Z0-9]{11,30}', { caseSensitive: true }).programSize()).toBeLessThan(60);
  });

  it('locates matches across window boundaries once each, and keeps a match too long to place', () => {
    const text = `${'x'.repeat(3580)} ACCT-123456 ${'y'.repeat(5000)} ACCT-654321`;
    const found = compileCustomRule(rule({ kind: 'regex', entries: ['ACCT-\\d{6}'] })).run(text);
    expect(found.spans.map(({ start, end }) => text.slice(start, end))).toEqual(['ACCT-123456', 'ACCT-654321']);
    const long = `x${'a'.repeat(6000)}y`;
    const outcome = compileCustomRule(rule({ kind: 'regex', entries: ['x[a-z]+y'] })).run(long);
    expect(outcome).toMatchObject({ matched: true, fires: true, spans: [{ start: 0, end: 0, entry: 'x[a-z]+y' }] });
  });

  it.each([
    ['(a+)+$', `${'a'.repeat(50_000)}!`],
    ['[a-z]{150}!', `${'a'.repeat(150)}!`.repeat(331)],
    ['(\\w+\\s*){30}!', `${'a'.repeat(50_000)}!`],
    ['(a|aa){30}!', `${'a'.repeat(50_000)}!`],
  ])('decides %s over 50,000 adversarial characters at once (a backtracking engine would not finish)', (pattern, text) => {
    const compiled = compileCustomRule(rule({ kind: 'regex', entries: [pattern] }));
    const started = performance.now();
    compiled.run(text, { deadline: Date.now() + 300 });
    // About 0.3 s here; loose so that a busy machine does not fail it.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('runs an adversarial pattern over 50,000 characters at once (a backtracking engine would not finish)', () => {
    const compiled = compileCustomRule(rule({ kind: 'regex', entries: ['(a+)+$'] }));
    const text = `${'a'.repeat(50_000)}!`;
    const started = performance.now();
    const outcome = compiled.run(text);
    const ms = performance.now() - started;
    expect(outcome.matched).toBe(false);
    expect(ms).toBeLessThan(5000);
  });
});

describe('sequence rules', () => {
  const wire = rule({
    kind: 'sequence',
    sequence: { steps: [{ any: ['wire', 'transfer'] }, { any: ['account number'] }, { regex: '\\d{8,}' }], within: 30 },
  });

  it('matches steps in order within the distance and spans the whole sequence', () => {
    expect(spans(wire, 'please wire it to account number: 12345678 today')).toEqual(['wire it to account number: 12345678']);
  });

  it.each([
    ['steps out of order', '12345678 account number, wire'],
    ['a gap longer than within', `wire ${'x'.repeat(40)} account number 12345678`],
    ['a missing step', 'wire to account number soon'],
  ])('does not match %s', (_name, text) => {
    expect(compileCustomRule(wire).run(text).matched).toBe(false);
  });

  it('finds a later chain when the first start has no continuation', () => {
    const text = `transfer ${'y'.repeat(100)} wire to account number 99999999`;
    expect(spans(wire, text)).toEqual(['wire to account number 99999999']);
  });

  it('stays linear on many occurrences of every step', () => {
    const text = 'wire account number 1 '.repeat(20_000);
    const started = performance.now();
    compileCustomRule(wire).run(text);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses a sequence rule without a sequence, and entries on a sequence rule', () => {
    expect(() => compileCustomRule(rule({ kind: 'sequence' }))).toThrow(/needs a sequence/);
    expect(() => compileCustomRule({ ...wire, entries: ['x'] })).toThrow(/not entries/);
  });
});

describe('require polarity', () => {
  const disclaimer = rule({ polarity: 'require', entries: ['not financial advice'], surfaces: ['output'] });

  it('fires when the text lacks the required words and not when it has them', () => {
    const compiled = compileCustomRule(disclaimer);
    expect(compiled.run('Buy now!').fires).toBe(true);
    expect(compiled.run('Buy now! This is not financial advice.').fires).toBe(false);
  });
});

describe('naming', () => {
  it.each([
    ['falcon', 'CUSTOM.FALCON', 'custom.falcon'],
    ['wire-transfer.v2', 'CUSTOM.WIRE_TRANSFER_V2', 'custom.wire_transfer_v2'],
    ['Acme_2', 'CUSTOM.ACME_2', 'custom.acme_2'],
    ['9lives', 'CUSTOM.9LIVES', 'custom.9lives'],
  ])('%s → %s, %s', (key, entity, ruleId) => {
    expect(entityOf(key)).toMatch(/^[A-Z]+\.[A-Z0-9_]+$/);
    expect(entityOf(key)).toBe(entity);
    expect(ruleIdOf(key)).toMatch(/^[a-z][a-z0-9_]*\.[a-z0-9_.]+$/);
    expect(ruleIdOf(key)).toBe(ruleId);
  });
});

describe('the detector and the custom-rules pack', () => {
  const falcon = toDefinition({ key: 'falcon', name: 'Project Falcon', entries: ['project falcon'], surfaces: ['input', 'output'], agents: ['support-bot'], message: 'Falcon is confidential' });
  const disclaimer = toDefinition({ key: 'disclaimer', name: 'Disclaimer', polarity: 'require', entries: ['not financial advice'], surfaces: ['output'], effect: 'escalate' });
  const off = toDefinition({ key: 'off', name: 'Disabled', entries: ['anything'], enabled: false });

  const facts = (text: string, surface: DetectContext['surface'], agent: string, detector: CustomRulesDetector): CallFacts => ({
    ...plainFacts(surface, agent),
    detections: detector.detect(text, context(surface)),
  });

  it('emits CUSTOM detections for the enabled rules of the surface only', () => {
    const detector = new CustomRulesDetector();
    detector.setRules([falcon, disclaimer, off]);
    expect(detector.entityTypes).toEqual(['CUSTOM.FALCON', 'CUSTOM.DISCLAIMER']);
    expect(detector.detect('project falcon and anything', context('input'))).toEqual([
      expect.objectContaining({ entity: 'CUSTOM.FALCON', score: 1, start: 0, end: 14, pattern: 'falcon', explanation: expect.stringContaining('Project Falcon') }),
    ]);
    expect(detector.detect('project falcon', context('retrieved'))).toEqual([]);
    const output = detector.detect('Buy now', context('output'));
    expect(output).toEqual([expect.objectContaining({ entity: 'CUSTOM.DISCLAIMER', start: 0, end: 0 })]);
  });

  it('swaps its rule table at once', () => {
    const detector = new CustomRulesDetector();
    detector.setRules([falcon]);
    expect(detector.detect('project falcon', context('input'))).toHaveLength(1);
    expect(detector.surfaces).toEqual(['input', 'output']);
    detector.setRules([]);
    expect(detector.detect('project falcon', context('input'))).toEqual([]);
    expect(detector.surfaces).toEqual([]);
    detector.setRules([toDefinition({ key: 'anywhere', name: 'Anywhere', entries: ['x-ray'] })]);
    expect(detector.surfaces).toEqual(SURFACES);
  });

  it('builds a valid pack whose rules block only for the named agents and surfaces', () => {
    const detector = new CustomRulesDetector();
    detector.setRules([falcon, disclaimer, off]);
    const pack = customRulesPack([falcon, disclaimer, off]);
    expect([...Value.Errors(PackSchema, pack)]).toEqual([]);
    expect(pack.rules.map((r) => r.id)).toEqual(['custom.falcon', 'custom.disclaimer']);
    expect(pack.rules[0]).toMatchObject({ when: { entity: 'CUSTOM.FALCON', surface: ['input', 'output'], agent: ['support-bot'] }, effect: 'block', message: 'Falcon is confidential' });
    const compiled = [compilePack(pack)];
    const blocked = evaluate(compiled, facts('tell me about project falcon', 'input', 'support-bot', detector));
    expect(blocked.verdict).toBe('block');
    expect(blocked.decisive).toMatchObject({ rule_id: 'custom.falcon', pack: 'custom-rules', message: 'Falcon is confidential' });
    expect(evaluate(compiled, facts('tell me about project falcon', 'input', 'other-bot', detector)).verdict).toBe('allow');
    expect(evaluate(compiled, facts('Buy now', 'output', 'any', detector)).verdict).toBe('escalate');
    expect(evaluate(compiled, facts('Buy now, not financial advice', 'output', 'any', detector)).verdict).toBe('allow');
  });

  it('puts on_block into the message of a blocking rule', () => {
    const withOnBlock = toDefinition({ key: 'k', name: 'K', entries: ['secret'], message: 'internal reason', on_block: 'Sorry, I cannot discuss that.' });
    expect(customRulesPack([withOnBlock]).rules[0]?.message).toBe('Sorry, I cannot discuss that.');
    const onBlock = { message: 'Not here.', ticket: 'SEC-1' };
    const objectForm = toDefinition({ key: 'k', name: 'K', entries: ['secret'], on_block: onBlock });
    expect(customRulesPack([objectForm]).rules[0]?.message).toBe('Not here.');
    const escalating = toDefinition({ key: 'k', name: 'K', entries: ['secret'], effect: 'escalate', message: 'held', on_block: 'unused' });
    expect(customRulesPack([escalating]).rules[0]?.message).toBe('held');
  });
});
