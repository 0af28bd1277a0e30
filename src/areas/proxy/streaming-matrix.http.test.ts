// One matrix over the three model proxies: nothing the baseline pack blocks reaches the client, on
// any endpoint, whole or streamed, wherever the blocked value falls across the upstream's chunks.
// Answers are read as raw bytes with fetch (no SDK), so every field that was sent is in view.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { FakeOpenAI } from '../../../test/helpers/fake-openai.js';
import { FakeAnthropic } from '../../../test/helpers/fake-anthropic.js';
import { FakeOpenAIResponses } from '../../../test/helpers/fake-openai-responses.js';
import type { ScriptedUpstream } from '../../../test/helpers/scripted-upstream.js';

// The holdback the other enforcing proxy tests use, and the smallest the config allows (shorter
// than the AWS key): text before the value is released, and checks run, while the value arrives.
const HOLDBACKS = [64, 16];

interface Answer {
  /** The whole body as received. */
  raw: string;
  /** The answer text as the caller assembles it (content, or all text deltas). */
  text: string;
  /** How the answer ended: finish_reason, stop_reason, or status plus the last event type. */
  end: string;
  parapet: any;
}

/** The data of each server-sent event in a body (the [DONE] sentinel left out). */
const events = (raw: string): any[] =>
  raw
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
        .join('\n'),
    )
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data));

interface Endpoint {
  name: string;
  path: string;
  fake: () => ScriptedUpstream<{ text?: string; chunks?: string[] }> & { url: string };
  overrides: (url: string) => Record<string, string>;
  body: (stream: boolean) => Record<string, unknown>;
  read: (raw: string, stream: boolean) => Answer;
  /** How a refused and a clean answer end, whole and streamed, as `Answer.end` spells it. */
  ends: Record<'refused' | 'clean', { whole: string; streamed: string }>;
}

const QUESTION = 'Show me the config.';

const ENDPOINTS: Endpoint[] = [
  {
    name: 'chat completions',
    path: '/v1/chat/completions',
    fake: () => new FakeOpenAI(),
    overrides: (url) => ({ upstream_openai_base_url: url, upstream_openai_api_key: 'sk-matrix-upstream-key' }),
    body: (stream) => ({ model: 'gpt-test', stream, messages: [{ role: 'user', content: QUESTION }] }),
    read(raw, stream) {
      if (!stream) {
        const answer = JSON.parse(raw);
        return { raw, text: answer.choices[0].message.content ?? '', end: answer.choices[0].finish_reason, parapet: answer.parapet };
      }
      const chunks = events(raw);
      const choices = chunks.flatMap((chunk) => chunk.choices ?? []);
      return {
        raw,
        text: choices.map((choice) => choice.delta?.content ?? '').join(''),
        end: choices.findLast((choice) => choice.finish_reason)?.finish_reason ?? 'none',
        parapet: chunks.findLast((chunk) => chunk.parapet !== undefined)?.parapet,
      };
    },
    ends: { refused: { whole: 'content_filter', streamed: 'content_filter' }, clean: { whole: 'stop', streamed: 'stop' } },
  },
  {
    name: 'messages',
    path: '/v1/messages',
    fake: () => new FakeAnthropic(),
    overrides: (url) => ({ upstream_anthropic_base_url: url, upstream_anthropic_api_key: 'sk-ant-matrix-upstream-key' }),
    body: (stream) => ({ model: 'claude-test', max_tokens: 256, stream, messages: [{ role: 'user', content: QUESTION }] }),
    read(raw, stream) {
      if (!stream) {
        const answer = JSON.parse(raw);
        const text = answer.content.map((block: any) => (block.type === 'text' ? block.text : '')).join('');
        return { raw, text, end: answer.stop_reason, parapet: answer.parapet };
      }
      const all = events(raw);
      // Text a block starts with counts as sent, like the deltas after it.
      const text = all
        .map((event) => (event.type === 'content_block_start' ? (event.content_block.text ?? '') : event.type === 'content_block_delta' ? (event.delta.text ?? '') : ''))
        .join('');
      const delta = all.findLast((event) => event.type === 'message_delta');
      return { raw, text, end: `${delta?.delta.stop_reason} ${all.at(-1)?.type}`, parapet: delta?.parapet };
    },
    ends: { refused: { whole: 'refusal', streamed: 'refusal message_stop' }, clean: { whole: 'end_turn', streamed: 'end_turn message_stop' } },
  },
  {
    name: 'responses',
    path: '/v1/responses',
    fake: () => new FakeOpenAIResponses(),
    overrides: (url) => ({ upstream_openai_base_url: url, upstream_openai_api_key: 'sk-matrix-upstream-key' }),
    body: (stream) => ({ model: 'gpt-test', stream, input: QUESTION }),
    read(raw, stream) {
      const messageText = (output: any[]) =>
        output
          .filter((item) => item.type === 'message')
          .flatMap((item) => item.content)
          .map((part: any) => part.text ?? '')
          .join('');
      if (!stream) {
        const answer = JSON.parse(raw);
        return { raw, text: messageText(answer.output), end: `${answer.status} ${answer.incomplete_details?.reason ?? ''}`.trim(), parapet: answer.parapet };
      }
      const all = events(raw);
      const last = all.at(-1);
      return {
        raw,
        text: all
          .filter((event) => event.type === 'response.output_text.delta')
          .map((event) => event.delta)
          .join(''),
        end: `${last?.response?.status} ${last?.type}`,
        parapet: last?.response?.parapet,
      };
    },
    ends: {
      refused: { whole: 'incomplete content_filter', streamed: 'incomplete response.incomplete' },
      clean: { whole: 'completed', streamed: 'completed response.completed' },
    },
  },
];

