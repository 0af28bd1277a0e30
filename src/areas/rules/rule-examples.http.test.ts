// Rule examples over HTTP on both dialects: pinning recorded decisions (facts copied from the
// trace, 404 for an unknown decision, 422 without facts, 409 twice), listing, checking a rule from
// the live policy or a candidate text over its examples (a missing rule fails every example that
// expects it to fire), deleting (audited), and every route answering malformed input with a 4xx
// problem. Decisions are trace rows written with the pipeline's own facts serializer (storeFacts),
// as the gateway records them. Served by the real gateway (test/helpers/gateway.ts).
import { stringify } from 'yaml';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditCount, auditOf } from '../../../test/helpers/audit.js';
import { malformedRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { businessRulesPack } from '../business/pack.js';
import type { Detection } from '../../engine/detectors/types.js';
import { newId } from '../../infra/lib/ids.js';
import type { CallFacts } from '../../engine/policy/evaluate.js';
import { plainFacts, storeFacts } from '../../engine/policy/facts.js';
import { SHIPPED_PACKS } from '../../engine/policy/packs/index.js';
import { parsePack } from '../../engine/policy/parse.js';
import type { Pack } from '../../engine/policy/schema.js';

const refundDefinition = (threshold: number) => ({ tools: ['*refund*'], conditions: [{ path: 'amount', op: 'gt' as const, value: threshold, unit: 'USD' }], effect: 'escalate' as const, approver: 'manager' });
const refundPack = (threshold: number): Pack => businessRulesPack([{ key: 'refund_over_500', definition: refundDefinition(threshold), agent: null, mode: 'enforce' }]);

const facts = (overrides: Partial<CallFacts>): CallFacts => ({ ...plainFacts('tool_args', 'shop-bot'), ...overrides });

/** A recorded decision as the recorder writes it; `null` facts stand for a row recorded before facts were kept. */
async function recordDecision(gateway: TestGateway, callFacts: CallFacts | null): Promise<string> {
  const id = newId('dec');
  await gateway.store.db
    .insertInto('traces')
    .values({
      id,
      at: new Date().toISOString(),
      agent: callFacts?.agent ?? 'shop-bot',
      subject: `agent:${callFacts?.agent ?? 'shop-bot'}`,
      surface: callFacts?.surface ?? 'input',
      tool: callFacts?.tool ?? null,
      verdict: 'allow',
      effective_verdict: 'allow',
      mode: 'enforce',
      rules: '[]',
      entities: JSON.stringify((callFacts?.detections ?? []).map((detection) => detection.entity)),
      degraded: '[]',
      detectors: '[]',
      latency_ms: 1,
      content_sha256: '0'.repeat(64),
      content_length: 0,
      content: null,
      session_id: null,
      trace_id: null,
      environment: null,
      facts: callFacts === null ? null : storeFacts(callFacts, 'scalars'),
      canary: null,
    })
    .execute();
  return id;
}

describe.each(DIALECTS)('rule examples over HTTP (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  beforeAll(async () => {
    // The live business-rules policy the checks read: the refund rule over 500 dollars, enforced.
    const saved = await ctx.gateway.request('/api/business/rules', { method: 'POST', json: { definition: { key: 'refund_over_500', ...refundDefinition(500), mode: 'enforce' } } });
    expect(saved.status).toBe(200);
    expect(ctx.gateway.app.services.policyRegistry.pack('business-rules')?.rules).toEqual(refundPack(500).rules);
  });
  const examples = (ruleId: string) => `/api/rules/${ruleId}/examples`;
  const pin = (ruleId: string, body: unknown) => ctx.gateway.request(examples(ruleId), { method: 'POST', json: body });
  const check = (ruleId: string, body: unknown) => ctx.gateway.request(`${examples(ruleId)}/check`, { method: 'POST', json: body });

  it('pins decisions with their facts, lists them newest first, and the copy outlives the trace', async () => {
    const big = await recordDecision(ctx.gateway, facts({ tool: 'refund_order', args: { amount: 750, note: 'dropped: text is not recorded' } }));
    const small = await recordDecision(ctx.gateway, facts({ tool: 'refund_order', args: { amount: 100 } }));
    const first = await pin('business.refund_over_500', { decision_id: big, fires: true, sample: 'a 750 dollar refund' });
    expect(first.status).toBe(201);
    const pinned = await json(first);
    expect(pinned).toMatchObject({ rule_id: 'business.refund_over_500', decision_id: big, fires: true, sample: 'a 750 dollar refund', surface: 'tool_args', agent: 'shop-bot', tool: 'refund_order', entities: [] });
    expect(pinned.id).toMatch(/^rex_/);
    expect(await auditOf(ctx.gateway, pinned.id)).toEqual([
      expect.objectContaining({ action: 'rule_example.create', detail: { rule_id: 'business.refund_over_500', decision_id: big, fires: true } }),
    ]);
    expect((await pin('business.refund_over_500', { decision_id: small, fires: false })).status).toBe(201);
    const list = await json(ctx.gateway.request(examples('business.refund_over_500')));
    expect(list.items.map((item: { decision_id: string }) => item.decision_id)).toEqual([small, big]);
    // Retention may delete the trace: the example keeps its own copy of the facts.
    await ctx.gateway.store.db.deleteFrom('traces').where('id', '=', big).execute();
    const result = await json(check('business.refund_over_500', { policy: 'business-rules' }));
    expect(result).toMatchObject({ source: 'live', rule_found: true, rule_enabled: true, passed: true, note: null });
    expect(result.results).toEqual([
      expect.objectContaining({ decision_id: big, expected_fires: true, fires: true, ok: true }),
      expect.objectContaining({ decision_id: small, expected_fires: false, fires: false, ok: true }),
    ]);
  });

  it('checks a candidate policy text: a higher threshold fails the example that should fire', async () => {
    const before = await auditCount(ctx.gateway);
    const result = await json(check('business.refund_over_500', { policy: 'business-rules', body: stringify(refundPack(1000)) }));
    expect(result).toMatchObject({ source: 'candidate', rule_found: true, passed: false });
    expect(result.results.map((item: { ok: boolean; expected_fires: boolean }) => [item.expected_fires, item.ok])).toEqual([
      [true, false],
      [false, true],
    ]);
    expect(await auditCount(ctx.gateway)).toBe(before);
  });

  it('a rule missing from the policy fails every example that expects it to fire, and says so', async () => {
    const candidate = stringify({ ...refundPack(500), rules: [] });
    const result = await json(check('business.refund_over_500', { policy: 'business-rules', body: candidate }));
    expect(result).toMatchObject({ rule_found: false, passed: false, note: expect.stringContaining('is not in the candidate of policy business-rules') });
    expect(result.results.map((item: { ok: boolean }) => item.ok)).toEqual([false, true]);
    const disabled = stringify({ ...refundPack(500), rules: refundPack(500).rules.map((rule) => ({ ...rule, enabled: false })) });
    expect(await json(check('business.refund_over_500', { policy: 'business-rules', body: disabled }))).toMatchObject({ rule_found: true, rule_enabled: false, passed: false });
  });

  it('checks a shipped rule over detections and capability facts', async () => {
    const denied = await recordDecision(ctx.gateway, facts({ tool: 'send_email', args: {}, capability: new Set(['denied', 'not_declared']) }));
    const granted = await recordDecision(ctx.gateway, facts({ tool: 'send_email', args: {}, capability: new Set(['granted']) }));
    await pin('capability.denied', { decision_id: denied, fires: true });
    await pin('capability.denied', { decision_id: granted, fires: false });
    expect(await json(check('capability.denied', { policy: 'agent-boundaries' }))).toMatchObject({ passed: true, rule_found: true });
    const injected: Detection = { entity: 'INJECTION.INSTRUCTION_OVERRIDE', score: 0.9, start: 0, end: 5, explanation: 'test', detector: 'injection.heuristic' };
    const input = await recordDecision(ctx.gateway, facts({ surface: 'input', detections: [injected] }));
    const pinned = await json(pin('injection.block_input', { decision_id: input, fires: true }));
    expect(pinned.entities).toEqual(['INJECTION.INSTRUCTION_OVERRIDE']);
    await pin('injection.block_input', { decision_id: denied, fires: false });
    expect(await json(check('injection.block_input', { policy: 'baseline' }))).toMatchObject({ passed: true, results: [expect.objectContaining({ fires: true }), expect.objectContaining({ fires: false })] });
  });

  it('refuses an unknown decision (404), one without facts (422), and a second pin of the same decision (409)', async () => {
    expect((await pin('business.refund_over_500', { decision_id: 'dec_unknown', fires: true })).status).toBe(404);
    const old = await recordDecision(ctx.gateway, null);
    const refused = await pin('business.refund_over_500', { decision_id: old, fires: true });
    expect(refused.status).toBe(422);
    expect((await json(refused)).detail).toMatch(/no recorded facts/);
    const once = await recordDecision(ctx.gateway, facts({ tool: 'refund_order', args: { amount: 600 } }));
    expect((await pin('business.refund_over_500', { decision_id: once, fires: true })).status).toBe(201);
    expect((await pin('business.refund_over_500', { decision_id: once, fires: false })).status).toBe(409);
  });

  it('refuses a bad candidate (400), a candidate of another policy (400) and an unknown live policy (404)', async () => {
    const invalid = await check('business.refund_over_500', { policy: 'business-rules', body: 'key: business-rules\nrules: [\n' });
    expect(invalid.status).toBe(400);
    expect((await json(invalid)).errors[0].field).toMatch(/^\/body\/body/);
    const wrongShape = await check('business.refund_over_500', { policy: 'business-rules', body: stringify({ key: 'business-rules', version: 1, mode: 'sometimes', rules: [] }) });
    expect(wrongShape.status).toBe(400);
    expect((await check('business.refund_over_500', { policy: 'business-rules', body: stringify(parsePack(SHIPPED_PACKS[0] as string)) })).status).toBe(400);
    expect((await check('business.refund_over_500', { policy: 'no-such-policy' })).status).toBe(404);
    expect((await check('business.refund_over_500', {})).status).toBe(400);
  });

  it('deletes an example (audited); an unknown one, or one of another rule, is a 404', async () => {
    const decision = await recordDecision(ctx.gateway, facts({ tool: 'refund_order', args: { amount: 900 } }));
    const example = await json(pin('business.other_rule', { decision_id: decision, fires: true }));
    expect((await ctx.gateway.request(`${examples('business.refund_over_500')}/${example.id}`, { method: 'DELETE' })).status).toBe(404);
    const removed = await ctx.gateway.request(`${examples('business.other_rule')}/${example.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect((await json(removed)).id).toBe(example.id);
    expect((await auditOf(ctx.gateway, example.id)).map((entry) => entry.action)).toEqual(['rule_example.create', 'rule_example.delete']);
    expect((await json(ctx.gateway.request(examples('business.other_rule')))).items).toEqual([]);
    expect((await ctx.gateway.request(`${examples('business.other_rule')}/${example.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('needs the operator role to pin and the viewer role to read', async () => {
    const viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'viewer', role: 'viewer' } }))).token;
    expect((await ctx.gateway.request(examples('capability.denied'), { token: viewer })).status).toBe(200);
    expect((await ctx.gateway.request(examples('capability.denied'), { method: 'POST', token: viewer, json: { decision_id: 'x', fires: true } })).status).toBe(403);
    expect((await ctx.gateway.request(examples('not-a-rule-id'))).status).toBe(400);
  });

  it('describes its routes in valid OpenAPI and answers every malformed request with a 4xx problem, changing nothing', async () => {
    const before = await auditCount(ctx.gateway);
    const { failures, operations: count, document } = await malformedRequestFailures(ctx.gateway, '/api/rules');
    const validation = await new Validator().validate(structuredClone(document) as any);
    expect(validation.errors ?? []).toEqual([]);
    expect(count).toBe(4);
    expect(failures).toEqual([]);
    expect(await auditCount(ctx.gateway)).toBe(before);
  });
});
