// Custom and business rules enforced through the one decision pipeline of a real gateway, on both
// dialects, through the HTTP API only: guard calls blocked by a custom rule (and no longer once it
// is deleted, even for a text the detection cache has seen), a business rule firing on a tool
// call, and a rule example pinned from the decision the pipeline recorded.
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';

describe.each(DIALECTS)('custom and business rules in the decision pipeline (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  const api = async (path: string, method: string, body?: unknown) => {
    const response = await ctx.gateway.request(path, { method, ...(body === undefined ? {} : { json: body }) });
    return { status: response.status, body: await json(response) };
  };
  const guardInput = async (agent: string, content: string) => json(ctx.gateway.request('/v1/guard/input', { method: 'POST', json: { agent, content } }));

  it('blocks with a custom rule for its agent only, and stops once the rule is deleted', async () => {
    const created = await api('/api/custom-rules', 'POST', { key: 'falcon', name: 'Project Falcon', entries: ['project falcon'], surfaces: ['input'], agents: ['support-bot'], on_block: 'I cannot discuss Project Falcon.' });
    expect(created.status).toBeLessThan(300);
    const blocked = await guardInput('support-bot', 'What is the status of Project Falcon?');
    expect(blocked.verdict).toBe('block');
    expect(blocked.rules_fired).toContainEqual(expect.objectContaining({ rule_id: 'custom.falcon', pack: 'custom-rules', effect: 'block', mode: 'enforce' }));
    expect(blocked.reason).toContain('I cannot discuss Project Falcon.');
    const other = await guardInput('other-bot', 'What is the status of Project Falcon?');
    expect(other.rules_fired.some((rule: { rule_id: string }) => rule.rule_id === 'custom.falcon')).toBe(false);
    expect((await api('/api/custom-rules/falcon', 'DELETE')).status).toBeLessThan(300);
    const after = await guardInput('support-bot', 'What is the status of Project Falcon?');
    expect(after.rules_fired.some((rule: { rule_id: string }) => rule.rule_id === 'custom.falcon')).toBe(false);
    expect(after.verdict).toBe('allow');
  });

  it('applies a new rule to a text the detection cache has already seen', async () => {
    const text = 'The codename is bluebird.';
    expect((await guardInput('support-bot', text)).verdict).toBe('allow');
    expect((await api('/api/custom-rules', 'POST', { key: 'bluebird', name: 'Codename', entries: ['bluebird'], surfaces: ['input'] })).status).toBeLessThan(300);
    const blocked = await guardInput('support-bot', text);
    expect(blocked.verdict).toBe('block');
    expect(blocked.rules_fired).toContainEqual(expect.objectContaining({ rule_id: 'custom.bluebird' }));
    await api('/api/custom-rules/bluebird', 'DELETE');
  });

  it('fires a business rule on a tool call, and pins the recorded decision as a rule example', async () => {
    const compiled = await api('/api/business/compile', 'POST', { text: "refunds above 500 dollars need a manager's approval" });
    expect(compiled.status).toBe(200);
    expect((await api('/api/business/rules', 'POST', { definition: { ...compiled.body.definition, mode: 'enforce' } })).status).toBeLessThan(300);
    const call = async (amount: number) => json(ctx.gateway.request('/v1/guard/tool_call', { method: 'POST', json: { agent: 'shop-bot', tool: 'refund_order', arguments: { amount } } }));
    const big = await call(750);
    expect(big.rules_fired).toContainEqual(expect.objectContaining({ rule_id: 'business.refund_over_500', pack: 'business-rules', effect: 'escalate', mode: 'enforce' }));
    const small = await call(100);
    expect(small.rules_fired.some((rule: { rule_id: string }) => rule.rule_id === 'business.refund_over_500')).toBe(false);
    await ctx.gateway.app.services.recorder.flush();

    expect((await api('/api/rules/business.refund_over_500/examples', 'POST', { decision_id: big.decision_id, fires: true })).status).toBe(201);
    expect((await api('/api/rules/business.refund_over_500/examples', 'POST', { decision_id: small.decision_id, fires: false })).status).toBe(201);
    const live = await api('/api/rules/business.refund_over_500/examples/check', 'POST', { policy: 'business-rules' });
    expect(live.body).toMatchObject({ source: 'live', rule_found: true, passed: true });
    expect(live.body.results.map((result: { decision_id: string; fires: boolean }) => [result.decision_id, result.fires])).toEqual([
      [big.decision_id, true],
      [small.decision_id, false],
    ]);
    // The held refund is a containment finding whose cause is a business rule.
    const findings = await api('/api/findings?type=containment&limit=100', 'GET');
    const held = findings.body.items.find((finding: { evidence: { rule_id?: string } }) => finding.evidence.rule_id === 'business.refund_over_500');
    expect(held?.evidence).toMatchObject({ cause: 'business rule' });
    // The policies list shows the rule sources too.
    expect((await api('/api/policies', 'GET')).body.items.map((item: { key: string }) => item.key)).toEqual(expect.arrayContaining(['business-rules']));
  });
});