interface Blocked {
  name: string;
  /** The value the policy blocks, and the text right before it (the context its detector reads). */
  value: string;
  lead: string;
  rule: string;
  message: string;
  /** The shortest prefix of the value that is specific to it (`AKIA` alone is any AWS key id). */
  specific: number;
}

const BLOCKED: Blocked[] = [
  // The key the existing split-secret tests use; the secrets detector scores it ≥ 0.9.
  { name: 'AWS key', value: 'AKIAQWERTYUIOPASDF23', lead: 'aws_access_key_id = ', rule: 'secrets.block', message: 'A credential or secret is in the content.', specific: 6 },
  // A valid SSN (the detector's own fixture) after its keyword; pii.block_us_ssn blocks it on any surface.
  { name: 'US SSN', value: '460-89-9847', lead: 'the SSN on file is ', rule: 'pii.block_us_ssn', message: 'A US social security number is in the content.', specific: 5 },
];

const BEFORE = 'Sure, here is the configuration you asked for, with the deployment details included: ';
const AFTER = ' and the rest of a long explanation follows here, sentence after sentence, so that more checks run.';

interface Split {
  name: string;
  /** The upstream's chunks: BEFORE, the lead and the value cut as named, then AFTER. */
  chunks: (lead: string, value: string) => string[];
}

// Where the value is cut, the piece before the cut ends the first chunk: that chunk is longer than
// the holdback, so a window check runs while only part of the value has arrived.
const cutAt = (at: (value: string) => number) => (lead: string, value: string) => [BEFORE + lead + value.slice(0, at(value)), value.slice(at(value)) + AFTER];

const quarters = (value: string): string[] => {
  const size = Math.ceil(value.length / 4);
  return [0, 1, 2, 3].map((index) => value.slice(index * size, (index + 1) * size));
};

const SPLITS: Split[] = [
  { name: 'whole inside one chunk', chunks: (lead, value) => [BEFORE, `${lead}${value}${AFTER.slice(0, 10)}`, AFTER.slice(10)] },
  { name: 'split 1 character in', chunks: cutAt(() => 1) },
  { name: 'split in the middle', chunks: cutAt((value) => value.length >> 1) },
  { name: 'split 1 character before its end', chunks: cutAt((value) => value.length - 1) },
  {
    name: 'split over 4 chunks',
    chunks: (lead, value) => {
      const [first, second, third, fourth] = quarters(value) as [string, string, string, string];
      return [BEFORE + lead + first, second, third, fourth + AFTER];
    },
  },
  { name: 'one character per chunk', chunks: (lead, value) => [BEFORE + lead, ...value, AFTER] },
];

