// `parapet eval push <file.yaml>` as a team runs it: the CLI as a process (from the sources, so no
// build is needed) against a real gateway. The example suite file is created and its cases added;
// pushed again, every case is replaced by key; a bad file exits 1 naming the file, the line and
// the problem, and changes nothing on the gateway; a refused request exits 1 with the HTTP status.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { json, withGateway } from '../../../../test/helpers/gateway.js';
import { childEnv, ROOT } from '../../../../test/helpers/process.js';

const EXAMPLE = path.join(ROOT, 'examples/eval/support-bot.yaml');

/** The CLI from its sources; run from the repository so that `tsx` resolves (every path given is absolute). */
async function parapet(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/index.ts'), ...args], {
    env: childEnv({}),
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

describe('parapet eval push', () => {
  const ctx = withGateway({ dialect: 'sqlite' });
  let cwd: string;
  const push = (file: string, token = ctx.gateway.adminToken) => parapet(['eval', 'push', file, '--url', ctx.gateway.url, '--token', token]);
  const file = (name: string, text: string) => {
    const where = path.join(cwd, name);
    writeFileSync(where, text);
    return where;
  };
  const suiteCount = async () => (await json(ctx.gateway.request('/api/eval/suites'))).items.length;

  beforeAll(() => {
    cwd = mkdtempSync(path.join(tmpdir(), 'parapet-eval-push-'));
  });

  it('creates the example suite and adds its cases; a second push replaces each by key', async () => {
    const first = await push(EXAMPLE);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('created suite support-bot');
    expect(first.stdout).toContain('suite support-bot: 6 cases (6 added, 0 replaced)');

    const suite = await json(ctx.gateway.request('/api/eval/suites/support-bot'));
    expect(suite).toMatchObject({ key: 'support-bot', name: 'Support bot', tags: ['support', 'customer-facing'], version: 6 });
    expect(suite.cases.map((item: { key: string }) => item.key)).toEqual(['benign-refund', 'email-in-input', 'override-attempt', 'refund-policy', 'planted-instruction', 'file-5']);
    expect(suite.cases.every((item: { source: string }) => item.source === 'file')).toBe(true);
    expect(suite.cases[3].input.messages).toHaveLength(2);
    expect(suite.cases[4]).toMatchObject({ expected: { canary: 'BANANA-7731' }, context: { source: 'ticket 4412' } });
    expect(suite.cases[5]).toMatchObject({ split: 'train', labels: ['benign'] });

    const second = await push(EXAMPLE);
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain('created suite');
    expect(second.stdout).toContain('suite support-bot: 6 cases (0 added, 6 replaced)');
    const again = await json(ctx.gateway.request('/api/eval/suites/support-bot'));
    expect(again.version).toBe(12);
    expect(again.cases.map((item: { id: string }) => item.id)).toEqual(suite.cases.map((item: { id: string }) => item.id));
  });

  it('exits 1 on a bad file, naming the file, line and problem, and changes nothing', async () => {
    const before = await suiteCount();
    const bad: Array<[string, string, RegExp]> = [
      ['syntax.yaml', 'key: broken\ncases: [\n', /syntax\.yaml:\d+: /],
      ['no-key.yaml', 'name: Nameless\ncases: []\n', /no-key\.yaml:1: \/: .*key/],
      ['bad-key.yaml', 'key: Has Spaces\ncases: []\n', /bad-key\.yaml:1: \/key: /],
      ['no-input.yaml', 'key: no-input\ncases:\n  - key: a\n    input: { text: hi }\n  - key: b\n    expected: { verdict: allow }\n', /no-input\.yaml:5: \/cases\/1: .*input/],
      ['unknown-field.yaml', 'key: unknown-field\ncases:\n  - input: { text: hi }\n    colour: red\n', /unknown-field\.yaml:3: /],
      ['shape.yaml', 'key: shape\ncases:\n  - input: { text: hi }\n  - input: { prompt: hi }\n', /shape\.yaml:4: \/cases\/1\/input: give either text/],
      ['twice.yaml', 'key: twice\ncases:\n  - { key: same, input: { text: a } }\n  - { key: same, input: { text: b } }\n', /twice\.yaml:4: \/cases\/1: case key same is also the key of \/cases\/0/],
      ['aliases.yaml', `key: bomb\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\ncases: []\n`, /aliases expand more than 100 times/],
      ['deep.yaml', `key: deep\ncases:\n  - input: ${'['.repeat(40)}${']'.repeat(40)}\n`, /deep\.yaml:3: maps and lists nest deeper than 16 levels/],
    ];
    // Run side by side: each process starts the CLI from its sources, which takes a while.
    const results = await Promise.all(bad.map(([name, text]) => push(file(name, text))));
    for (const [index, [name, , message]] of bad.entries()) {
      const result = results[index] ?? { code: null, stdout: '', stderr: '' };
      expect(result.code, `${name}: ${result.stderr}`).toBe(1);
      expect(result.stderr, name).toContain(`is not a valid suite file`);
      expect(result.stderr, name).toMatch(message);
      expect(result.stdout, name).toBe('');
    }
    const missing = await push(path.join(cwd, 'nowhere.yaml'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no such file');
    expect(await suiteCount()).toBe(before);
  });

  it('exits 1 with the HTTP status when the gateway refuses, naming the case', async () => {
    const viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer', ttl_days: 30 } }))).token;
    const refused = await push(EXAMPLE, viewer);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('HTTP 403');
    const created = await push(file('new-suite.yaml', 'key: fresh\ncases:\n  - input: { text: hi }\n'), viewer);
    expect(created.code).toBe(1);
    expect(created.stderr).toContain('HTTP 403');
    expect((await ctx.gateway.request('/api/eval/suites/fresh')).status).toBe(404);
  });
});
