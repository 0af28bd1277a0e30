// Import over HTTP on both dialects: the sample configuration of each tool (test/fixtures/import,
// written for these tests) gives a plan whose mapped, approximate and unmapped ids are asserted
// exactly; apply stores through the owning services (custom rules, the policy pack in observe, the
// eval suite), a second apply changes nothing; bad sources are 400/422 and change nothing; roles;
// hostile requests.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hostileRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../../test/fixtures/import');
const read = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

const SOURCES: Record<string, unknown> = {
  litellm: read('litellm/config.yaml'),
  portkey: read('portkey/guardrails.json'),
  'nemo-guardrails': { files: { 'config.yml': read('nemo-guardrails/config.yml'), 'prompts.yml': read('nemo-guardrails/prompts.yml'), 'rails/orders.co': read('nemo-guardrails/rails/orders.co') } },
  'llm-guard': read('llm-guard/scanners.yml'),
  promptfoo: read('promptfoo/promptfooconfig.yaml'),
};

const EXPECTED: Record<string, { mapped: string[]; approximate: string[]; unmapped: string[] }> = {
  litellm: {
    mapped: ['litellm:guardrails[0]:presidio-pii:CREDIT_CARD', 'litellm:guardrails[0]:presidio-pii:EMAIL_ADDRESS', 'litellm:guardrails[3]:redact-secrets'],
    approximate: [
      'litellm:model_list[0]:support-gpt',
      'litellm:model_list[1]:claude-writer',
      'litellm:guardrails[1]:lakera-injection',
      'litellm:guardrails[2]:output-moderation',
      'litellm:litellm_settings.default_key_generate_params.max_budget:per-key',
      'litellm:litellm_settings.callbacks[0]:detect_prompt_injection',
    ],
    unmapped: [
      'litellm:model_list[2]:titan',
      'litellm:guardrails[0]:presidio-pii:NRP',
      'litellm:guardrails[4]:bedrock-policy',
      'litellm:litellm_settings.max_budget',
      'litellm:litellm_settings.max_end_user_budget',
      'litellm:litellm_settings.callbacks[1]:langfuse',
      'litellm:router_settings.provider_budget_config.openai',
    ],
  },
  portkey: {
    mapped: ['portkey:input_guardrails[0].default.regexMatch', 'portkey:input_guardrails[0].portkey.pii', 'portkey:after_request_hooks[0].checks[0]:default.endsWith'],
    approximate: [
      'portkey:input_guardrails[1].default.contains',
      'portkey:output_guardrails[0].portkey.moderateContent',
      'portkey:output_guardrails[0].default.jsonSchema',
      'portkey:after_request_hooks[0].checks[1]:sydelabs.sydeguard',
    ],
    unmapped: ['portkey:input_guardrails[1].default.wordCount', 'portkey:before_request_hooks[0]:pg-saved-123', 'portkey:after_request_hooks[0].checks[2]:default.regexMatch'],
  },
  'nemo-guardrails': {
    mapped: ['nemo-guardrails:rails.input.flows[2]:mask sensitive data on input'],
    approximate: [
      'nemo-guardrails:models[0]:main',
      'nemo-guardrails:rails.input.flows[0]:self check input',
      'nemo-guardrails:rails.input.flows[1]:jailbreak detection heuristics',
      'nemo-guardrails:rails.output.flows[0]:self check output',
      'nemo-guardrails:rails.output.flows[1]:content safety check output',
      'nemo-guardrails:rails.output.flows[2]:detect sensitive data on output',
      'nemo-guardrails:rails.output.flows[3]:self check facts',
      'nemo-guardrails:prompts.yml:prompts[0]:self_check_input',
      'nemo-guardrails:prompts.yml:prompts[1]:self_check_output',
    ],
    unmapped: [
      'nemo-guardrails:models[1]:content_safety',
      'nemo-guardrails:rails.input.flows[3]:check order number format',
      'nemo-guardrails:prompts.yml:prompts[2]:generate_user_intent',
      'nemo-guardrails:instructions[0]',
      'nemo-guardrails:rails/orders.co:check order number format',
      'nemo-guardrails:rails/orders.co:greeting',
    ],
  },
  'llm-guard': {
    mapped: ['llm-guard:input_scanners[1]:BanSubstrings', 'llm-guard:input_scanners[4]:Secrets', 'llm-guard:input_scanners[6]:InvisibleText', 'llm-guard:output_scanners[0]:Sensitive', 'llm-guard:output_scanners[1]:Regex'],
    approximate: ['llm-guard:input_scanners[0]:Anonymize', 'llm-guard:input_scanners[2]:BanTopics', 'llm-guard:input_scanners[3]:PromptInjection', 'llm-guard:output_scanners[2]:Toxicity'],
    unmapped: ['llm-guard:input_scanners[5]:TokenLimit', 'llm-guard:output_scanners[3]:NoRefusal', 'llm-guard:output_scanners[4]:Relevance'],
  },
  promptfoo: {
    mapped: ['promptfoo:tests[0]:refund window', 'promptfoo:tests[1]:order status as JSON'],
    approximate: [
      'promptfoo:tests[2]:polite refusal for legal advice',
      'promptfoo:tests[3]:greeting',
      'promptfoo:redteam.plugins[0]:prompt-extraction',
      'promptfoo:redteam.plugins[1]:pii:direct',
      'promptfoo:redteam.plugins[3]:sql-injection',
      'promptfoo:redteam.strategies[0]:base64',
    ],
    unmapped: ['promptfoo:providers[0]', 'promptfoo:redteam.plugins[2]:harmful:hate', 'promptfoo:redteam.strategies[1]:crescendo'],
  },
};

