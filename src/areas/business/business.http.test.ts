// Business rules over HTTP on both dialects: the plain-language compile (every example sentence,
// nothing saved), saving definitions (audited, observe by default), per-rule modes, refusals, the
// pack the policy engine evaluates on tool calls, agreement across processes, and every route
// answering malformed input with a 4xx problem. Served by the real gateway (test/helpers/gateway.ts).
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { auditCount, auditOf } from '../../../test/helpers/audit.js';
import { malformedRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';
import { compilePack, evaluate, type CallFacts } from '../../engine/policy/evaluate.js';
import { plainFacts } from '../../engine/policy/facts.js';
import type { Pack } from '../../engine/policy/schema.js';
import { BusinessRuleService } from './service.js';

/** The facts of a tool call as the pipeline gathers them. */
const toolCall = (agent: string, tool: string, args: Record<string, unknown>): CallFacts => ({
  ...plainFacts('tool_args', agent),
  capability: new Set(['granted']),
  tool,
  args,
});

const EXAMPLES: Array<[string, Record<string, unknown>]> = [
  ["refunds above 500 dollars need a manager's approval", { tools: ['*refund*'], effect: 'escalate', approver: 'manager', conditions: [{ path: 'amount', op: 'gt', value: 500, unit: 'USD' }] }],
  ['block transfers over $10,000', { tools: ['*transfer*'], effect: 'block', conditions: [{ path: 'amount', op: 'gt', value: 10000, unit: 'USD' }] }],
  ['payments of more than 1000 EUR require approval', { tools: ['*payment*'], effect: 'escalate', conditions: [{ path: 'amount', op: 'gt', value: 1000, unit: 'EUR' }] }],
  ['never delete customer records', { effect: 'block', conditions: [] }],
  ['discounts greater than 20 percent need approval from finance', { tools: ['*discount*'], effect: 'escalate', approver: 'finance', conditions: [{ path: 'percent', op: 'gt', value: 20, unit: 'percent' }] }],
  ['wire transfers to new accounts must be approved', { tools: ['*wire*transfer*', '*transfer*wire*'], effect: 'escalate', conditions: [] }],
];

describe.each(DIALECTS)('business rules over HTTP (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  const compile = (text: string) => ctx.gateway.request('/api/business/compile', { method: 'POST', json: { text } });
  const save = (body: unknown) => ctx.gateway.request('/api/business/rules', { method: 'POST', json: body });

  it.each(EXAMPLES)('compiles "%s" without saving anything', async (text, expected) => {
    const before = await auditCount(ctx.gateway);
    const response = await compile(text);
    expect(response.status).toBe(200);
    const result = await json(response);
    expect(result.definition).toMatchObject({ ...expected, text, mode: 'observe' });
    expect(result.understood).toBe(true);
    expect(result.rule).toMatchObject({ id: `business.${result.definition.key}`, when: { surface: 'tool_args', tool: result.definition.tools }, effect: expected.effect, mode: 'observe' });
    expect(await auditCount(ctx.gateway)).toBe(before);
    expect((await json(ctx.gateway.request('/api/business/rules'))).items.some((item: { definition: { text?: string } }) => item.definition.text === text)).toBe(false);
  });

  it('says what it could not understand', async () => {
    const result = await json(compile('wire transfers to new accounts must be approved'));
    expect(result.unparsed).toEqual(['to new accounts']);
    expect(result.warnings.join('\n')).toMatch(/"to new accounts" was not understood/);
    const assumed = await json(compile("refunds above 500 dollars need a manager's approval"));
    expect(assumed.unparsed).toEqual([]);
    expect(assumed.warnings).toContain('no argument was named for the amount: assumed the tool argument "amount"');
  });

  it('saves a compiled definition in observe, audited, and the pack evaluates it on tool calls', async () => {
    const { definition } = await json(compile("refunds above 500 dollars need a manager's approval"));
    const response = await save({ definition });
    expect(response.status).toBe(200);
    const rule = await json(response);
    expect(rule).toMatchObject({ key: 'refund_over_500', agent: null, mode: 'observe', rule_id: 'business.refund_over_500', definition: { ...definition, mode: 'observe' } });
    expect(await auditOf(ctx.gateway, 'refund_over_500')).toEqual([
      expect.objectContaining({ action: 'business_rule.upsert', detail: expect.objectContaining({ created: true, mode: 'observe', rule_id: 'business.refund_over_500' }) }),
    ]);
    const packs = [compilePack(ctx.gateway.app.services.businessRules.pack())];
    const held = evaluate(packs, toolCall('shop-bot', 'refund_order', { amount: 750 }));
    expect(held.verdict).toBe('allow');
    expect(held.effectiveVerdict).toBe('escalate');
    expect(held.fired[0]).toMatchObject({ rule_id: 'business.refund_over_500', mode: 'observe', message: expect.stringContaining('need approval from manager') });
    expect(evaluate(packs, toolCall('shop-bot', 'refund_order', { amount: '499.99' })).fired).toEqual([]);
    expect(evaluate(packs, toolCall('shop-bot', 'send_email', { amount: 9000 })).fired).toEqual([]);
  });

  it('moves one rule to enforce (audited once) and the pack follows', async () => {
    const { definition } = await json(compile('block transfers over $10,000'));
    await save({ definition });
    const response = await ctx.gateway.request(`/api/business/rules/${definition.key}/mode`, { method: 'POST', json: { mode: 'enforce' } });
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ key: 'transfer_over_10000', mode: 'enforce', rule: { mode: 'enforce' } });
    const again = await ctx.gateway.request(`/api/business/rules/${definition.key}/mode`, { method: 'POST', json: { mode: 'enforce' } });
    expect(again.status).toBe(200);
    expect((await auditOf(ctx.gateway, 'transfer_over_10000')).map((entry) => entry.action)).toEqual(['business_rule.upsert', 'business_rule.mode']);
    const packs = [compilePack(ctx.gateway.app.services.businessRules.pack())];
    const blocked = evaluate(packs, toolCall('bank-bot', 'bank_transfer', { amount: 25_000 }));
    expect(blocked.verdict).toBe('block');
    expect(blocked.decisive).toMatchObject({ rule_id: 'business.transfer_over_10000', pack: 'business-rules', mode: 'enforce' });
    // Saving the rule again keeps its mode unless the definition names one.
    expect((await json(save({ definition: { ...definition, mode: undefined } }))).mode).toBe('enforce');
    expect((await ctx.gateway.request('/api/business/rules/no_such_rule/mode', { method: 'POST', json: { mode: 'observe' } })).status).toBe(404);
  });

  it('restricts a rule to one agent with the agent condition', async () => {
    const rule = await json(save({ definition: { key: 'discount_cap', tools: ['*discount*'], conditions: [{ path: 'percent', op: 'gt', value: 20 }], effect: 'block', mode: 'enforce' }, agent: 'sales-bot' }));
    expect(rule).toMatchObject({ agent: 'sales-bot', rule: { when: { agent: 'sales-bot', argument: [{ path: 'percent', op: 'gt', value: 20 }] } } });
    const packs = [compilePack(ctx.gateway.app.services.businessRules.pack())];
    expect(evaluate(packs, toolCall('sales-bot', 'apply_discount', { percent: 30 })).verdict).toBe('block');
    expect(evaluate(packs, toolCall('other-bot', 'apply_discount', { percent: 30 })).verdict).toBe('allow');
  });

  it('derives a key for a hand-written definition without one', async () => {
    const rule = await json(save({ definition: { action: 'payout', tools: ['*payout*'], conditions: [{ path: 'amount', op: 'gte', value: 2500 }], effect: 'escalate' } }));
    expect(rule.key).toBe('payout_from_2500');
  });

  it.each([
    ['a comparison with a text value', { tools: ['*refund*'], effect: 'block', conditions: [{ path: 'amount', op: 'gt', value: 'lots' }] }, 400],
    ['in without a list', { tools: ['*refund*'], effect: 'block', conditions: [{ path: 'currency', op: 'in', value: 'USD' }] }, 400],
    ['an effect business rules do not have', { tools: ['*refund*'], effect: 'mask' }, 400],
    ['no tools', { tools: [], effect: 'block' }, 400],
    ['a rule on every tool', { tools: ['*'], effect: 'block' }, 422],
    ['a bad key', { key: 'Bad Key', tools: ['*refund*'], effect: 'block' }, 400],
    ['an unknown field', { tools: ['*refund*'], effect: 'block', surprise: true }, 400],
  ])('refuses %s', async (_name, definition, status) => {
    const before = await auditCount(ctx.gateway);
    const response = await save({ definition });
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await auditCount(ctx.gateway)).toBe(before);
  });

  it('refuses an empty or missing text to compile', async () => {
    expect((await compile('')).status).toBe(400);
    expect((await ctx.gateway.request('/api/business/compile', { method: 'POST', json: {} })).status).toBe(400);
  });

  it('needs the operator role to save and the viewer role to list', async () => {
    const viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'viewer', role: 'viewer' } }))).token;
    expect((await ctx.gateway.request('/api/business/rules', { token: viewer })).status).toBe(200);
    expect((await ctx.gateway.request('/api/business/rules', { method: 'POST', token: viewer, json: { definition: { tools: ['*x*'], effect: 'block' } } })).status).toBe(403);
  });

  it('another process sharing the database picks up changes on its next sync', async () => {
    const packs: Pack[] = [];
    const { store, audit, clock } = ctx.gateway.app.services;
    // A second process: its own service over the same database, as buildServices makes it.
    const other = new BusinessRuleService({ store, audit, clock, onChange: (pack) => packs.push(pack) });
    expect(await other.sync()).toBe(true);
    await save({ definition: { key: 'late_rule', tools: ['*late*'], effect: 'block' } });
    expect(other.pack().rules.some((rule) => rule.id === 'business.late_rule')).toBe(false);
    expect(await other.sync()).toBe(true);
    expect(other.pack().rules.some((rule) => rule.id === 'business.late_rule')).toBe(true);
    expect(other.pack().version).toBe(ctx.gateway.app.services.businessRules.pack().version);
  });

  it('lists saved rules newest first with paging', async () => {
    const first = await json(ctx.gateway.request('/api/business/rules?limit=1'));
    expect(first.items).toHaveLength(1);
    expect(first.next_cursor).not.toBeNull();
    const second = await json(ctx.gateway.request(`/api/business/rules?limit=1&cursor=${first.next_cursor}`));
    expect(second.items[0].key).not.toBe(first.items[0].key);
  });

  it('describes its routes in valid OpenAPI and answers every malformed request with a 4xx problem, changing nothing', async () => {
    const before = await auditCount(ctx.gateway);
    const { failures, operations: count, document } = await malformedRequestFailures(ctx.gateway, '/api/business');
    const validation = await new Validator().validate(structuredClone(document) as any);
    expect(validation.errors ?? []).toEqual([]);
    expect(count).toBe(4);
    expect(failures).toEqual([]);
    expect(await auditCount(ctx.gateway)).toBe(before);
  });
});
