// Runs of proxied model calls over HTTP with the official openai client against the fake upstream:
// usage and cost per agent and model in the database (GET /api/usage), a looping tool-calling run
// stopped (agent_loop_stopped), daily call and cost budgets (budget_exhausted), shared by two
// gateways on one PostgreSQL database.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, startGateway, type StartOptions, type TestGateway } from '../../../test/helpers/gateway.js';
import { agentCredential, withFakeUpstream } from '../../../test/helpers/proxy.js';
import { FakeOpenAI } from '../../../test/helpers/fake-openai.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/postgres.js';

const DAY = 86_400_000;
/** 11 prompt and 7 completion tokens per fake answer: (11 × 1000 + 7 × 2000) / 1e6 = 0.025 USD a call. */
const PRICES = { 'gpt-test': { input_per_mtok: 1000, output_per_mtok: 2000 }, 'gpt-cheap': { input_per_mtok: 1, output_per_mtok: 1 } };
const CALL_COST = 0.025;

/** A fake upstream and a gateway pointed at it, for the tests of the enclosing describe block. */
const withProxy = (options: StartOptions = {}) => withFakeUpstream(() => new FakeOpenAI(), (fake) => ({ upstream_openai_base_url: fake.url, upstream_openai_api_key: 'sk-upstream', model_prices: PRICES }), options);

/** Registers an agent (with grants and protections) and returns an openai client speaking as it. */
async function agentClient(gateway: TestGateway, slug: string, setup: { tools?: string[]; protections?: Record<string, unknown> } = {}): Promise<OpenAI> {
  const credential = await agentCredential(gateway, slug, { grants: setup.tools ?? [], ...(setup.protections === undefined ? {} : { protections: setup.protections }) });
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: credential, maxRetries: 0 });
}

const ask = (client: OpenAI, model = 'gpt-test', headers: Record<string, string> = {}) =>
  client.chat.completions.create({ model, messages: [{ role: 'user', content: 'What is the weather?' }] }, { headers }) as Promise<any>;

async function findings(gateway: TestGateway, type: string, agent: string): Promise<any[]> {
  await gateway.app.services.recorder.flush();
  return (await json(gateway.request(`/api/findings?type=${type}&agent=${agent}`))).items;
}