const TOOLS = Object.keys(SOURCES);
const SUITE = 'import-promptfoo-support-bot-regression';

type Item = { id: string; status: string; outcome: string; target: { kind: string; key: string } | null; applied: boolean; suggested: unknown };

describe.each(DIALECTS)('import from other tools (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  let viewer: string;
  let operator: string;

  const plan = (tool: string, body: unknown, token?: string | null) =>
    ctx.gateway.request(`/api/import/${tool}/plan`, { method: 'POST', json: body, ...(token === undefined ? {} : { token }) });
  const apply = (tool: string, body: unknown, token: string | null = operator) => ctx.gateway.request(`/api/import/${tool}`, { method: 'POST', json: body, token });
  /** What the import could change: audit entries, policies, custom rules, eval cases. */
  const footprint = async () => {
    const { db } = ctx.gateway.store;
    const count = async (table: 'audit_entries' | 'policies' | 'policy_versions' | 'custom_rules' | 'eval_suites' | 'eval_cases') =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    return { audit: await count('audit_entries'), policies: await count('policies'), versions: await count('policy_versions'), rules: await count('custom_rules'), suites: await count('eval_suites'), cases: await count('eval_cases') };
  };

  beforeAll(async () => {
    const gateway = ctx.gateway;
    viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'import-reader', role: 'viewer' } }))).token;
    operator = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'import-operator', role: 'operator' } }))).token;
  });

  it.each(TOOLS)('plans %s: the mapped, approximate and unmapped ids exactly, and stores nothing', async (tool) => {
    const before = await footprint();
    const response = await plan(tool, { source: SOURCES[tool] }, viewer);
    expect(response.status).toBe(200);
    const body = await json(response);
    const ids = (status: string) => body.items.filter((item: Item) => item.status === status).map((item: Item) => item.id);
    expect({ mapped: ids('mapped'), approximate: ids('approximate'), unmapped: ids('unmapped') }).toEqual(EXPECTED[tool]);
    const expected = EXPECTED[tool] as { mapped: string[]; approximate: string[]; unmapped: string[] };
    expect(body.counts).toEqual({ mapped: expected.mapped.length, approximate: expected.approximate.length, unmapped: expected.unmapped.length, total: body.items.length });
    for (const item of body.items) {
      if (item.status === 'unmapped') expect(item.why).toEqual(expect.any(String));
      else expect(item.how).toEqual(expect.any(String));
      if (item.status === 'approximate') expect(item.why).toEqual(expect.any(String));
    }
    expect(body.policy).toBe(`import-${tool}`);
    expect(await footprint()).toEqual(before);
  });

  it('applies LiteLLM: the pack lands in observe, a second apply says unchanged for every item', async () => {
    const first = await json(apply('litellm', { source: SOURCES.litellm }));
    expect(first.counts.failed).toBe(0);
    const outcome = (result: { items: Item[] }, id: string) => result.items.find((item) => item.id === id)?.outcome;
    expect(outcome(first, 'litellm:guardrails[0]:presidio-pii:CREDIT_CARD')).toBe('created');
    expect(outcome(first, 'litellm:guardrails[1]:lakera-injection')).toBe('created');
    // Plan-only and unmapped items store nothing.
    expect(outcome(first, 'litellm:model_list[0]:support-gpt')).toBe('unchanged');
    expect(outcome(first, 'litellm:guardrails[4]:bedrock-policy')).toBe('unchanged');
    expect(first.policy).toMatchObject({ key: 'import-litellm', mode: 'observe', version: 1 });

    const policy = await json(ctx.gateway.request('/api/policies/import-litellm', { token: viewer }));
    expect(policy.mode).toBe('observe');
    expect(policy.bound).toBe(true);
    const created = first.items.filter((item: Item) => item.outcome === 'created');
    expect(policy.rules.map((rule: { id: string }) => `import-litellm/${rule.id}`).sort()).toEqual(created.map((item: Item) => item.target?.key).sort());
    const creditCard = policy.rules.find((rule: { when: { entity?: string } }) => rule.when.entity === 'PII.CREDIT_CARD');
    expect(creditCard).toMatchObject({ effect: 'block', mode: 'observe', when: { surface: 'input', entity: 'PII.CREDIT_CARD' } });

    const second = await json(apply('litellm', { source: SOURCES.litellm }));
    expect(second.items.map((item: Item) => item.outcome)).toEqual(second.items.map(() => 'unchanged'));
    expect(second.policy).toMatchObject({ key: 'import-litellm', version: 1 });
    expect((await json(ctx.gateway.request('/api/policies/import-litellm'))).versions).toHaveLength(1);

    // The suggested per-agent budget is a request an operator makes; it carries no key.
    const budget = (await json(plan('litellm', { source: SOURCES.litellm }))).items.find((item: Item) => item.id === 'litellm:litellm_settings.default_key_generate_params.max_budget:per-key');
    expect(budget).toMatchObject({ applied: false, suggested: { method: 'POST', path: '/api/agents/{slug}/protection', body: { protections: { max_cost_usd_per_day: 1 } } } });
    expect(JSON.stringify(await json(plan('litellm', { source: SOURCES.litellm })))).not.toContain('OPENAI_API_KEY');
  });

  it('never echoes or stores a key written into the source', async () => {
    const secret = 'sk-lakera-literal-0123456789abcdef';
    const source = (SOURCES.litellm as string).replace('api_key: os.environ/LAKERA_API_KEY', `api_key: ${secret}`).replace('api_key: os.environ/OPENAI_API_KEY', `api_key: ${secret}`);
    expect(source.split(secret)).toHaveLength(3);
    expect(await (await plan('litellm', { source })).text()).not.toContain(secret);
    expect(await (await apply('litellm', { source })).text()).not.toContain(secret);
    const { db } = ctx.gateway.store;
    const stored = [
      await db.selectFrom('policy_versions').selectAll().execute(),
      await db.selectFrom('custom_rules').selectAll().execute(),
      await db.selectFrom('audit_entries').selectAll().execute(),
    ];
    expect(JSON.stringify(stored)).not.toContain(secret);
  });

  it('applies Portkey with one item skipped, then without: the skipped one is created, the rest unchanged', async () => {
    const skipped = 'portkey:input_guardrails[0].default.regexMatch';
    const first = await json(apply('portkey', { source: SOURCES.portkey, skip: [skipped] }));
    expect(first.counts.failed).toBe(0);
    expect(first.items.find((item: Item) => item.id === skipped)).toMatchObject({ outcome: 'skipped' });
    const key = first.items.find((item: Item) => item.id === skipped).target.key as string;
    const rules = async () => (await json(ctx.gateway.request('/api/custom-rules?limit=500', { token: viewer }))).items as Array<{ key: string; effect: string; kind: string; polarity: string }>;
    expect((await rules()).some((rule) => rule.key === key)).toBe(false);
    const imported = (await rules()).filter((rule) => rule.key.startsWith('import-portkey-'));
    expect(imported.map((rule) => rule.effect)).toEqual(imported.map(() => 'allow'));
    expect(imported.length).toBe(2);

    const second = await json(apply('portkey', { source: SOURCES.portkey }));
    const changed = second.items.filter((item: Item) => item.outcome !== 'unchanged');
    expect(changed.map((item: Item) => [item.id, item.outcome])).toEqual([[skipped, 'created']]);
    expect((await rules()).find((rule) => rule.key === key)).toMatchObject({ kind: 'regex', polarity: 'deny', effect: 'allow' });
    const policy = await json(ctx.gateway.request('/api/policies/import-portkey', { token: viewer }));
    expect(policy).toMatchObject({ mode: 'observe', version: 2 });

    const third = await json(apply('portkey', { source: SOURCES.portkey }));
    expect(third.items.map((item: Item) => item.outcome)).toEqual(third.items.map(() => 'unchanged'));
  });

  it.each(['nemo-guardrails', 'llm-guard'])('applies %s twice: created, then unchanged; the pack is live in observe', async (tool) => {
    const first = await json(apply(tool, { source: SOURCES[tool] }));
    expect(first.counts.failed).toBe(0);
    expect(first.counts.created).toBeGreaterThan(0);
    const policy = await json(ctx.gateway.request(`/api/policies/import-${tool}`, { token: viewer }));
    expect(policy).toMatchObject({ mode: 'observe', bound: true });
    expect(policy.rules.every((rule: { mode: string }) => rule.mode === 'observe')).toBe(true);
    const second = await json(apply(tool, { source: SOURCES[tool] }));
    expect(second.items.map((item: Item) => item.outcome)).toEqual(second.items.map(() => 'unchanged'));
  });

  it('applies promptfoo: an evaluation suite with one case per test; red-team items are plan only', async () => {
    const first = await json(apply('promptfoo', { source: SOURCES.promptfoo }));
    expect(first.counts.failed).toBe(0);
    expect(first.suite).toBe(SUITE);
    expect(first.policy).toBeNull();
    const suite = await json(ctx.gateway.request(`/api/eval/suites/${SUITE}`, { token: viewer }));
    expect(suite.cases.map((row: { key: string }) => row.key)).toEqual(['tests-0', 'tests-1', 'tests-2', 'tests-3']);
    expect(suite.cases[0]).toMatchObject({
      input: { text: 'You are the support bot of a garden shop. Answer the customer: How long do I have to return a mower?' },
      expected: { contains: ['30 days'] },
      labels: ['imported', 'promptfoo'],
    });
    expect(suite.cases[1].expected).toEqual({ json_schema: { type: 'object', required: ['status'] }, regex: '"status"\\s*:' });
    expect(suite.cases[2].context).toMatchObject({ rubric: 'Declines to give legal advice and suggests a lawyer, politely.' });
    expect(suite.cases[3].expected).toEqual({ output: 'Hello! How can I help you today?' });
    const campaign = first.items.find((item: Item) => item.id === 'promptfoo:redteam.plugins[0]:prompt-extraction');
    expect(campaign).toMatchObject({ outcome: 'unchanged', detail: expect.stringContaining('plan only') });
    const planned = await json(plan('promptfoo', { source: SOURCES.promptfoo }));
    expect(planned.items.find((item: Item) => item.id === 'promptfoo:redteam.plugins[0]:prompt-extraction').suggested).toEqual({
      method: 'POST',
      path: '/api/redteam/campaigns',
      body: { agent: '{agent}', name: 'imported from promptfoo', probes: ['destructive_sql', 'pii_elicitation', 'prompt_extraction'], adaptive: true },
    });
    const version = suite.version;
    const second = await json(apply('promptfoo', { source: SOURCES.promptfoo }));
    expect(second.items.map((item: Item) => item.outcome)).toEqual(second.items.map(() => 'unchanged'));
    expect((await json(ctx.gateway.request(`/api/eval/suites/${SUITE}`))).version).toBe(version);
  });

  it('audits one entry per apply with the counts, never the source text', async () => {
    const result = await json(apply('llm-guard', { source: SOURCES['llm-guard'] }));
    expect(result.counts.failed).toBe(0);
    const entries = await json(ctx.gateway.request('/api/audit/entries?action=import.apply&limit=50'));
    const mine = (entries.items as Array<{ action: string; target: string; detail: Record<string, unknown> }>).filter((entry) => entry.target === 'llm-guard');
    expect(mine.length).toBeGreaterThanOrEqual(1);
    expect(mine[0]?.detail).toMatchObject({ counts: result.counts, policy: 'import-llm-guard', source_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const rows = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'import.apply').execute();
    expect(JSON.stringify(rows)).not.toContain('project falcon');
  });

  it('leaves a loosening re-import to the policy lifecycle: saved, not live, the items say why', async () => {
    // The fixture without its Toxicity scanner: one rule fewer, every other item as before.
    const toxicity = '  - type: Toxicity\n    params:\n      threshold: 0.5\n';
    expect(SOURCES['llm-guard']).toContain(toxicity);
    const source = (SOURCES['llm-guard'] as string).replace(toxicity, '');
    const before = await json(ctx.gateway.request('/api/policies/import-llm-guard'));
    const result = await json(apply('llm-guard', { source }));
    expect(result.items.filter((item: Item) => item.outcome !== 'unchanged')).toEqual([]);
    expect(result.policy).toMatchObject({ key: 'import-llm-guard', version: before.version, proposal_id: expect.any(String), note: expect.stringContaining('approval') });
    const after = await json(ctx.gateway.request('/api/policies/import-llm-guard'));
    expect({ version: after.version, rules: after.rules.length }).toEqual({ version: before.version, rules: before.rules.length });
    expect(after.pending_versions).toHaveLength(1);
  });

  it('refuses bad sources with 400 or 422 and changes nothing', async () => {
    const before = await footprint();
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`), 'guardrails: *j'].join('\n');
    const deep = `guardrails: ${'['.repeat(200)}${']'.repeat(200)}`;
    const cases: Array<[string, string, unknown, number]> = [
      ['malformed YAML', 'litellm', { source: 'guardrails: [unclosed\n  - : :' }, 400],
      ['alias bomb', 'litellm', { source: bomb }, 400],
      ['deep nesting', 'portkey', { source: deep }, 400],
      ['more than 1 MiB', 'llm-guard', { source: `input_scanners: []\n#${'x'.repeat(1_048_576)}` }, 400],
      ['a list, not a mapping', 'litellm', { source: '- a\n- b\n' }, 422],
      ['no section the tool reads', 'llm-guard', { source: 'scanners: []\n' }, 422],
      ['a section of the wrong type', 'litellm', { source: 'guardrails: not-a-list\n' }, 422],
      ['an entry of the wrong type', 'llm-guard', { source: 'input_scanners:\n  - 42\n' }, 422],
      ['NeMo files without config.yml', 'nemo-guardrails', { source: { files: { 'prompts.yml': 'prompts: []\n' } } }, 422],
      ['a bad file name', 'nemo-guardrails', { source: { files: { '../config.yml': 'models: []\n' } } }, 400],
      ['two files for a one-file tool', 'portkey', { source: { files: { 'a.json': '{}', 'b.json': '{}' } } }, 422],
      ['an unknown skip id', 'llm-guard', { source: SOURCES['llm-guard'], skip: ['llm-guard:nowhere'] }, 422],
      ['an unknown field', 'litellm', { source: SOURCES.litellm, extra: true }, 400],
      ['no source', 'litellm', {}, 400],
    ];
    for (const [name, tool, body, status] of cases) {
      for (const route of [`/api/import/${tool}/plan`, `/api/import/${tool}`]) {
        if (route.endsWith('/plan') && name === 'an unknown skip id') continue;
        const response = await ctx.gateway.request(route, { method: 'POST', json: body, token: operator });
        expect([name, route, response.status]).toEqual([name, route, status]);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
    }
    expect(await footprint()).toEqual(before);
  });

  it('answers an unknown tool with 404 naming the known ones', async () => {
    for (const route of ['/api/import/langchain/plan', '/api/import/langchain']) {
      const response = await ctx.gateway.request(route, { method: 'POST', json: { source: 'a: 1' } });
      expect(response.status).toBe(404);
      expect((await json(response)).detail).toContain('litellm, portkey, nemo-guardrails, llm-guard, promptfoo');
    }
  });

  it('checks roles: a viewer plans but does not apply; no credential is 401', async () => {
    const body = { source: SOURCES['llm-guard'] };
    expect((await plan('llm-guard', body, viewer)).status).toBe(200);
    expect((await apply('llm-guard', body, viewer)).status).toBe(403);
    expect((await plan('llm-guard', body, null)).status).toBe(401);
    expect((await apply('llm-guard', body, null)).status).toBe(401);
  });

  it('survives hostile and malformed requests without a 5xx', async () => {
    const { failures, sent, operations } = await hostileRequestFailures(ctx.gateway, ['/api/import/{tool}/plan', '/api/import/{tool}']);
    expect(operations).toEqual(['POST /api/import/{tool}', 'POST /api/import/{tool}/plan']);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(10);
  }, 120_000);
});
