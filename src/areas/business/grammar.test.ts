// The plain-language grammar as a table: the sentences it must handle, what it assumes and what it
// says it could not understand; deterministic and linear.
import Value from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { PackSchema } from '../../engine/policy/schema.js';
import { compileBusinessText } from './grammar.js';
import { businessRulesPack } from './pack.js';
import { BusinessDefinitionSchema } from './schemas.js';

describe('compiling plain-language business rules', () => {
  it.each([
    [
      "refunds above 500 dollars need a manager's approval",
      { key: 'refund_over_500', action: 'refund', tools: ['*refund*'], conditions: [{ path: 'amount', op: 'gt', value: 500, unit: 'USD' }], effect: 'escalate', approver: 'manager' },
      [],
    ],
    [
      'block transfers over $10,000',
      { key: 'transfer_over_10000', action: 'transfer', tools: ['*transfer*'], conditions: [{ path: 'amount', op: 'gt', value: 10000, unit: 'USD' }], effect: 'block', approver: null },
      [],
    ],
    [
      'payments of more than 1000 EUR require approval',
      { key: 'payment_over_1000', action: 'payment', tools: ['*payment*'], conditions: [{ path: 'amount', op: 'gt', value: 1000, unit: 'EUR' }], effect: 'escalate', approver: null },
      [],
    ],
    [
      'never delete customer records',
      {
        key: 'delete_customer_blocked',
        action: 'delete',
        tools: ['*customer*delete*', '*delete*customer*', '*customer*remove*', '*remove*customer*'],
        conditions: [],
        effect: 'block',
        approver: null,
      },
      [],
    ],
    [
      'discounts greater than 20 percent need approval from finance',
      { key: 'discount_over_20', action: 'discount', tools: ['*discount*'], conditions: [{ path: 'percent', op: 'gt', value: 20, unit: 'percent' }], effect: 'escalate', approver: 'finance' },
      [],
    ],
    [
      'wire transfers to new accounts must be approved',
      { key: 'wire_transfer_approval', action: 'transfer', tools: ['*wire*transfer*', '*transfer*wire*'], conditions: [], effect: 'escalate', approver: null },
      ['to new accounts'],
    ],
  ])('%s', (text, expected, unparsed) => {
    const result = compileBusinessText(text);
    expect(result.definition).toEqual({ ...expected, text, mode: 'observe' });
    expect(result.unparsed).toEqual(unparsed);
    expect(result.understood).toBe(true);
    expect([...Value.Errors(BusinessDefinitionSchema, result.definition)]).toEqual([]);
  });

  it('says which argument and currency handling it assumed', () => {
    const { warnings } = compileBusinessText('refunds above 500 dollars need a manager\'s approval');
    expect(warnings).toContain('no argument was named for the amount: assumed the tool argument "amount"');
    expect(warnings.some((warning) => warning.includes('currency (USD) is not checked'))).toBe(true);
    expect(compileBusinessText('discounts greater than 20 percent need approval from finance').warnings).toContain(
      'no argument was named for the percentage: assumed the tool argument "percent"',
    );
  });

  it('reports the phrase it ignored in the warnings too', () => {
    const { warnings } = compileBusinessText('wire transfers to new accounts must be approved');
    expect(warnings).toContain('"to new accounts" was not understood and is not part of the rule: it applies whatever "to new accounts" says');
  });

  it.each([
    ['refunds with a total of at least $250 need approval', [{ path: 'total', op: 'gte', value: 250, unit: 'USD' }]],
    ['refunds under 10 euros are blocked', [{ path: 'amount', op: 'lt', value: 10, unit: 'EUR' }]],
    ['payouts between 100 and 500 dollars need review', [
      { path: 'amount', op: 'gte', value: 100, unit: 'USD' },
      { path: 'amount', op: 'lte', value: 500, unit: 'USD' },
    ]],
    ['refunds exceeding 2.5k usd require approval by the finance team', [{ path: 'amount', op: 'gt', value: 2500, unit: 'USD' }]],
    ['refunds of 1000 dollars or more need approval', [{ path: 'amount', op: 'gte', value: 1000, unit: 'USD' }]],
    ['discounts above 15% need approval', [{ path: 'percent', op: 'gt', value: 15, unit: 'percent' }]],
  ])('%s', (text, conditions) => {
    expect(compileBusinessText(text).definition.conditions).toEqual(conditions);
  });

  it('names a multi-word approver', () => {
    expect(compileBusinessText('refunds exceeding 2.5k usd require approval by the finance team').definition.approver).toBe('finance team');
  });

  it('says so when it finds no action, and applies to every tool only as a suggestion', () => {
    const result = compileBusinessText('anything above 5 needs approval');
    expect(result.understood).toBe(false);
    expect(result.definition.tools).toEqual(['*']);
    expect(result.warnings[result.warnings.length - 1]).toMatch(/anything/);
    expect(result.unparsed).toEqual(['anything']);
  });

  it('assumes escalate without a consequence and says so', () => {
    const result = compileBusinessText('refunds above 100 dollars');
    expect(result.definition.effect).toBe('escalate');
    expect(result.warnings).toContain('no consequence (need approval, block, never, ...) was found: assumed that the call needs approval (escalate)');
  });

  it('is deterministic and linear in the text', () => {
    const text = "refunds above 500 dollars need a manager's approval";
    expect(compileBusinessText(text)).toEqual(compileBusinessText(text));
    const long = `${'lorem ipsum '.repeat(150)}refunds above 5 dollars`.slice(-2000);
    const started = performance.now();
    for (let i = 0; i < 50; i += 1) compileBusinessText(long);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('compiles into a valid business-rules pack with tool and argument conditions on tool_args', () => {
    const { definition } = compileBusinessText("refunds above 500 dollars need a manager's approval");
    const pack = businessRulesPack([{ key: definition.key as string, definition, agent: 'shop-bot', mode: 'enforce' }]);
    expect([...Value.Errors(PackSchema, pack)]).toEqual([]);
    expect(pack.rules[0]).toEqual({
      id: 'business.refund_over_500',
      description: "refunds above 500 dollars need a manager's approval",
      when: { surface: 'tool_args', tool: ['*refund*'], argument: [{ path: 'amount', op: 'gt', value: 500 }], agent: 'shop-bot' },
      effect: 'escalate',
      message: 'Business rule: refund calls with amount above 500 USD need approval from manager ("refunds above 500 dollars need a manager\'s approval")',
      mode: 'enforce',
    });
  });
});
