// Evidence on proxied calls: `parapet_context` in a chat-completions or messages body (sent through
// the official SDKs as an extra body field) is read by the answer's checks exactly as a guard output
// call's `context`, streamed or whole, and never reaches the upstream. A malformed one is a 400.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, type TestGateway } from '../../../test/helpers/gateway.js';
import { FakeAnthropic } from '../../../test/helpers/fake-anthropic.js';
import { FakeOpenAI } from '../../../test/helpers/fake-openai.js';
import { agentCredential, withFakeUpstream } from '../../../test/helpers/proxy.js';
import { DEFAULT_DETECTORS } from '../../infra/config/schema.js';

const INTEGRITY = ['integrity.evidence', 'integrity.answer', 'disclosure.answer'];
const overrides = { enabled_detectors: [...DEFAULT_DETECTORS, ...INTEGRITY] };
const evidence = [
  { kind: 'record', facts: { status: 'active', balance: '$1,200.00' } },
  { kind: 'question', text: 'What is my account status?' },
];
const CONTRADICTION = 'Your account status is suspended.';

const integrityEntities = (decision: any): string[] => decision.entities.filter((entity: string) => entity.startsWith('INTEGRITY.'));
const outputParts = (field: any): any[] => field.decisions.filter((part: any) => part.surface === 'output');

async function findingsOf(gateway: TestGateway, agent: string): Promise<any[]> {
  await gateway.app.services.recorder.flush();
  return (await json(gateway.request('/api/findings?type=context_integrity&limit=200'))).items.filter((item: any) => item.evidence.agent === agent);
}

describe.each(DIALECTS)('evidence on chat-completions (%s)', (dialect) => {
  const ctx = withFakeUpstream(() => new FakeOpenAI(), (fake) => ({ upstream_openai_base_url: fake.url, upstream_openai_api_key: 'sk-upstream-evidence' }), { dialect, overrides });
  const client = async (agent: string) => new OpenAI({ baseURL: `${ctx.gateway.url}/v1`, apiKey: await agentCredential(ctx.gateway, agent), maxRetries: 0 });

  it('checks a whole answer against parapet_context and keeps it from the upstream', async () => {
    const openai = await client('rag-chat');
    ctx.fake.reset();
    ctx.fake.script.push({ text: CONTRADICTION });
    const answer: any = await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Is my account suspended?' }], parapet_context: evidence } as any);
    expect(answer.choices[0].message.content).toBe(CONTRADICTION);
    const [output] = outputParts(answer.parapet);
    expect(integrityEntities(output.decision)).toEqual(['INTEGRITY.CONTEXT_CONTRADICTION']);
    // The shipped answer-integrity pack observes: allowed, with what enforcing would do.
    expect(output.decision.effective_verdict).toBe('block');
    expect(ctx.fake.requests).toHaveLength(1);
    expect(ctx.fake.requests[0]?.body).not.toHaveProperty('parapet_context');
    expect(await findingsOf(ctx.gateway, 'rag-chat')).toHaveLength(1);

    // The same answer without evidence has nothing to be checked against.
    ctx.fake.script.push({ text: CONTRADICTION });
    const bare: any = await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Is my account suspended?' }] });
    expect(integrityEntities(outputParts(bare.parapet)[0].decision)).toEqual([]);
  });

  it('checks a streamed answer against parapet_context', async () => {
    const openai = await client('rag-stream');
    ctx.fake.reset();
    ctx.fake.script.push({ text: CONTRADICTION });
    const stream = await openai.chat.completions.create({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'Is my account suspended?' }], parapet_context: evidence } as any);
    let last: any;
    for await (const chunk of stream as any) if (chunk.parapet !== undefined) last = chunk;
    const entities = outputParts(last.parapet).flatMap((part: any) => integrityEntities(part.decision));
    expect(entities).toContain('INTEGRITY.CONTEXT_CONTRADICTION');
    expect(ctx.fake.requests[0]?.body).not.toHaveProperty('parapet_context');
  });

  it('refuses a parapet_context that is not an array of at most 200 items, before anything goes upstream', async () => {
    const credential = await agentCredential(ctx.gateway, 'rag-bad');
    ctx.fake.reset();
    for (const bad of ['record', { kind: 'record' }, Array.from({ length: 201 }, () => ({ kind: 'question', text: 'x' }))]) {
      const response = await ctx.gateway.request('/v1/chat/completions', { method: 'POST', token: credential, json: { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], parapet_context: bad } });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    // Hostile but well-formed evidence is read, reported as malformed where it is, and never a 500.
    ctx.fake.script.push({ text: 'Fine.' });
    const hostile = await ctx.gateway.request('/v1/chat/completions', {
      method: 'POST',
      token: credential,
      json: { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], parapet_context: [null, 7, { kind: 'record', facts: { a: 'x\u0000\ud800' } }, { kind: 'chunk', source: 'a', text: 'y'.repeat(40_000) }] },
    });
    expect(hostile.status).toBe(200);
    expect(ctx.fake.requests).toHaveLength(1);
  });
});

describe.each(DIALECTS)('evidence on messages (%s)', (dialect) => {
  const ctx = withFakeUpstream(() => new FakeAnthropic(), (fake) => ({ upstream_anthropic_base_url: fake.url, upstream_anthropic_api_key: 'sk-ant-upstream-evidence' }), { dialect, overrides });

  it('checks the answer against parapet_context and keeps it from the upstream', async () => {
    const anthropic = new Anthropic({ baseURL: ctx.gateway.url, apiKey: await agentCredential(ctx.gateway, 'rag-claude'), maxRetries: 0 });
    ctx.fake.reset();
    ctx.fake.script.push({ text: CONTRADICTION });
    const answer: any = await anthropic.messages.create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'Is my account suspended?' }], parapet_context: evidence } as any);
    expect(integrityEntities(outputParts(answer.parapet)[0].decision)).toEqual(['INTEGRITY.CONTEXT_CONTRADICTION']);
    expect(ctx.fake.requests[0]?.body).not.toHaveProperty('parapet_context');
  });
});
