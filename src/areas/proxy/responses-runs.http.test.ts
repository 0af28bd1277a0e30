// Runs of /v1/responses calls over HTTP with the official openai client against the fake responses
// upstream: a daily call budget refuses with an incomplete (content_filter) response without calling
// upstream, a looping function-calling run is stopped (agent_loop_stopped), and every call lands in
// GET /api/usage.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, type StartOptions, type TestGateway } from '../../../test/helpers/gateway.js';
import { agentCredential, withFakeUpstream } from '../../../test/helpers/proxy.js';
import { FakeOpenAIResponses } from '../../../test/helpers/fake-openai-responses.js';

/** 11 input and 7 output tokens per fake answer: (11 × 1000 + 7 × 2000) / 1e6 = 0.025 USD a call. */
const PRICES = { 'gpt-test': { input_per_mtok: 1000, output_per_mtok: 2000 } };
const CALL_COST = 0.025;

/** A fake upstream and a gateway pointed at it, for the tests of the enclosing describe block. */
const withProxy = (options: StartOptions = {}) => withFakeUpstream(() => new FakeOpenAIResponses(), (fake) => ({ upstream_openai_base_url: fake.url, upstream_openai_api_key: 'sk-upstream', model_prices: PRICES }), options);

/** Registers an agent (with grants and protections) and returns an openai client speaking as it. */
async function agentClient(gateway: TestGateway, slug: string, setup: { tools?: string[]; protections?: Record<string, unknown> } = {}): Promise<OpenAI> {
  const credential = await agentCredential(gateway, slug, { grants: setup.tools ?? [], ...(setup.protections === undefined ? {} : { protections: setup.protections }) });
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: credential, maxRetries: 0 });
}

const ask = (input = 'What is the weather?') => ({ model: 'gpt-test', input });

/** Reads an event stream with the SDK: every event and the final response. */
async function readEvents(stream: AsyncIterable<any>): Promise<{ events: any[]; final: any }> {
  const events: any[] = [];
  for await (const event of stream) events.push(event);
  return { events, final: events.at(-1)?.response };
}

const releasedCalls = (events: any[]) => events.filter((event) => event.type === 'response.output_item.added' && event.item.type === 'function_call');

async function findings(gateway: TestGateway, type: string, agent: string): Promise<any[]> {
  await gateway.app.services.recorder.flush();
  return (await json(gateway.request(`/api/findings?type=${type}&agent=${agent}`))).items;
}

