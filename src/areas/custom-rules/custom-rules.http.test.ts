// Custom rules over HTTP on both dialects: upsert by key with validation and audit, refusals with
// problem+json 400 (unsafe patterns named), try records nothing, delete, the linear-time proof, the
// detector table and pack following the database across processes, and every route answering
// malformed input with a 4xx problem. Served by the real gateway (test/helpers/gateway.ts).
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { auditCount, auditOf } from '../../../test/helpers/audit.js';
import { malformedRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';
import type { Pack } from '../../engine/policy/schema.js';
import { CUSTOM_RULES_DETECTOR_KEY, CustomRulesDetector } from './detector.js';
import { CustomRuleService } from './service.js';

describe.each(DIALECTS)('custom rules over HTTP (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  const area = {
    request: (...args: Parameters<typeof ctx.gateway.request>) => ctx.gateway.request(...args),
    get service() {
      return ctx.gateway.app.services.customRules;
    },
    /** The gateway's own custom-rules detector, the one its pipeline runs. */
    get detector() {
      const detector = ctx.gateway.app.services.detectorRegistry.get(CUSTOM_RULES_DETECTOR_KEY);
      if (!(detector instanceof CustomRulesDetector)) throw new Error('the gateway has no custom-rules detector');
      return detector;
    },
    /** The custom-rules pack the gateway's policy registry evaluates. */
    get pack() {
      return ctx.gateway.app.services.policyRegistry.pack('custom-rules');
    },
  };

  const post = (body: unknown) => area.request('/api/custom-rules', { method: 'POST', json: body });

  it('creates a keyword rule with its defaults, audits it and lists it', async () => {
    const response = await post({ key: 'falcon', name: 'Project Falcon', entries: ['project falcon'], surfaces: ['input', 'output'], agents: ['support-bot'], examples: ['tell me about Project Falcon', { text: 'a falcon flew', fires: false }] });
    expect(response.status).toBe(200);
    const rule = await json(response);
    expect(rule).toMatchObject({
      key: 'falcon',
      name: 'Project Falcon',
      kind: 'keyword',
      polarity: 'deny',
      entries: ['project falcon'],
      surfaces: ['input', 'output'],
      agents: ['support-bot'],
      case_sensitive: false,
      sequence: null,
      enabled: true,
      effect: 'block',
      message: null,
      on_block: null,
      severity: null,
      rule_id: 'custom.falcon',
      entity: 'CUSTOM.FALCON',
      warnings: [],
    });
    expect(rule.created_at).toBe(rule.updated_at);
    expect(await auditOf(ctx.gateway, 'falcon')).toEqual([
      { action: 'custom_rule.upsert', actor: expect.stringMatching(/^admin \(tok_/), detail: expect.objectContaining({ created: true, kind: 'keyword', rule_id: 'custom.falcon' }) },
    ]);
    const list = await json(area.request('/api/custom-rules'));
    expect(list.items.map((item: { key: string }) => item.key)).toContain('falcon');
    expect(list.next_cursor).toBeNull();
  });

  it('replaces a rule by key, keeps created_at, and feeds the detector and the pack at once', async () => {
    await post({ key: 'acct', name: 'Account numbers', kind: 'regex', entries: ['ACCT-\\d{6}'] });
    const second = await json(post({ key: 'acct', name: 'Account numbers', kind: 'regex', entries: ['ACCT-\\d{8}'], effect: 'mask', severity: 'high' }));
    expect(second).toMatchObject({ entries: ['ACCT-\\d{8}'], effect: 'mask', severity: 'high', case_sensitive: true });
    expect(second.updated_at > second.created_at).toBe(true);
    expect((await auditOf(ctx.gateway, 'acct')).map((entry) => entry.detail.created)).toEqual([true, false]);
    const context = { surface: 'input' as const, settings: { pii_packs: [] } };
    expect(area.detector.detect('ACCT-12345678', context)).toEqual([expect.objectContaining({ entity: 'CUSTOM.ACCT', start: 0, end: 13 })]);
    const pack = area.pack as Pack;
    expect(pack.key).toBe('custom-rules');
    expect(pack.rules.find((rule) => rule.id === 'custom.acct')).toMatchObject({ when: { entity: 'CUSTOM.ACCT' }, effect: 'mask', severity: 'high' });
  });

  it('stores on_block and makes it the message shown when the rule blocks', async () => {
    const rule = await json(post({ key: 'layoffs', name: 'Layoffs', entries: ['layoffs'], message: 'HR topic', on_block: 'I cannot discuss staffing changes.' }));
    expect(rule.on_block).toBe('I cannot discuss staffing changes.');
    expect(area.service.pack().rules.find((item) => item.id === 'custom.layoffs')?.message).toBe('I cannot discuss staffing changes.');
  });

  it.each([
    ['a backreference', { kind: 'regex', entries: ['(a)\\1'] }, '/body/entries/0', /backreferences/],
    ['a lookahead', { kind: 'regex', entries: ['ok', 'foo(?=bar)'] }, '/body/entries/1', /lookahead/],
    ['a lookbehind', { kind: 'regex', entries: ['(?<!x)foo'] }, '/body/entries/0', /lookbehind/],
    ['an over-long pattern', { kind: 'regex', entries: ['a'.repeat(1001)] }, '/body/entries/0', /1000/],
    ['a pattern re2 refuses', { kind: 'regex', entries: ['(x{1000}){1000}'] }, '/body/entries/0', /refuses/],
    ['a pattern too complex to locate quickly', { kind: 'regex', entries: ['[a-z]{1000}!'] }, '/body/entries/0', /too complex/],
    ['a pattern matching the empty text', { kind: 'regex', entries: ['x*'] }, '/body/entries/0', /empty text/],
    ['a bad step pattern', { kind: 'sequence', sequence: { steps: [{ any: ['wire'] }, { regex: '(a)\\1' }] } }, '/body/sequence/steps/1/regex', /backreferences/],
    ['a keyword rule without entries', { entries: [] }, '/body/entries', /at least one/],
    ['a sequence rule without a sequence', { kind: 'sequence' }, '/body/sequence', /needs a sequence/],
    ['mask on a require rule', { polarity: 'require', entries: ['disclaimer'], effect: 'mask' }, '/body/effect', /require/],
  ])('refuses %s with a 400 naming the field', async (_name, fields, field, reason) => {
    const before = await auditCount(ctx.gateway);
    const response = await post({ key: 'bad', name: 'Bad', ...fields });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await json(response);
    expect(body.errors).toContainEqual({ field, message: expect.stringMatching(reason) });
    expect(body.detail).toMatch(reason);
    expect(await auditCount(ctx.gateway)).toBe(before);
    expect((await json(area.request('/api/custom-rules?limit=500'))).items.some((item: { key: string }) => item.key === 'bad')).toBe(false);
  });

  it('refuses a rule whose own examples disagree with it (422)', async () => {
    const response = await post({ key: 'ex', name: 'Examples', entries: ['banana'], examples: ['an apple', { text: 'banana split', fires: false }] });
    expect(response.status).toBe(422);
    const body = await json(response);
    expect(body.errors.map((error: { field: string }) => error.field)).toEqual(['/body/examples/0', '/body/examples/1']);
  });

  it('refuses a key that would share a rule id with another rule (409)', async () => {
    expect((await post({ key: 'wire-transfer', name: 'Wire', entries: ['wire'] })).status).toBe(200);
    const clash = await post({ key: 'wire_transfer', name: 'Wire again', entries: ['wire'] });
    expect(clash.status).toBe(409);
    expect((await json(clash)).detail).toMatch(/custom\.wire_transfer/);
  });

  it('refuses malformed bodies with problem+json 400', async () => {
    for (const body of [{ name: 'no key' }, { key: 'k' }, { key: 'k', name: 'n', kind: 'glob' }, { key: 'k', name: 'n', entries: 'word' }, { key: 'bad key!', name: 'n', entries: ['x'] }, { key: 'k', name: 'n', entries: ['x'], surprise: 1 }]) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it('needs the operator role to change rules and the viewer role to read them', async () => {
    const viewer = (await json(area.request('/api/tokens', { method: 'POST', json: { name: 'viewer', role: 'viewer' } }))).token;
    expect((await area.request('/api/custom-rules', { token: viewer })).status).toBe(200);
    expect((await area.request('/api/custom-rules', { method: 'POST', token: viewer, json: { key: 'v', name: 'v', entries: ['x'] } })).status).toBe(403);
    expect((await area.request('/api/custom-rules', { token: null })).status).toBe(401);
  });

  it('tries a rule over a text and records nothing', async () => {
    const before = await auditCount(ctx.gateway);
    const traces = await ctx.gateway.store.db.selectFrom('traces').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const rules = await json(area.request('/api/custom-rules?limit=500'));
    const response = await area.request('/api/custom-rules/try', {
      method: 'POST',
      json: { rule: { kind: 'sequence', sequence: { steps: [{ any: ['wire'] }, { regex: '\\d{8,}' }], within: 20 }, effect: 'escalate' }, text: 'please wire 12345678 now', surface: 'input' },
    });
    expect(response.status).toBe(200);
    const result = await json(response);
    expect(result).toMatchObject({
      rule_id: 'custom.try',
      entity: 'CUSTOM.TRY',
      applies: true,
      matched: true,
      fires: true,
      effect: 'escalate',
      spans: [{ start: 7, end: 20, text: 'wire 12345678', entry: 'wire … /\\d{8,}/' }],
      total_spans: 1,
      complete: true,
    });
    const missing = await json(area.request('/api/custom-rules/try', { method: 'POST', json: { rule: { polarity: 'require', entries: ['not financial advice'], surfaces: ['output'] }, text: 'Buy now', surface: 'output' } }));
    expect(missing).toMatchObject({ matched: false, fires: true, spans: [], effect: 'block' });
    const elsewhere = await json(area.request('/api/custom-rules/try', { method: 'POST', json: { rule: { polarity: 'require', entries: ['x'], surfaces: ['output'] }, text: 'Buy now', surface: 'input' } }));
    expect(elsewhere).toMatchObject({ applies: false, fires: false });
    const refused = await area.request('/api/custom-rules/try', { method: 'POST', json: { rule: { kind: 'regex', entries: ['(a)\\1'] }, text: 'aa' } });
    expect(refused.status).toBe(400);
    expect((await json(refused)).errors[0].field).toBe('/body/rule/entries/0');
    expect(await auditCount(ctx.gateway)).toBe(before);
    expect(await ctx.gateway.store.db.selectFrom('traces').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).toEqual(traces);
    expect(await json(area.request('/api/custom-rules?limit=500'))).toEqual(rules);
  });

  it.each([
    ['(a+)+$', `${'a'.repeat(50_000)}!`, false],
    ['(\\w+\\s*){30}!', `${'a'.repeat(50_000)}!`, true],
    ['[a-z]{150}!', `${'a'.repeat(150)}!`.repeat(331), true],
  ])('answers the adversarial pattern %s over 50,000 characters at once (a backtracking engine would not finish)', async (pattern, text, matched) => {
    const started = performance.now();
    const response = await area.request('/api/custom-rules/try', { method: 'POST', json: { rule: { kind: 'regex', entries: [pattern] }, text } });
    const ms = performance.now() - started;
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ matched, fires: matched });
    // About 0.3 s here; the bound is loose so that a busy machine does not fail it, and still
    // orders of magnitude below what backtracking (a+)+$ over 50,000 characters would take.
    expect(ms).toBeLessThan(5000);
  });

  it('deletes a rule (audited) and it stops being enforced; an unknown key is a 404', async () => {
    await post({ key: 'gone', name: 'Gone', entries: ['ephemeral'] });
    const context = { surface: 'input' as const, settings: { pii_packs: [] } };
    expect(area.detector.detect('ephemeral', context)).toHaveLength(1);
    const response = await area.request('/api/custom-rules/gone', { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect((await json(response)).key).toBe('gone');
    expect(area.detector.detect('ephemeral', context)).toEqual([]);
    expect(area.service.pack().rules.some((rule) => rule.id === 'custom.gone')).toBe(false);
    expect((await auditOf(ctx.gateway, 'gone')).map((entry) => entry.action)).toEqual(['custom_rule.upsert', 'custom_rule.delete']);
    expect((await area.request('/api/custom-rules/gone', { method: 'DELETE' })).status).toBe(404);
  });

  it('a disabled rule is kept and listed but not enforced', async () => {
    await post({ key: 'paused', name: 'Paused', entries: ['paused-word'], enabled: false });
    expect(area.detector.detect('paused-word', { surface: 'input', settings: { pii_packs: [] } })).toEqual([]);
    expect(area.service.pack().rules.some((rule) => rule.id === 'custom.paused')).toBe(false);
  });

  it('another process sharing the database picks up changes on its next sync', async () => {
    const other = new CustomRulesDetector();
    const packs: Pack[] = [];
    const { store, audit, clock } = ctx.gateway.app.services;
    // A second process: its own detector and service over the same database, as buildServices makes them.
    const second = new CustomRuleService({ store, audit, clock, detector: other, onChange: (pack) => packs.push(pack) });
    expect(await second.sync()).toBe(true);
    expect(await second.sync()).toBe(false);
    await post({ key: 'late', name: 'Late', entries: ['late-word'] });
    expect(other.detect('late-word', { surface: 'input', settings: { pii_packs: [] } })).toEqual([]);
    expect(await second.sync()).toBe(true);
    expect(other.detect('late-word', { surface: 'input', settings: { pii_packs: [] } })).toHaveLength(1);
    expect(packs.at(-1)?.version).toBe(area.service.pack().version);
  });

  it('pages the list newest first', async () => {
    for (const key of ['page-a', 'page-b', 'page-c']) await post({ key, name: key, entries: [key] });
    const first = await json(area.request('/api/custom-rules?limit=2'));
    expect(first.items).toHaveLength(2);
    expect(first.next_cursor).not.toBeNull();
    const second = await json(area.request(`/api/custom-rules?limit=2&cursor=${first.next_cursor}`));
    const keys = [...first.items, ...second.items].map((item: { key: string }) => item.key);
    expect(keys.slice(0, 3)).toEqual(['page-c', 'page-b', 'page-a']);
    expect((await area.request('/api/custom-rules?cursor=bogus')).status).toBe(400);
  });

  it('describes its routes in valid OpenAPI and answers every malformed request with a 4xx problem, changing nothing', async () => {
    const before = await auditCount(ctx.gateway);
    const { failures, operations: count, document } = await malformedRequestFailures(ctx.gateway, '/api/custom-rules');
    const validation = await new Validator().validate(structuredClone(document) as any);
    expect(validation.errors ?? []).toEqual([]);
    expect(count).toBe(4);
    expect(failures).toEqual([]);
    expect(await auditCount(ctx.gateway)).toBe(before);
  });
});