describe.each(DIALECTS)('runs of proxied calls (%s)', (dialect) => {
  const ctx = withProxy({ dialect });

  it('records calls, tokens and cost per agent, model and day; unknown models are unpriced; GET /api/usage filters', async () => {
    const client = await agentClient(ctx.gateway, 'usage-bot');
    await ask(client);
    await ask(client);
    await ask(client, 'gpt-cheap-2025');
    await ask(client, 'mystery-model');
    const today = ctx.gateway.clock.now().toISOString().slice(0, 10);
    const usage = await json(ctx.gateway.request('/api/usage?agent=usage-bot'));
    expect(usage.to).toBe(today);
    expect(usage.items).toHaveLength(3);
    const byModel = Object.fromEntries(usage.items.map((item: any) => [item.model, item]));
    expect(byModel['gpt-test']).toEqual({
      agent: 'usage-bot',
      model: 'gpt-test',
      day: today,
      calls: 2,
      blocked: 0,
      unpriced: 0,
      prompt_tokens: 22,
      completion_tokens: 14,
      total_tokens: 36,
      cost_usd: expect.closeTo(2 * CALL_COST, 9),
    });
    // A prefix price: gpt-cheap covers gpt-cheap-2025.
    expect(byModel['gpt-cheap-2025'].cost_usd).toBeCloseTo(18 / 1e6, 12);
    expect(byModel['mystery-model']).toMatchObject({ calls: 1, unpriced: 1, cost_usd: 0, total_tokens: 18 });
    expect(usage.totals).toMatchObject({ calls: 4, blocked: 0, unpriced: 1, prompt_tokens: 44, completion_tokens: 28, total_tokens: 72 });
    expect(usage.totals.cost_usd).toBeCloseTo(2 * CALL_COST + 18 / 1e6, 9);

    const oneModel = await json(ctx.gateway.request('/api/usage?agent=usage-bot&model=mystery-model&days=1'));
    expect(oneModel.items.map((item: any) => item.model)).toEqual(['mystery-model']);
    expect(oneModel.from).toBe(today);
    for (const bad of ['days=0', 'days=367', 'days=x']) expect((await ctx.gateway.request(`/api/usage?${bad}`)).status).toBe(400);
    const viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer' } }))).token;
    expect((await ctx.gateway.request('/api/usage', { token: viewer })).status).toBe(200);
    expect((await ctx.gateway.request('/api/usage', { token: null })).status).toBe(401);
  });

  it('counts a call that policy refuses as blocked, with no tokens', async () => {
    const client = await agentClient(ctx.gateway, 'refused-bot', { protections: {} });
    expect((await ctx.gateway.request('/api/agents/refused-bot/protection', { method: 'POST', json: { words: ['falcon'] } })).status).toBe(200);
    ctx.fake.reset();
    const answer = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Tell me about falcon.' }] });
    expect(answer.choices[0]!.finish_reason).toBe('content_filter');
    expect(ctx.fake.requests).toHaveLength(0);
    const usage = await json(ctx.gateway.request('/api/usage?agent=refused-bot'));
    expect(usage.items).toEqual([expect.objectContaining({ calls: 1, blocked: 1, total_tokens: 0, cost_usd: 0 })]);
  });

  it('stops a run whose model proposes the same tool call for the loop_threshold-th time, and raises agent_loop_stopped', async () => {
    const client = await agentClient(ctx.gateway, 'loop-bot', { tools: ['lookup'], protections: { loop_threshold: 3 } });
    ctx.fake.reset();
    // The same call each time; key order differs, the canonical arguments do not.
    ctx.fake.fallback = { toolCalls: [{ name: 'lookup', arguments: '{"q":"weather","n":1}' }] };
    ctx.fake.script.push({ toolCalls: [{ name: 'lookup', arguments: '{"n":1,"q":"weather"}' }] });
    try {
      const run = { 'x-parapet-session': 'run-1' };
      for (let turn = 1; turn <= 2; turn += 1) {
        const answer = await ask(client, 'gpt-test', run);
        expect(answer.choices[0].finish_reason, `turn ${turn}`).toBe('tool_calls');
        expect(answer.choices[0].message.tool_calls[0].function.name).toBe('lookup');
      }
      const raw = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'What is the weather?' }] }, { headers: run }).withResponse();
      const stopped = raw.data as any;
      expect(raw.response.headers.get('x-parapet-verdict')).toBe('block');
      expect(stopped.choices).toHaveLength(1);
      expect(stopped.choices[0].finish_reason).toBe('content_filter');
      expect(stopped.choices[0].message.tool_calls).toBeUndefined();
      expect(stopped.choices[0].message.content).toMatch(/stopped as a loop.*lookup.*3 times/);
      expect(stopped.parapet).toMatchObject({ verdict: 'block', forwarded: true, rules_fired: [expect.objectContaining({ rule_id: 'runs.loop_stopped' })] });
      expect(stopped.parapet.decisions.at(-1)).toMatchObject({ surface: 'tool_args', outcome: 'blocked', tool: 'lookup' });
      // The model was asked (the tokens are counted); its looping answer was not passed on.
      expect(ctx.fake.requests).toHaveLength(3);
      expect(stopped.usage.total_tokens).toBe(18);

      // Another run of the same agent is its own count; the stopped run keeps being stopped while it loops.
      expect((await ask(client, 'gpt-test', { 'x-parapet-session': 'run-2' })).choices[0].finish_reason).toBe('tool_calls');
      expect((await ask(client, 'gpt-test', run)).choices[0].finish_reason).toBe('content_filter');

      const raised = await findings(ctx.gateway, 'agent_loop_stopped', 'loop-bot');
      expect(raised).toHaveLength(1);
      // Evidence is the latest occurrence's: the fourth identical proposal.
      expect(raised[0]).toMatchObject({ subject: 'agent:loop-bot', occurrences: 2, evidence: expect.objectContaining({ session_id: 'run-1', tool: 'lookup', repeats: 4 }) });
      const trace = await json(ctx.gateway.request(`/api/traces/${stopped.parapet.decision_id}`));
      expect(trace).toMatchObject({ agent: 'loop-bot', surface: 'tool_args', verdict: 'block' });

      // Streaming: the held tool call is not released; the stream ends with the refusal.
      const stream = await client.chat.completions.create(
        { model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'What is the weather?' }] },
        { headers: { 'x-parapet-session': 'run-3' } },
      );
      const streams: any[][] = [];
      for (let turn = 0; turn < 3; turn += 1) {
        const chunks: any[] = [];
        const s = turn === 0 ? stream : await client.chat.completions.create({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'What is the weather?' }] }, { headers: { 'x-parapet-session': 'run-3' } });
        for await (const chunk of s) chunks.push(chunk);
        streams.push(chunks);
      }
      const finishOf = (chunks: any[]) => chunks.flatMap((chunk) => chunk.choices ?? []).find((choice: any) => choice.finish_reason)?.finish_reason;
      expect(streams.map(finishOf)).toEqual(['tool_calls', 'tool_calls', 'content_filter']);
      const last = streams[2]!;
      expect(last.some((chunk) => chunk.choices?.[0]?.delta?.tool_calls !== undefined)).toBe(false);
      expect(last.find((chunk) => chunk.parapet !== undefined).parapet.rules_fired[0].rule_id).toBe('runs.loop_stopped');
    } finally {
      ctx.fake.fallback = { text: 'Hello from the fake upstream.' };
    }
  });

  it('refuses the call after max_calls_per_day without calling upstream, raises budget_exhausted, and starts again the next day', async () => {
    const client = await agentClient(ctx.gateway, 'daily-bot', { protections: { max_calls_per_day: 2 } });
    ctx.fake.reset();
    await ask(client);
    await ask(client);
    const raw = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Once more.' }] }).withResponse();
    const refused = raw.data as any;
    expect(raw.response.headers.get('x-parapet-verdict')).toBe('block');
    expect(refused.choices[0].finish_reason).toBe('content_filter');
    expect(refused.choices[0].message.content).toMatch(/budget of 2 model calls/);
    expect(refused.usage.total_tokens).toBe(0);
    expect(refused.parapet).toMatchObject({ verdict: 'block', forwarded: false, rules_fired: [expect.objectContaining({ rule_id: 'runs.budget_exhausted' })] });
    expect(ctx.fake.requests).toHaveLength(2);

    // Streaming callers get the refusal as a stream.
    const stream = await client.chat.completions.create({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'Stream it.' }] });
    const chunks: any[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1).choices[0].finish_reason).toBe('content_filter');
    expect(ctx.fake.requests).toHaveLength(2);

    const raised = await findings(ctx.gateway, 'budget_exhausted', 'daily-bot');
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ occurrences: 2, evidence: expect.objectContaining({ kind: 'calls_per_day', limit: 2, used: 2 }) });
    expect((await json(ctx.gateway.request('/api/usage?agent=daily-bot'))).totals).toMatchObject({ calls: 4, blocked: 2 });

    ctx.gateway.clock.advance(DAY);
    try {
      expect((await ask(client)).choices[0].finish_reason).toBe('stop');
      expect(ctx.fake.requests).toHaveLength(3);
    } finally {
      ctx.gateway.clock.advance(-DAY);
    }
  });

  it('takes exactly max_calls_per_day calls under concurrent requests, counting calls made before the limit was set', async () => {
    const client = await agentClient(ctx.gateway, 'burst-bot');
    ctx.fake.reset();
    await ask(client);
    // The limit arrives during the day: the call already made counts.
    expect((await ctx.gateway.request('/api/agents/burst-bot/protection', { method: 'POST', json: { protections: { max_calls_per_day: 4 } } })).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 10 }, () => ask(client)));
    const finishes = answers.map((answer) => answer.choices[0].finish_reason);
    expect(finishes.filter((finish) => finish === 'stop')).toHaveLength(3);
    expect(finishes.filter((finish) => finish === 'content_filter')).toHaveLength(7);
    expect(ctx.fake.requests).toHaveLength(4);
    expect((await json(ctx.gateway.request('/api/usage?agent=burst-bot'))).totals).toMatchObject({ calls: 11, blocked: 7 });
  });

  it('refuses calls once max_cost_usd_per_day is reached', async () => {
    const client = await agentClient(ctx.gateway, 'spender-bot', { protections: { max_cost_usd_per_day: 0.04 } });
    ctx.fake.reset();
    expect((await ask(client)).choices[0].finish_reason).toBe('stop');
    // 0.025 spent, under 0.04: this call goes, and brings the day to 0.05.
    expect((await ask(client)).choices[0].finish_reason).toBe('stop');
    const refused = await ask(client);
    expect(refused.choices[0].finish_reason).toBe('content_filter');
    expect(refused.choices[0].message.content).toMatch(/budget of 0.04 USD/);
    expect(ctx.fake.requests).toHaveLength(2);
    const raised = await findings(ctx.gateway, 'budget_exhausted', 'spender-bot');
    expect(raised[0].evidence).toMatchObject({ kind: 'cost_usd_per_day', limit: 0.04, used: 0.05 });
  });
});

