// Runs of /v1/messages calls over HTTP with the official @anthropic-ai/sdk client against the fake
// messages upstream: a daily call budget refuses in the messages format without calling upstream, a
// looping tool_use run is stopped (agent_loop_stopped), and every call lands in GET /api/usage.
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, type StartOptions, type TestGateway } from '../../../test/helpers/gateway.js';
import { agentCredential, withFakeUpstream } from '../../../test/helpers/proxy.js';
import { FakeAnthropic } from '../../../test/helpers/fake-anthropic.js';

/** 11 input and 7 output tokens per fake answer: (11 × 1000 + 7 × 2000) / 1e6 = 0.025 USD a call. */
const PRICES = { 'claude-test': { input_per_mtok: 1000, output_per_mtok: 2000 } };
const CALL_COST = 0.025;

/** A fake upstream and a gateway pointed at it, for the tests of the enclosing describe block. */
const withProxy = (options: StartOptions = {}) => withFakeUpstream(() => new FakeAnthropic(), (fake) => ({ upstream_anthropic_base_url: fake.url, upstream_anthropic_api_key: 'sk-ant-upstream', model_prices: PRICES }), options);

/** Registers an agent (with grants and protections) and returns a messages client speaking as it. */
async function agentClient(gateway: TestGateway, slug: string, setup: { tools?: string[]; protections?: Record<string, unknown> } = {}): Promise<Anthropic> {
  const credential = await agentCredential(gateway, slug, { grants: setup.tools ?? [], ...(setup.protections === undefined ? {} : { protections: setup.protections }) });
  return new Anthropic({ baseURL: gateway.url, apiKey: credential, authToken: null, maxRetries: 0 });
}

const ask = (text = 'What is the weather?') => ({ model: 'claude-test', max_tokens: 256, messages: [{ role: 'user' as const, content: text }] });

/** Reads an event stream: every event, the stop reason and the final `parapet`. */
async function readEvents(stream: AsyncIterable<any>): Promise<{ events: any[]; stopReason: string | null; parapet: any }> {
  const events: any[] = [];
  let stopReason: string | null = null;
  let parapet: any;
  for await (const event of stream) {
    events.push(event);
    if (event.type === 'message_delta') {
      stopReason = event.delta.stop_reason;
      parapet = event.parapet;
    }
  }
  return { events, stopReason, parapet };
}

const releasedToolUses = (events: any[]) => events.filter((event) => event.type === 'content_block_start' && event.content_block.type === 'tool_use');

async function findings(gateway: TestGateway, type: string, agent: string): Promise<any[]> {
  await gateway.app.services.recorder.flush();
  return (await json(gateway.request(`/api/findings?type=${type}&agent=${agent}`))).items;
}

