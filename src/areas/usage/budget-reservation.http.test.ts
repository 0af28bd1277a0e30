// Daily cost budgets under concurrency, through two gateways on one database (SQLite file or
// PostgreSQL) and the fake upstreams: a call reserves its worst-case cost before it is forwarded and
// settles to its real cost after the answer, so that concurrent calls overshoot the budget by at
// most one call; a call that gets no answer gives its reservation back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, startGateway, type StartOptions, type TestGateway } from '../../../test/helpers/gateway.js';
import { FakeAnthropic } from '../../../test/helpers/fake-anthropic.js';
import { FakeOpenAI } from '../../../test/helpers/fake-openai.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/postgres.js';

/** 11 prompt and 7 completion tokens per fake chat answer: (11 × 1000 + 7 × 2000) / 1e6 = 0.025 USD a call. */
const PRICES = { 'gpt-test': { input_per_mtok: 1000, output_per_mtok: 2000 }, 'claude-test': { input_per_mtok: 1000, output_per_mtok: 2000 } };
const CALL_COST = 0.025;
const BUDGET = 0.1;

describe.each(DIALECTS)('daily cost budgets under concurrency, two gateways on one database (%s)', (dialect) => {
  let database: TestDatabase | undefined;
  let sharedDir: string | undefined;
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let first: TestGateway;
  let second: TestGateway;

  beforeAll(async () => {
    openai = new FakeOpenAI();
    anthropic = new FakeAnthropic();
    await Promise.all([openai.start(), anthropic.start()]);
    const overrides = {
      upstream_openai_base_url: openai.url,
      upstream_openai_api_key: 'sk-upstream',
      upstream_anthropic_base_url: anthropic.url,
      upstream_anthropic_api_key: 'sk-ant-upstream',
      upstream_retries: 0,
      model_prices: PRICES,
    };
    let options: StartOptions;
    if (dialect === 'postgres') {
      database = await createTestDatabase();
      options = { dialect, databaseUrl: database.url, overrides };
    } else {
      sharedDir = mkdtempSync(path.join(tmpdir(), 'parapet-budget-'));
      options = { dialect, overrides: { ...overrides, data_dir: sharedDir } };
    }
    first = await startGateway(options);
    second = await startGateway(options);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await openai?.close();
    await anthropic?.close();
    await database?.drop();
    if (sharedDir !== undefined) rmSync(sharedDir, { recursive: true, force: true });
  });

  const gatewayOf = (index: number): TestGateway => (index % 2 === 0 ? first : second);

  /** An agent with a daily cost budget, known to both gateways. */
  async function agentWithBudget(slug: string, protections: Record<string, unknown>): Promise<void> {
    expect((await first.request('/api/agents', { method: 'POST', json: { slug, owner_email: 'o@example.com' } })).status).toBe(201);
    expect((await first.request(`/api/agents/${slug}/protection`, { method: 'POST', json: { protections } })).status).toBe(200);
    const known = (gateway: TestGateway) => gateway.app.services.directory.lookup(slug).limits.maxCostUsdPerDay === protections.max_cost_usd_per_day;
    const deadline = Date.now() + 10_000;
    while (!(known(first) && known(second)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(known(first) && known(second)).toBe(true);
  }

  const chat = (gateway: TestGateway, agent: string, content: string, extra: Record<string, unknown> = {}) =>
    json(
      gateway.request('/v1/chat/completions', {
        method: 'POST',
        headers: { 'x-parapet-agent': agent },
        json: { model: 'gpt-test', max_tokens: 10, messages: [{ role: 'user', content }], ...extra },
      }),
    );

  /** The agent's recorded model cost (an agent with a budget has its forwarded calls written at once). */
  async function spent(agent: string): Promise<number> {
    const rows = await first.store.db.selectFrom('model_usage').select('cost_usd').where('agent', '=', agent).execute();
    return rows.reduce((sum, row) => sum + Number(row.cost_usd), 0);
  }

  it('forwards 40 concurrent chat calls only while the budget lasts: the spend stays within budget + one call', async () => {
    await agentWithBudget('burst-spender', { max_cost_usd_per_day: BUDGET });
    openai.reset();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, index) => chat(gatewayOf(index), 'burst-spender', `Hi ${index}`)));
    const forwarded = answers.filter((answer) => answer.parapet.forwarded === true);
    const refused = answers.filter((answer) => answer.parapet.forwarded === false);
    expect(forwarded.length).toBeGreaterThanOrEqual(1);
    expect(forwarded.length + refused.length).toBe(40);
    expect(openai.requests).toHaveLength(forwarded.length);
    for (const answer of refused) {
      expect(answer.choices[0].finish_reason).toBe('content_filter');
      expect(answer.choices[0].message.content).toMatch(/budget of 0.1 USD of model cost/);
      expect(answer.parapet.rules_fired).toEqual([expect.objectContaining({ rule_id: 'runs.budget_exhausted' })]);
    }
    const burstSpend = await spent('burst-spender');
    expect(burstSpend).toBeCloseTo(forwarded.length * CALL_COST, 9);
    expect(burstSpend).toBeLessThanOrEqual(BUDGET + CALL_COST + 1e-9);

    // Every reservation was settled: calls one at a time go on until the budget is really spent.
    let guard = 0;
    while ((await chat(gatewayOf(guard), 'burst-spender', `Again ${guard}`)).parapet.forwarded === true && guard < 20) guard += 1;
    const finalSpend = await spent('burst-spender');
    expect(finalSpend).toBeGreaterThanOrEqual(BUDGET);
    expect(finalSpend).toBeLessThanOrEqual(BUDGET + CALL_COST + 1e-9);
  });

  it('holds the budget for concurrent streamed chat calls, settled when each stream ends', async () => {
    await agentWithBudget('stream-spender', { max_cost_usd_per_day: BUDGET });
    openai.reset();
    openai.fallback = { text: 'Streaming slowly from the fake upstream.', delayMs: 10 };
    try {
      const streams = await Promise.all(
        Array.from({ length: 20 }, async (_, index) => {
          const response = await gatewayOf(index).request('/v1/chat/completions', {
            method: 'POST',
            headers: { 'x-parapet-agent': 'stream-spender' },
            json: { model: 'gpt-test', max_tokens: 10, stream: true, messages: [{ role: 'user', content: `Hi ${index}` }] },
          });
          const events = (await response.text()).split('\n\n').filter((event) => event.startsWith('data: {'));
          return events.map((event) => JSON.parse(event.slice('data: '.length))).find((chunk) => chunk.parapet !== undefined).parapet;
        }),
      );
      const forwarded = streams.filter((parapet) => parapet.forwarded === true).length;
      expect(forwarded).toBeGreaterThanOrEqual(1);
      expect(openai.requests).toHaveLength(forwarded);
      expect(streams.filter((parapet) => parapet.forwarded === false).every((parapet) => parapet.rules_fired[0].rule_id === 'runs.budget_exhausted')).toBe(true);
      expect(await spent('stream-spender')).toBeLessThanOrEqual(BUDGET + CALL_COST + 1e-9);
    } finally {
      openai.fallback = { text: 'Hello from the fake upstream.' };
    }
    // Settled, not left reserved: the next call goes while the spend is under the budget.
    if ((await spent('stream-spender')) < BUDGET) expect((await chat(first, 'stream-spender', 'Next')).parapet.forwarded).toBe(true);
  });

  it('holds the budget for 40 concurrent messages calls with their max_tokens', async () => {
    await agentWithBudget('burst-writer', { max_cost_usd_per_day: BUDGET });
    anthropic.reset();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        json(
          gatewayOf(index).request('/v1/messages', {
            method: 'POST',
            headers: { 'x-parapet-agent': 'burst-writer' },
            json: { model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: `Hi ${index}` }] },
          }),
        ),
      ),
    );
    const forwarded = answers.filter((answer) => answer.parapet.forwarded === true).length;
    expect(forwarded).toBeGreaterThanOrEqual(1);
    expect(anthropic.requests).toHaveLength(forwarded);
    expect(answers.filter((answer) => answer.parapet.forwarded === false).every((answer) => answer.parapet.rules_fired[0].rule_id === 'runs.budget_exhausted')).toBe(true);
    const oneCall = (await spent('burst-writer')) / forwarded;
    expect(await spent('burst-writer')).toBeLessThanOrEqual(BUDGET + oneCall + 1e-9);
  });

  it('gives the reservation back when the upstream fails or policy refuses the call', async () => {
    // The budget is under one call's worst case: one reservation left behind would refuse every later call.
    await agentWithBudget('unlucky-spender', { max_cost_usd_per_day: 0.05 });
    openai.reset();
    openai.script.push({ status: 500 });
    const failed = await gatewayOf(0).request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-parapet-agent': 'unlucky-spender' },
      json: { model: 'gpt-test', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] },
    });
    expect(failed.status).toBe(500);
    expect((await chat(second, 'unlucky-spender', 'Hi again')).parapet.forwarded).toBe(true);

    expect((await first.request('/api/agents/unlucky-spender/protection', { method: 'POST', json: { words: ['falcon'] } })).status).toBe(200);
    const refused = await chat(first, 'unlucky-spender', 'Tell me about falcon.');
    expect(refused.parapet).toMatchObject({ forwarded: false, verdict: 'block' });
    expect(refused.parapet.rules_fired[0].rule_id).not.toBe('runs.budget_exhausted');
    // 0.025 spent, under 0.05: the next call still goes.
    expect((await chat(first, 'unlucky-spender', 'And the weather?')).parapet.forwarded).toBe(true);
    expect(await spent('unlucky-spender')).toBeCloseTo(2 * CALL_COST, 9);
    expect((await chat(second, 'unlucky-spender', 'Once more.')).parapet.rules_fired[0].rule_id).toBe('runs.budget_exhausted');
  });
});