describe.each(DIALECTS)('runs of /v1/responses calls (%s)', (dialect) => {
  const ctx = withProxy({ dialect });

  it('refuses the call after max_calls_per_day with an incomplete content_filter response, without calling upstream, and counts it in GET /api/usage', async () => {
    const client = await agentClient(ctx.gateway, 'resp-daily-bot', { protections: { max_calls_per_day: 2 } });
    ctx.fake.reset();
    expect((await client.responses.create(ask())).status).toBe('completed');
    expect((await client.responses.create(ask())).status).toBe('completed');

    const raw = await client.responses.create(ask('Once more.')).withResponse();
    const refused = raw.data as any;
    expect(raw.response.headers.get('x-parapet-verdict')).toBe('block');
    expect(refused.object).toBe('response');
    expect(refused.status).toBe('incomplete');
    expect(refused.incomplete_details).toEqual({ reason: 'content_filter' });
    expect(refused.output_text).toMatch(/budget of 2 model calls/);
    expect(refused.output).toEqual([expect.objectContaining({ type: 'message', role: 'assistant' })]);
    expect(refused.usage).toEqual({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });
    expect(refused.parapet).toMatchObject({ verdict: 'block', forwarded: false, rules_fired: [expect.objectContaining({ rule_id: 'runs.budget_exhausted' })] });
    expect(refused.parapet.decisions).toEqual([expect.objectContaining({ surface: 'input', outcome: 'blocked', decision: expect.objectContaining({ decision_id: refused.parapet.decision_id }) })]);
    expect(ctx.fake.requests).toHaveLength(2);

    // Streaming callers get the refusal as the format's events.
    const streamed = await readEvents(await client.responses.create({ ...ask('Stream it.'), stream: true }));
    expect(streamed.events[0].type).toBe('response.created');
    expect(streamed.events.at(-1).type).toBe('response.incomplete');
    expect(streamed.events.find((event) => event.type === 'response.output_text.delta').delta).toMatch(/budget of 2 model calls/);
    expect(streamed.final).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } });
    expect(streamed.final.parapet).toMatchObject({ verdict: 'block', forwarded: false, rules_fired: [expect.objectContaining({ rule_id: 'runs.budget_exhausted' })] });
    expect(ctx.fake.requests).toHaveLength(2);

    const raised = await findings(ctx.gateway, 'budget_exhausted', 'resp-daily-bot');
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ occurrences: 2, evidence: expect.objectContaining({ kind: 'calls_per_day', limit: 2, used: 2, model: 'gpt-test' }) });
    const usage = await json(ctx.gateway.request('/api/usage?agent=resp-daily-bot'));
    expect(usage.items).toEqual([
      expect.objectContaining({ agent: 'resp-daily-bot', model: 'gpt-test', calls: 4, blocked: 2, prompt_tokens: 22, completion_tokens: 14, total_tokens: 36, cost_usd: expect.closeTo(2 * CALL_COST, 9) }),
    ]);
  });

  it('counts a call that policy refuses as blocked, with no tokens', async () => {
    const client = await agentClient(ctx.gateway, 'resp-refused-bot');
    expect((await ctx.gateway.request('/api/agents/resp-refused-bot/protection', { method: 'POST', json: { words: ['falcon'] } })).status).toBe(200);
    ctx.fake.reset();
    expect((await client.responses.create(ask('Tell me about falcon.'))).status).toBe('incomplete');
    expect(ctx.fake.requests).toHaveLength(0);
    const usage = await json(ctx.gateway.request('/api/usage?agent=resp-refused-bot'));
    expect(usage.items).toEqual([expect.objectContaining({ model: 'gpt-test', calls: 1, blocked: 1, total_tokens: 0, cost_usd: 0 })]);
  });

  it('stops a run whose model proposes the same function call for the loop_threshold-th time, answering and streaming, and raises agent_loop_stopped', async () => {
    const client = await agentClient(ctx.gateway, 'resp-loop-bot', { tools: ['lookup'], protections: { loop_threshold: 3 } });
    ctx.fake.reset();
    // The same call each time; key order differs, the canonical arguments do not.
    ctx.fake.fallback = { functionCalls: [{ name: 'lookup', arguments: '{"q":"weather","n":1}' }] };
    ctx.fake.script.push({ functionCalls: [{ name: 'lookup', arguments: '{"n":1,"q":"weather"}' }] });
    try {
      const run = { headers: { 'x-parapet-session': 'resp-run-1' } };
      for (let turn = 1; turn <= 2; turn += 1) {
        const answer = await client.responses.create(ask(), run);
        expect(answer.status, `turn ${turn}`).toBe('completed');
        expect(answer.output).toEqual([expect.objectContaining({ type: 'function_call', name: 'lookup' })]);
      }
      const raw = await client.responses.create(ask(), run).withResponse();
      const stopped = raw.data as any;
      expect(raw.response.headers.get('x-parapet-verdict')).toBe('block');
      expect(stopped.status).toBe('incomplete');
      expect(stopped.incomplete_details).toEqual({ reason: 'content_filter' });
      expect(stopped.output.some((item: any) => item.type === 'function_call')).toBe(false);
      expect(stopped.output_text).toMatch(/stopped as a loop.*lookup.*3 times/);
      // The model was asked (its id and tokens stay); its looping answer was not passed on.
      expect(stopped.id).toBe('resp_fake');
      expect(stopped.usage).toEqual({ input_tokens: 11, output_tokens: 7, total_tokens: 18 });
      expect(ctx.fake.requests).toHaveLength(3);
      expect(stopped.parapet).toMatchObject({ verdict: 'block', forwarded: true, rules_fired: [expect.objectContaining({ rule_id: 'runs.loop_stopped' })] });
      expect(stopped.parapet.decisions.at(-1)).toMatchObject({ surface: 'tool_args', outcome: 'blocked', tool: 'lookup', decision: { decision_id: stopped.parapet.decision_id } });
      expect(stopped.parapet.decisions.slice(0, -1).every((part: any) => part.surface === 'input')).toBe(true);

      const raised = await findings(ctx.gateway, 'agent_loop_stopped', 'resp-loop-bot');
      expect(raised).toHaveLength(1);
      expect(raised[0]).toMatchObject({ subject: 'agent:resp-loop-bot', evidence: expect.objectContaining({ session_id: 'resp-run-1', tool: 'lookup', repeats: 3 }) });
      const trace = await json(ctx.gateway.request(`/api/traces/${stopped.parapet.decision_id}`));
      expect(trace).toMatchObject({ agent: 'resp-loop-bot', surface: 'tool_args', verdict: 'block' });

      // Streaming: the held call is not released on the stopping turn; the stream ends with the refusal.
      const streamRun = { headers: { 'x-parapet-session': 'resp-run-2' } };
      const streams = [];
      for (let turn = 0; turn < 3; turn += 1) streams.push(await readEvents(await client.responses.create({ ...ask(), stream: true }, streamRun)));
      expect(streams.map((stream) => stream.events.at(-1).type)).toEqual(['response.completed', 'response.completed', 'response.incomplete']);
      expect(streams.map((stream) => releasedCalls(stream.events).length)).toEqual([1, 1, 0]);
      const last = streams[2]!;
      expect(last.events.find((event) => event.type === 'response.output_text.delta').delta).toMatch(/stopped as a loop.*lookup.*3 times/);
      expect(last.final).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' }, usage: { total_tokens: 18 } });
      expect(last.final.output).toEqual([expect.objectContaining({ type: 'message' })]);
      expect(last.final.parapet).toMatchObject({ verdict: 'block', forwarded: true, rules_fired: [expect.objectContaining({ rule_id: 'runs.loop_stopped' })] });
      expect(last.final.parapet.decisions.at(-1)).toMatchObject({ surface: 'tool_args', outcome: 'blocked', tool: 'lookup' });
      // Sequence numbers run without a gap though the call's events were dropped.
      expect(last.events.map((event) => event.sequence_number)).toEqual(last.events.map((_, index) => index));
      expect(ctx.fake.requests).toHaveLength(6);

      // Every forwarded call, stopped or not, streamed or not, is counted once with its tokens.
      const usage = await json(ctx.gateway.request('/api/usage?agent=resp-loop-bot&model=gpt-test'));
      expect(usage.items).toEqual([expect.objectContaining({ model: 'gpt-test', calls: 6, blocked: 0, prompt_tokens: 66, completion_tokens: 42 })]);
    } finally {
      ctx.fake.fallback = { text: 'Hello from the fake responses upstream.' };
    }
  });

  it('counts a stream the client leaves early once', async () => {
    const client = await agentClient(ctx.gateway, 'resp-gone-bot', { protections: { max_calls_per_day: 10 } });
    ctx.fake.reset();
    ctx.fake.script.push({ chunks: Array.from({ length: 40 }, () => 'slow words '), delayMs: 20 });
    const stream = await client.responses.create({ ...ask(), stream: true });
    // Leaving the loop closes the connection: the gateway aborts the upstream mid-answer.
    for await (const event of stream) if (event.type === 'response.created') break;
    const deadline = Date.now() + 5000;
    let calls = 0;
    while ((calls === 0 || ctx.fake.aborted === 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      calls = (await json(ctx.gateway.request('/api/usage?agent=resp-gone-bot'))).totals.calls;
    }
    const usage = await json(ctx.gateway.request('/api/usage?agent=resp-gone-bot'));
    // The usage comes with the response's end, which never came: the call counts without tokens.
    expect(usage.items).toEqual([expect.objectContaining({ model: 'gpt-test', calls: 1, blocked: 0, total_tokens: 0 })]);
    expect(ctx.fake.requests).toHaveLength(1);
    expect(ctx.fake.aborted).toBe(1);
  });
});