describe.each(DIALECTS)('runs of /v1/messages calls (%s)', (dialect) => {
  const ctx = withProxy({ dialect });

  it('refuses the call after max_calls_per_day with stop_reason refusal, without calling upstream, and counts it in GET /api/usage', async () => {
    const client = await agentClient(ctx.gateway, 'msg-daily-bot', { protections: { max_calls_per_day: 2 } });
    ctx.fake.reset();
    expect((await client.messages.create(ask())).stop_reason).toBe('end_turn');
    expect((await client.messages.create(ask())).stop_reason).toBe('end_turn');

    const raw = await client.messages.create(ask('Once more.')).withResponse();
    const refused = raw.data as any;
    expect(raw.response.headers.get('x-parapet-verdict')).toBe('block');
    expect(refused.type).toBe('message');
    expect(refused.stop_reason).toBe('refusal');
    expect(refused.content).toEqual([{ type: 'text', text: expect.stringMatching(/budget of 2 model calls/) }]);
    expect(refused.usage).toEqual({ input_tokens: 0, output_tokens: 0 });
    expect(refused.parapet).toMatchObject({ verdict: 'block', forwarded: false, rules_fired: [expect.objectContaining({ rule_id: 'runs.budget_exhausted' })] });
    expect(refused.parapet.decisions).toEqual([expect.objectContaining({ surface: 'input', outcome: 'blocked', decision: expect.objectContaining({ decision_id: refused.parapet.decision_id }) })]);
    expect(ctx.fake.requests).toHaveLength(2);

    // Streaming callers get the refusal as the format's events.
    const streamed = await readEvents(await client.messages.create({ ...ask('Stream it.'), stream: true }));
    expect(streamed.events.map((event) => event.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(streamed.stopReason).toBe('refusal');
    expect(streamed.events[2].delta.text).toMatch(/budget of 2 model calls/);
    expect(streamed.parapet).toMatchObject({ verdict: 'block', forwarded: false, rules_fired: [expect.objectContaining({ rule_id: 'runs.budget_exhausted' })] });
    expect(ctx.fake.requests).toHaveLength(2);

    const raised = await findings(ctx.gateway, 'budget_exhausted', 'msg-daily-bot');
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ occurrences: 2, evidence: expect.objectContaining({ kind: 'calls_per_day', limit: 2, used: 2, model: 'claude-test' }) });
    const usage = await json(ctx.gateway.request('/api/usage?agent=msg-daily-bot'));
    expect(usage.items).toEqual([
      expect.objectContaining({ agent: 'msg-daily-bot', model: 'claude-test', calls: 4, blocked: 2, prompt_tokens: 22, completion_tokens: 14, total_tokens: 36, cost_usd: expect.closeTo(2 * CALL_COST, 9) }),
    ]);
  });

  it('counts a call that policy refuses as blocked, with no tokens', async () => {
    const client = await agentClient(ctx.gateway, 'msg-refused-bot');
    expect((await ctx.gateway.request('/api/agents/msg-refused-bot/protection', { method: 'POST', json: { words: ['falcon'] } })).status).toBe(200);
    ctx.fake.reset();
    expect((await client.messages.create(ask('Tell me about falcon.'))).stop_reason).toBe('refusal');
    expect(ctx.fake.requests).toHaveLength(0);
    const usage = await json(ctx.gateway.request('/api/usage?agent=msg-refused-bot'));
    expect(usage.items).toEqual([expect.objectContaining({ model: 'claude-test', calls: 1, blocked: 1, total_tokens: 0, cost_usd: 0 })]);
  });

  it('stops a run whose model proposes the same tool_use for the loop_threshold-th time, answering and streaming, and raises agent_loop_stopped', async () => {
    const client = await agentClient(ctx.gateway, 'msg-loop-bot', { tools: ['lookup'], protections: { loop_threshold: 3 } });
    ctx.fake.reset();
    // The same call each time; key order differs, the input does not.
    ctx.fake.fallback = { toolUses: [{ name: 'lookup', input: { q: 'weather', n: 1 } }] };
    ctx.fake.script.push({ toolUses: [{ name: 'lookup', input: { n: 1, q: 'weather' } }] });
    try {
      const run = { headers: { 'x-parapet-session': 'msg-run-1' } };
      for (let turn = 1; turn <= 2; turn += 1) {
        const answer = await client.messages.create(ask(), run);
        expect(answer.stop_reason, `turn ${turn}`).toBe('tool_use');
        expect(answer.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'lookup' })]);
      }
      const raw = await client.messages.create(ask(), run).withResponse();
      const stopped = raw.data as any;
      expect(raw.response.headers.get('x-parapet-verdict')).toBe('block');
      expect(stopped.stop_reason).toBe('refusal');
      expect(stopped.content).toEqual([{ type: 'text', text: expect.stringMatching(/stopped as a loop.*lookup.*3 times/) }]);
      // The model was asked (its id and tokens stay); its looping answer was not passed on.
      expect(stopped.id).toBe('msg_fake');
      expect(stopped.usage).toEqual({ input_tokens: 11, output_tokens: 7 });
      expect(ctx.fake.requests).toHaveLength(3);
      expect(stopped.parapet).toMatchObject({ verdict: 'block', forwarded: true, rules_fired: [expect.objectContaining({ rule_id: 'runs.loop_stopped' })] });
      expect(stopped.parapet.decisions.at(-1)).toMatchObject({ surface: 'tool_args', outcome: 'blocked', tool: 'lookup', decision: { decision_id: stopped.parapet.decision_id } });
      expect(stopped.parapet.decisions.slice(0, -1).every((part: any) => part.surface === 'input')).toBe(true);

      const raised = await findings(ctx.gateway, 'agent_loop_stopped', 'msg-loop-bot');
      expect(raised).toHaveLength(1);
      expect(raised[0]).toMatchObject({ subject: 'agent:msg-loop-bot', evidence: expect.objectContaining({ session_id: 'msg-run-1', tool: 'lookup', repeats: 3 }) });
      const trace = await json(ctx.gateway.request(`/api/traces/${stopped.parapet.decision_id}`));
      expect(trace).toMatchObject({ agent: 'msg-loop-bot', surface: 'tool_args', verdict: 'block' });

      // Streaming: the held tool_use is not released on the stopping turn; the stream ends with the refusal.
      const streamRun = { headers: { 'x-parapet-session': 'msg-run-2' } };
      const streams = [];
      for (let turn = 0; turn < 3; turn += 1) streams.push(await readEvents(await client.messages.create({ ...ask(), stream: true }, streamRun)));
      expect(streams.map((stream) => stream.stopReason)).toEqual(['tool_use', 'tool_use', 'refusal']);
      expect(streams.map((stream) => releasedToolUses(stream.events).length)).toEqual([1, 1, 0]);
      const last = streams[2]!;
      expect(last.events.at(-1).type).toBe('message_stop');
      expect(last.events.find((event) => event.type === 'content_block_delta')?.delta.text).toMatch(/stopped as a loop.*lookup.*3 times/);
      expect(last.parapet).toMatchObject({ verdict: 'block', forwarded: true, rules_fired: [expect.objectContaining({ rule_id: 'runs.loop_stopped' })] });
      expect(last.parapet.decisions.at(-1)).toMatchObject({ surface: 'tool_args', outcome: 'blocked', tool: 'lookup' });
      expect(ctx.fake.requests).toHaveLength(6);

      // Every forwarded call, stopped or not, streamed or not, is counted once with its tokens.
      const usage = await json(ctx.gateway.request('/api/usage?agent=msg-loop-bot&model=claude-test'));
      expect(usage.items).toEqual([expect.objectContaining({ model: 'claude-test', calls: 6, blocked: 0, prompt_tokens: 66, completion_tokens: 42 })]);
    } finally {
      ctx.fake.fallback = { text: 'Hello from the fake messages upstream.' };
    }
  });

  it('counts a stream the client leaves early once, with the tokens seen so far', async () => {
    const client = await agentClient(ctx.gateway, 'msg-gone-bot', { protections: { max_calls_per_day: 10 } });
    ctx.fake.reset();
    ctx.fake.script.push({ chunks: Array.from({ length: 40 }, () => 'slow words '), delayMs: 20 });
    const stream = await client.messages.create({ ...ask(), stream: true });
    // Leaving the loop closes the connection: the gateway aborts the upstream mid-answer.
    for await (const event of stream) if (event.type === 'message_start') break;
    const deadline = Date.now() + 5000;
    let calls = 0;
    while ((calls === 0 || ctx.fake.aborted === 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      calls = (await json(ctx.gateway.request('/api/usage?agent=msg-gone-bot'))).totals.calls;
    }
    const usage = await json(ctx.gateway.request('/api/usage?agent=msg-gone-bot'));
    expect(usage.items).toEqual([expect.objectContaining({ model: 'claude-test', calls: 1, blocked: 0, prompt_tokens: 11 })]);
    expect(ctx.fake.requests).toHaveLength(1);
    expect(ctx.fake.aborted).toBe(1);
  });
});