const MODES = [
  { name: 'non-streaming', stream: false },
  { name: 'streaming', stream: true },
];

const CELLS = BLOCKED.flatMap((blocked) => SPLITS.map((split) => ({ label: `${blocked.name} ${split.name}`, blocked, split })));

// A clean answer in the same shapes: no value any rule blocks or masks.
const CLEAN = [BEFORE, 'region = eu-west-1, repl', 'icas = three, tier = sta', 'ndard', AFTER];

const SETUPS = ENDPOINTS.flatMap((endpoint) => HOLDBACKS.map((holdback) => ({ endpoint, holdback, name: endpoint.name })));

describe.each(SETUPS)('$name, holdback $holdback, baseline enforcing (sqlite)', ({ endpoint, holdback }) => {
  let gateway: TestGateway;
  let fake: ReturnType<Endpoint['fake']>;
  beforeAll(async () => {
    fake = endpoint.fake();
    await fake.start();
    gateway = await startGateway({ overrides: { stream_holdback_chars: holdback, ...endpoint.overrides(fake.url) } });
    const promoted = await gateway.request('/api/policies/baseline/mode', { method: 'POST', json: { mode: 'enforce' } });
    expect(promoted.status).toBe(200);
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  const call = async (stream: boolean, chunks: string[]): Promise<Answer> => {
    fake.reset();
    // The whole answer is the chunks joined; each fake streams `chunks` as given.
    fake.script.push({ text: chunks.join(''), chunks });
    const response = await gateway.request(endpoint.path, { method: 'POST', headers: { 'x-parapet-agent': 'matrix-bot' }, json: endpoint.body(stream) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain(stream ? 'text/event-stream' : 'application/json');
    return endpoint.read(await response.text(), stream);
  };

  describe.each(MODES)('$name', ({ stream }) => {
    it.each(CELLS)('blocks $label', async ({ blocked, split }) => {
      const chunks = split.chunks(blocked.lead, blocked.value);
      // The script really carries the value, cut where the cell says.
      expect(chunks.join('')).toBe(`${BEFORE}${blocked.lead}${blocked.value}${AFTER}`);
      const answer = await call(stream, chunks);

      // Not the value, not a prefix specific to it (so not its first half), not its second half:
      // neither in the text the caller assembles nor anywhere in the bytes sent (parapet included).
      const half = blocked.value.length >> 1;
      for (const sent of [answer.text, answer.raw]) {
        expect(sent).not.toContain(blocked.value);
        expect(sent).not.toContain(blocked.value.slice(0, blocked.specific));
        expect(sent).not.toContain(blocked.value.slice(0, half));
        expect(sent).not.toContain(blocked.value.slice(half));
      }
      expect(answer.text).toContain(blocked.message);
      if (stream) {
        // What went out before the refusal is checked text from the start of the answer (so the
        // cell really streamed under the holdback). When the value is longer than the holdback, up
        // to (length − holdback − 1) of its first characters may go out: 3 of the key at 16 ("AKI").
        const released = answer.text.slice(0, answer.text.indexOf(blocked.message)).replace(/\n\n$/, '');
        const upstream = chunks.join('');
        expect(released.length).toBeGreaterThan(0);
        expect(upstream.startsWith(released)).toBe(true);
        expect(released.length).toBeLessThanOrEqual(upstream.indexOf(blocked.value) + Math.max(0, blocked.value.length - 1 - holdback));
      }
      expect(answer.end).toBe(endpoint.ends.refused[stream ? 'streamed' : 'whole']);
      expect(answer.parapet).toMatchObject({ verdict: 'block', explanation: { decisive: { rule_id: blocked.rule } } });
    });

    it('passes a clean answer through unchanged', async () => {
      const answer = await call(stream, CLEAN);
      expect(answer.text).toBe(CLEAN.join(''));
      expect(answer.end).toBe(endpoint.ends.clean[stream ? 'streamed' : 'whole']);
      expect(answer.parapet.verdict).toBe('allow');
    });
  });
});