describe('daily budgets shared by two gateways on one PostgreSQL database', () => {
  let database: TestDatabase;
  let fake: FakeOpenAI;
  let first: TestGateway;
  let second: TestGateway;

  beforeAll(async () => {
    database = await createTestDatabase();
    fake = new FakeOpenAI();
    await fake.start();
    const options = (): StartOptions => ({
      dialect: 'postgres',
      databaseUrl: database.url,
      overrides: { upstream_openai_base_url: fake.url, upstream_openai_api_key: 'sk-upstream', model_prices: PRICES },
    });
    first = await startGateway(options());
    second = await startGateway(options());
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await fake?.close();
    await database?.drop();
  });

  it('counts the calls of both processes against one max_calls_per_day', async () => {
    await agentClient(first, 'shared-bot', { protections: { max_calls_per_day: 3 } });
    // The second process reloads the registry within half a second of the change.
    const deadline = Date.now() + 5000;
    while (second.app.services.directory.lookup('shared-bot').limits.maxCallsPerDay !== 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(second.app.services.directory.lookup('shared-bot').limits.maxCallsPerDay).toBe(3);
    const via = (gateway: TestGateway) =>
      json(gateway.request('/v1/chat/completions', { method: 'POST', headers: { 'x-parapet-agent': 'shared-bot' }, json: { model: 'gpt-test', messages: [{ role: 'user', content: 'Hi' }] } }));
    const finishes: string[] = [];
    for (const gateway of [first, second, first, second, first]) finishes.push((await via(gateway)).choices[0].finish_reason);
    expect(finishes).toEqual(['stop', 'stop', 'stop', 'content_filter', 'content_filter']);
    expect(fake.requests).toHaveLength(3);
    // Reading usage writes the counts the reading process still holds; the other's follow within 200 ms.
    await first.request('/api/usage');
    const usage = await json(second.request('/api/usage?agent=shared-bot'));
    expect(usage.totals).toMatchObject({ calls: 5, blocked: 2, prompt_tokens: 33 });
    expect(usage.totals.cost_usd).toBeCloseTo(3 * CALL_COST, 9);

    // Concurrent calls through both processes: the last calls of the budget are taken exactly once.
    await agentClient(first, 'shared-burst', { protections: { max_calls_per_day: 5 } });
    const until = Date.now() + 5000;
    while (second.app.services.directory.lookup('shared-burst').limits.maxCallsPerDay !== 5 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    fake.reset();
    const burst = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        json((index % 2 === 0 ? first : second).request('/v1/chat/completions', { method: 'POST', headers: { 'x-parapet-agent': 'shared-burst' }, json: { model: 'gpt-test', messages: [{ role: 'user', content: `Hi ${index}` }] } })),
      ),
    );
    expect(burst.filter((answer) => answer.choices[0].finish_reason === 'stop')).toHaveLength(5);
    expect(fake.requests).toHaveLength(5);

    const raised = await findings(second, 'budget_exhausted', 'shared-bot');
    await first.app.services.recorder.flush();
    const all = (await json(first.request('/api/findings?type=budget_exhausted&agent=shared-bot'))).items;
    // One finding (one fingerprint over agent, limit and day), raised by both processes.
    expect(all).toHaveLength(1);
    expect(all[0].occurrences).toBe(2);
    expect(raised.length).toBe(1);
  });
});
