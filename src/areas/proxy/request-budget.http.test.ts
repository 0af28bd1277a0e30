// request_budget_ms (spec 01 §8) bounds all checks of one proxied call together: the input check
// and the answer's checks share it, each check's detector budget is the smaller of
// enforcement_budget_ms and what is left, and checks after it is spent are degraded as
// skipped_budget and follow the fail mode. A single guard call keeps enforcement_budget_ms.
import { describe, expect, it } from 'vitest';
import { DIALECTS, json } from '../../../test/helpers/gateway.js';
import { fakeDetector } from '../../../test/helpers/fake-detector.js';
import { FakeOpenAI } from '../../../test/helpers/fake-openai.js';
import { withFakeUpstream } from '../../../test/helpers/proxy.js';


/** Takes longer than the request budget, well within enforcement_budget_ms and its own timeout. */
const SLOW_MS = 400;
const slow = fakeDetector('test.slow', 50, () => new Promise((resolve) => setTimeout(() => resolve([]), SLOW_MS)));
const fine = fakeDetector('test.fine', 1, () => []);

const settings = {
  enabled_detectors: ['test.slow', 'test.fine'],
  detector_timeout_ms: 2000,
  enforcement_budget_ms: 2000,
  request_budget_ms: 100,
  upstream_openai_api_key: 'sk-gateway-held-upstream-key-0001',
};

const withProxy = (dialect: (typeof DIALECTS)[number], overrides: Record<string, unknown> = {}) =>
  withFakeUpstream(() => new FakeOpenAI(), (upstream) => ({ upstream_openai_base_url: upstream.url }), {
    dialect,
    detectors: [slow, fine],
    overrides: { ...settings, ...overrides },
  });

type Part = { surface: string; decision: { degraded: string[]; explanation: { detectors: Array<{ key: string; status: string }> } } };
const statuses = (part: Part | undefined): Record<string, string> => Object.fromEntries((part?.decision.explanation.detectors ?? []).map((d) => [d.key, d.status]));

const chat = { model: 'gpt-test', messages: [{ role: 'user', content: 'Say hello.' }] };
/** The traffic token speaks for the agent the header names. */
const asAgent = { 'x-parapet-agent': 'budget-bot' };

describe.each(DIALECTS)('request_budget_ms (%s)', (dialect) => {
  describe('fail_mode open', () => {
    const ctx = withProxy(dialect);

    it('cuts the input check at the request budget and skips the answer checks once it is spent', async () => {
      ctx.fake.reset();
      const started = Date.now();
      const answer = await json(ctx.gateway.request('/v1/chat/completions', { method: 'POST', headers: asAgent, json: chat }));
      // Without the request budget the two checks would take SLOW_MS each.
      expect(Date.now() - started).toBeLessThan(2 * SLOW_MS);
      expect(answer.choices[0].message.content).toBe('Hello from the fake upstream.');
      expect(answer.parapet.forwarded).toBe(true);
      const parts = answer.parapet.decisions as Part[];
      const input = parts.find((part) => part.surface === 'input');
      const output = parts.find((part) => part.surface === 'output');
      expect(statuses(input)).toEqual({ 'test.fine': 'ok', 'test.slow': 'timeout' });
      expect(statuses(output)).toEqual({ 'test.fine': 'skipped_budget', 'test.slow': 'skipped_budget' });
      expect(output?.decision.degraded.sort()).toEqual(['test.fine', 'test.slow']);
      expect(ctx.fake.requests).toHaveLength(1);
    });

    it('shares the budget with the windows of a streamed answer', async () => {
      ctx.fake.reset();
      const response = await ctx.gateway.request('/v1/chat/completions', { method: 'POST', headers: asAgent, json: { ...chat, stream: true } });
      expect(response.status).toBe(200);
      const events = (await response.text())
        .split('\n\n')
        .filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]')
        .map((event) => JSON.parse(event.slice(6)));
      expect(events.map((event) => event.choices?.[0]?.delta?.content ?? '').join('')).toBe('Hello from the fake upstream.');
      const parapet = events.findLast((event) => event.parapet !== undefined)?.parapet;
      const output = (parapet.decisions as Part[]).find((part) => part.surface === 'output');
      expect(statuses(output)).toEqual({ 'test.fine': 'skipped_budget', 'test.slow': 'skipped_budget' });
    });

    it('stops a long streamed answer that outlasts the budget as too large to check when baseline enforces', async () => {
      ctx.fake.reset();
      expect((await ctx.gateway.request('/api/policies/baseline/mode', { method: 'POST', json: { mode: 'enforce' } })).status).toBe(200);
      try {
        // 40 K characters in 1 K chunks: far more windows than the 100 ms budget checks.
        const text = Array.from({ length: 40 }, (_, index) => `Paragraph ${index}: ${'lorem ipsum dolor sit amet '.repeat(37)}`).join('\n');
        ctx.fake.script.push({ chunks: text.match(/[\s\S]{1,1000}/g) as string[] });
        const response = await ctx.gateway.request('/v1/chat/completions', { method: 'POST', headers: asAgent, json: { ...chat, stream: true } });
        const events = (await response.text())
          .split('\n\n')
          .filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]')
          .map((event) => JSON.parse(event.slice(6)));
        const delivered = events.map((event) => event.choices?.[0]?.delta?.content ?? '').join('');
        // Before, the windows after the budget went out unchecked (skipped_budget under fail_mode open).
        expect(delivered.length).toBeLessThan(text.length);
        const parapet = events.findLast((event) => event.parapet !== undefined)?.parapet;
        expect(JSON.stringify(parapet)).toContain('detection.content_too_large');
      } finally {
        await ctx.gateway.request('/api/policies/baseline/mode', { method: 'POST', json: { mode: 'observe' } });
      }
    });

    it('shares the budget between an MCP call\'s arguments and its result', async () => {
      const answer = await json(
        ctx.gateway.request('/v1/mcp/call', {
          method: 'POST',
          headers: asAgent,
          json: { server: 'files', tool: 'read', arguments: { path: 'notes.txt' }, result: 'the notes' },
        }),
      );
      const parts = answer.decisions as Record<'arguments' | 'result', Part['decision']>;
      expect(statuses({ surface: 'tool_args', decision: parts.arguments })).toEqual({ 'test.fine': 'ok', 'test.slow': 'timeout' });
      expect(statuses({ surface: 'tool_result', decision: parts.result })).toEqual({ 'test.fine': 'skipped_budget', 'test.slow': 'skipped_budget' });
    });

    it('leaves a single guard call to enforcement_budget_ms, as before', async () => {
      const decision = await json(ctx.gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'a', content: 'hello' } }));
      expect(statuses({ surface: 'input', decision })).toEqual({ 'test.fine': 'ok', 'test.slow': 'ok' });
      expect(decision.degraded).toEqual([]);
    });
  });

  describe('fail_mode closed', () => {
    const ctx = withProxy(dialect, { fail_mode: 'closed' });

    it('blocks a call whose checks ran out of the request budget, before it reaches the upstream', async () => {
      ctx.fake.reset();
      const answer = await json(ctx.gateway.request('/v1/chat/completions', { method: 'POST', headers: asAgent, json: chat }));
      expect(answer.parapet.verdict).toBe('block');
      expect(answer.parapet.forwarded).toBe(false);
      expect(answer.parapet.rules_fired.map((rule: { rule_id: string }) => rule.rule_id)).toContain('pipeline.fail_closed');
      expect(ctx.fake.requests).toHaveLength(0);
    });
  });
});
