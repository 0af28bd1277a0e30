// Answerability over HTTP on both dialects: boundaries (audited, seen by the input detector at once
// and after a sync), the check against the case file cases/questions.yaml, guard input blocked in
// enforce and allowed in observe, the report, roles and malformed bodies.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { auditCount, auditOf } from '../../../test/helpers/audit.js';
import { malformedRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

interface CaseFile {
  sources: Array<{ key: string; updated_hours_ago: number; freshness_sla_hours: number | null }>;
  boundaries: Array<Record<string, unknown> & { agent: string }>;
  questions: Array<{ agent: string; question: string; known_entities?: unknown[]; outcome: string; reasons: string[] }>;
}

const cases = parse(readFileSync(new URL('./cases/questions.yaml', import.meta.url), 'utf8')) as CaseFile;
const billing = cases.boundaries.find((boundary) => boundary.agent === 'billing-assistant') as Record<string, unknown>;

async function writeSources(gateway: TestGateway): Promise<void> {
  const now = gateway.clock.now().getTime();
  for (const source of cases.sources) {
    const at = new Date(now).toISOString();
    await gateway.store.db
      .insertInto('knowledge_sources')
      .values({
        key: source.key,
        title: source.key,
        tier: 'system_of_record',
        owner: null,
        domain: null,
        updated_at_source: new Date(now - source.updated_hours_ago * HOUR_MS).toISOString(),
        freshness_sla_hours: source.freshness_sla_hours,
        deprecated: 0,
        metadata: '{}',
        created_by: 'test',
        created_at: at,
        updated_at: at,
        last_cited_at: null,
        validated_at: null,
        validation: null,
        validation_ok: null,
      })
      .execute();
  }
}

describe.each(DIALECTS)('answerability over HTTP (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  let viewer: string;
  let operator: string;
  let agentCredential: string;

  const put = (body: unknown, token?: string | null) => ctx.gateway.request('/api/answerability/boundary', { method: 'PUT', json: body, ...(token === undefined ? {} : { token }) });
  const check = (body: unknown, token?: string | null) => ctx.gateway.request('/api/answerability/check', { method: 'POST', json: body, ...(token === undefined ? {} : { token }) });
  const guardInput = async (agent: string, content: string) => {
    const response = await ctx.gateway.request('/v1/guard/input', { method: 'POST', json: { agent, content } });
    expect(response.status).toBe(200);
    return response.json() as Promise<any>;
  };

  beforeAll(async () => {
    const gateway = ctx.gateway;
    viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer', ttl_days: 3650 } }))).token;
    operator = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'ops', role: 'operator', ttl_days: 3650 } }))).token;
    const agent = await json(gateway.request('/api/agents', { method: 'POST', json: { slug: 'recent-assistant', owner_email: 'r@example.com' } }));
    agentCredential = (await json(gateway.request(`/api/identities/${agent.identity_id}/credentials`, { method: 'POST', json: {} }))).credential;
    await writeSources(gateway);
  });

  it('refuses a viewer and malformed boundaries, changing nothing; an operator puts (201) and replaces (200), audited', async () => {
    const before = await auditCount(ctx.gateway);
    expect((await put(billing, viewer)).status).toBe(403);
    expect((await ctx.gateway.request('/api/answerability/boundary', { method: 'PUT', json: billing, token: null })).status).toBe(401);
    for (const bad of [
      {},
      { ...billing, agent: '' },
      { ...billing, coverage_start: '2022-02-30' },
      { ...billing, coverage_start: '01/02/2022' },
      { ...billing, coverage_months: 0 },
      { ...billing, coverage_months: 2.5 },
      { ...billing, freshness_hours: -1 },
      { ...billing, mode: 'block' },
      { ...billing, out_of_scope_topics: 'legal advice' },
      { ...billing, out_of_scope_topics: [''] },
      { ...billing, entity_types: Array.from({ length: 201 }, (_, index) => `type${index}`) },
      { ...billing, systems_of_record: ['x'.repeat(201)] },
      { ...billing, colour: 'blue' },
    ]) {
      const response = await put(bad, operator);
      expect(response.status, JSON.stringify(bad).slice(0, 200)).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect(await ctx.gateway.store.db.selectFrom('answerability_boundaries').selectAll().execute()).toEqual([]);
    expect(await auditCount(ctx.gateway)).toBe(before);

    const created = await put({ ...billing, mode: 'observe' }, operator);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ agent: 'billing-assistant', mode: 'observe', coverage_start: '2022-01-01', coverage_months: 24, out_of_scope_topics: ['legal advice', 'stock price', 'medical'], updated_by: expect.stringMatching(/\(tok_/) });
    for (const boundary of cases.boundaries) {
      const response = await put(boundary, operator);
      expect(response.status, boundary.agent).toBe(boundary.agent === 'billing-assistant' ? 200 : 201);
    }
    expect((await auditOf(ctx.gateway, 'billing-assistant')).map((entry) => [entry.action, entry.detail.mode])).toEqual([
      ['answerability.boundary_created', 'observe'],
      ['answerability.boundary_updated', 'enforce'],
    ]);
    const listed = await json(ctx.gateway.request('/api/answerability/boundaries', { token: viewer }));
    expect(listed.items.map((item: any) => item.agent)).toEqual(['billing-assistant', 'crm-assistant', 'recent-assistant']);
    const one = await json(ctx.gateway.request('/api/answerability/boundaries?agent=crm-assistant', { token: viewer }));
    expect(one.items).toEqual([expect.objectContaining({ agent: 'crm-assistant', systems_of_record: ['crm', 'ghost-source'], freshness_hours: 24, coverage_months: null, coverage_start: null, mode: 'observe' })]);
  });

  it('checks every question of the case file with the expected outcome and reasons, storing the question as a hash only', async () => {
    const results: string[] = [];
    const expected: string[] = [];
    for (const item of cases.questions) {
      const response = await check({ agent: item.agent, question: item.question, ...(item.known_entities === undefined ? {} : { known_entities: item.known_entities }) }, operator);
      expect(response.status, item.question).toBe(200);
      const body = (await response.json()) as any;
      results.push(`${item.agent}: ${item.question} → ${body.outcome} [${body.reasons.map((reason: any) => reason.code).sort().join(', ')}]`);
      expected.push(`${item.agent}: ${item.question} → ${item.outcome} [${[...item.reasons].sort().join(', ')}]`);
      expect(body.agent).toBe(item.agent);
      expect(body.boundary === null).toBe(item.agent === 'nobody-assistant');
      for (const reason of body.reasons) expect(reason.detail.length).toBeGreaterThan(10);
    }
    expect(results).toEqual(expected);

    const rows = await ctx.gateway.store.db.selectFrom('answerability_checks').selectAll().execute();
    expect(rows.length).toBe(cases.questions.length);
    const first = cases.questions[0] as CaseFile['questions'][number];
    expect(rows.map((row) => row.question_sha256)).toContain(createHash('sha256').update(first.question).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain('invoice 4411');
  });

  it('names the reason in detail: the coverage, the phrase, the stale source', async () => {
    const dates = await json(check({ agent: 'billing-assistant', question: 'Show my invoices from 2021.' }));
    expect(dates.reasons).toEqual([{ code: 'outside_coverage_dates', detail: '"2021" (2021-01-01 to 2022-01-01) is outside the coverage 2022-01-01 to 2024-01-01' }]);
    const topic = await json(check({ agent: 'billing-assistant', question: 'Any legal   advice?' }));
    expect(topic.reasons).toEqual([{ code: 'out_of_scope_topic', detail: '"legal advice" is out of scope for this agent' }]);
    const stale = await json(check({ agent: 'crm-assistant', question: 'Who is my account manager?' }));
    expect(stale.reasons.map((reason: any) => reason.detail)).toEqual([
      expect.stringMatching(/^system of record "crm" was last updated .* \(72 h ago\), past the freshness limit of 24 h$/),
      'system of record "ghost-source" is not in the source registry: its freshness is unknown',
    ]);
  });

  it('lets any credential check, an agent credential only for its own agent', async () => {
    expect((await check({ agent: 'billing-assistant', question: 'Invoices of 2023?' }, viewer)).status).toBe(200);
    expect((await check({ agent: 'billing-assistant', question: 'Invoices of 2023?' }, ctx.gateway.trafficToken)).status).toBe(200);
    const own = await check({ agent: 'recent-assistant', question: 'What did I spend in 2019?' }, agentCredential);
    expect(own.status).toBe(200);
    expect(((await own.json()) as any).outcome).toBe('not_answerable');
    const other = await check({ agent: 'billing-assistant', question: 'Invoices of 2023?' }, agentCredential);
    expect(other.status).toBe(403);
    expect((await check({ agent: 'billing-assistant', question: 'Invoices of 2023?' }, null)).status).toBe(401);
    for (const bad of [
      { agent: 'billing-assistant' },
      { question: 'x' },
      { agent: 'billing-assistant', question: '' },
      { agent: 'billing-assistant', question: 'x'.repeat(32_769) },
      { agent: 'billing-assistant', question: 'x', known_entities: [{ value: 'no type' }] },
      { agent: 'billing-assistant', question: 'x', known_entities: Array.from({ length: 101 }, () => 'customer') },
      { agent: 'billing-assistant', question: 'x', extra: true },
    ]) {
      const response = await check(bad);
      expect(response.status, JSON.stringify(bad).slice(0, 120)).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it('takes NUL and lone surrogates in boundaries and questions without a 500', async () => {
    const statuses: number[] = [];
    for (const response of [
      await put({ agent: 'nul\u0000agent', out_of_scope_topics: ['bad\uD800topic', 'nul\u0000topic'], systems_of_record: ['src\uDC00'], freshness_hours: 1 }, operator),
      await check({ agent: 'nul\u0000agent', question: 'bad\uD800topic in 2023\u0000?', trace_id: 't\u0000', known_entities: ['x\uD800'] }),
      await check({ agent: 'billing-assistant', question: '\uDFFF\u0000 2021' }),
      await ctx.gateway.request(`/api/answerability/boundaries?agent=${encodeURIComponent('nul\u0000agent')}`),
    ]) {
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([201, 200, 200, 200]);
  });

  it('blocks an out-of-bounds question on guard input in enforce with the pack reason and why; observe allows and reports it', async () => {
    const blocked = await guardInput('billing-assistant', 'Show my invoices from 2021.');
    expect(blocked.verdict).toBe('block');
    expect(blocked.reason).toContain("outside what this agent's systems of record cover");
    // The refusal says why: the part of the boundary the question falls outside.
    expect(blocked.reason).toMatch(/2021/);
    expect(blocked.rules_fired).toEqual(expect.arrayContaining([expect.objectContaining({ rule_id: 'answerability.out_of_bounds', pack: 'answerability', entity: 'ANSWERABILITY.OUT_OF_BOUNDS', detector: 'answerability.boundary' })]));
    expect((await guardInput('billing-assistant', 'What was the total of invoice 4411 in March 2023?')).verdict).toBe('allow');

    const observed = await guardInput('recent-assistant', 'What did I spend in 2019?');
    expect(observed.verdict).toBe('allow');
    expect(observed.entities).toContain('ANSWERABILITY.OUT_OF_BOUNDS_OBSERVED');
    expect(observed.entities).not.toContain('ANSWERABILITY.OUT_OF_BOUNDS');

    // A partly covered question is reported, not blocked, even in enforce.
    const partial = await guardInput('billing-assistant', 'What was my balance in Q4 2023? And what was it in January 2024?');
    expect(partial.verdict).toBe('allow');
    expect(partial.entities).toContain('ANSWERABILITY.OUT_OF_BOUNDS_OBSERVED');

    // An answer outside the boundary is reported (no shipped rule acts on it yet); one inside is not.
    const answer = async (content: string) => json(ctx.gateway.request('/v1/guard/output', { method: 'POST', json: { agent: 'billing-assistant', content } }));
    const breach = await answer('In 2019 you paid 300 EUR.');
    expect(breach.verdict).toBe('allow');
    expect(breach.entities).toContain('ANSWERABILITY.BOUNDARY_BREACH');
    expect((await answer('In March 2023 you paid 300 EUR.')).entities).not.toContain('ANSWERABILITY.BOUNDARY_BREACH');
  });

  it('keeps no cached answer across agents: the same text is blocked for the bounded agent after an unbounded one asked it', async () => {
    const text = 'Please list all invoices from 2020 for me.';
    expect((await guardInput('nobody-assistant', text)).verdict).toBe('allow');
    expect((await guardInput('billing-assistant', text)).verdict).toBe('block');
    expect((await guardInput('nobody-assistant', text)).verdict).toBe('allow');
  });

  it('sees a change at once in this process, and a change stored elsewhere after sync()', async () => {
    const question = 'Can you give me legal advice about my contract?';
    expect((await guardInput('billing-assistant', question)).verdict).toBe('block');
    expect((await put({ ...billing, mode: 'observe' }, operator)).status).toBe(200);
    const observed = await guardInput('billing-assistant', question);
    expect(observed.verdict).toBe('allow');
    expect(observed.entities).toContain('ANSWERABILITY.OUT_OF_BOUNDS_OBSERVED');
    expect((await put(billing, operator)).status).toBe(200);
    expect((await guardInput('billing-assistant', question)).verdict).toBe('block');

    // Another process stores a boundary: this one enforces it once it has synced.
    await ctx.gateway.store.db
      .insertInto('answerability_boundaries')
      .values({
        agent: 'elsewhere-assistant',
        systems_of_record: '[]',
        coverage_months: null,
        coverage_start: null,
        entity_types: '[]',
        answerable_types: '[]',
        out_of_scope_topics: JSON.stringify(['weather forecast']),
        freshness_hours: null,
        mode: 'enforce',
        updated_by: 'other process',
        updated_at: ctx.gateway.clock.now().toISOString(),
      })
      .execute();
    // Not asserted before sync(): the gateway's own once-a-second sync may already have read it.
    await ctx.gateway.app.services.answerability.sync();
    expect((await guardInput('elsewhere-assistant', 'What is the weather forecast?')).verdict).toBe('block');
  });

  it('judges a cached question again once time has moved on (a source gone stale)', async () => {
    const question = 'What was the total of invoice 4411 in March 2023?';
    const fresh = await guardInput('billing-assistant', question);
    expect(fresh.entities.filter((entity: string) => entity.startsWith('ANSWERABILITY.'))).toEqual([]);
    // Within the minute a cached answer may stand; past it, billing-db (48 h freshness) is judged stale.
    ctx.gateway.clock.advance(49 * 3_600_000);
    const stale = await guardInput('billing-assistant', question);
    expect(stale.entities).toContain('ANSWERABILITY.OUT_OF_BOUNDS_OBSERVED');
    expect(stale.verdict).toBe('allow');
  });

  it('reports the checks of the window: outcomes, reasons, the rate and not-answerable questions answered anyway', async () => {
    // Past every earlier check (the window is at most 365 days).
    ctx.gateway.clock.advance(400 * DAY_MS);
    await ctx.gateway.store.db.updateTable('knowledge_sources').set({ updated_at_source: ctx.gateway.clock.now().toISOString() }).where('key', '=', 'billing-db').execute();
    const empty = await json(ctx.gateway.request('/api/answerability/report', { token: viewer }));
    expect(empty).toMatchObject({ days: 30, checks: 0, unanswerable_rate: 0, answered_anyway: [] });

    const answered = await ctx.gateway.request('/v1/guard/output', { method: 'POST', json: { agent: 'billing-assistant', content: 'Your invoices total 120 EUR.', trace_id: 'trace-anyway' } });
    expect(((await answered.json()) as any).verdict).toBe('allow');
    await ctx.gateway.app.services.recorder.flush();
    const asks = [
      { agent: 'billing-assistant', question: 'Show my invoices from 2021.', trace_id: 'trace-anyway' },
      { agent: 'billing-assistant', question: 'Any legal advice?', trace_id: 'trace-never-answered' },
      { agent: 'billing-assistant', question: 'Invoices of 2023?' },
      { agent: 'billing-assistant', question: 'Balance in 2023? And in 2024?' },
      { agent: 'nobody-assistant', question: 'Anything?' },
    ];
    for (const ask of asks) expect((await check(ask)).status).toBe(200);

    const report = await json(ctx.gateway.request('/api/answerability/report?days=7', { token: viewer }));
    expect(report).toMatchObject({
      days: 7,
      checks: 5,
      by_outcome: { answerable: 2, not_answerable: 2, partial: 1 },
      unanswerable_rate: 0.4,
      by_reason: { outside_coverage_dates: 2, out_of_scope_topic: 1, entity_type_not_covered: 0, source_stale: 0, no_boundary: 1 },
    });
    expect(report.answered_anyway).toEqual([{ trace_id: 'trace-anyway', agent: 'billing-assistant', at: expect.any(String), reasons: [expect.objectContaining({ code: 'outside_coverage_dates' })] }]);
    expect((await ctx.gateway.request('/api/answerability/report?days=0', { token: viewer })).status).toBe(400);
    expect((await ctx.gateway.request('/api/answerability/report?days=366', { token: viewer })).status).toBe(400);
    expect((await ctx.gateway.request('/api/answerability/report', { token: agentCredential })).status).toBe(403);
  });

  it('describes its routes in valid OpenAPI and answers every malformed request with a 4xx problem, changing nothing', async () => {
    const before = await auditCount(ctx.gateway);
    const { failures, operations: count, document } = await malformedRequestFailures(ctx.gateway, '/api/answerability');
    const validation = await new Validator().validate(structuredClone(document) as any);
    expect(validation.errors ?? []).toEqual([]);
    expect(count).toBe(4);
    expect(failures).toEqual([]);
    expect(await auditCount(ctx.gateway)).toBe(before);
  });
});
