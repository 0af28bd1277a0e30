// Policy text is YAML from operators and proposals: an alias bomb ("billion laughs") or YAML
// nested thousands of levels deep is a 400 naming the limit on every route that reads policy
// text, never a 500 or a leaked stack message, and saves nothing.
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { YAML_ALIAS_BOMB } from '../../../test/helpers/openapi-fuzz.js';
import { MAX_YAML_DEPTH, PackInvalid, parsePack } from '../../engine/policy/parse.js';

const deepFlow = (depth: number) => `key: deep\nrules: []\nx: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
const deepBlock = (depth: number) => `key: deep\nrules: []\nx:\n${Array.from({ length: depth }, (_, level) => `${'  '.repeat(level + 1)}k:`).join('\n')} leaf\n`;

const WITH_ALIASES = `
key: aliased
mode: enforce
rules:
  - id: pii.block_email_input
    when: &email { surface: input, entity: PII.EMAIL, min_score: 0.5 }
    effect: block
    message: No e-mail addresses in the input.
  - id: pii.hold_email_input
    when: *email
    effect: escalate
    message: E-mail addresses in the input wait for a person.
`;

describe('parsePack limits', () => {
  const refusal = (text: string): PackInvalid => {
    try {
      parsePack(text);
    } catch (error) {
      if (error instanceof PackInvalid) return error;
      throw error;
    }
    throw new Error('parsed');
  };

  it('refuses an alias bomb as invalid policy text', () => {
    expect(refusal(YAML_ALIAS_BOMB).message).toMatch(/alias/);
  });

  it('refuses YAML nested deeper than the limit, flow or block, without a stack message', () => {
    for (const text of [deepFlow(5000), deepBlock(1200), deepFlow(MAX_YAML_DEPTH + 1)]) {
      const error = refusal(text);
      expect(error.message).toContain(`deeper than ${MAX_YAML_DEPTH} levels`);
      expect(error.message).not.toMatch(/stack/i);
    }
  });

  it('still reads a few aliases and nesting at the limit', () => {
    expect(parsePack(WITH_ALIASES).rules.map((rule) => rule.when)).toEqual([
      { surface: 'input', entity: 'PII.EMAIL', min_score: 0.5 },
      { surface: 'input', entity: 'PII.EMAIL', min_score: 0.5 },
    ]);
    // Not a valid pack (x is an unknown key) but read all the way to the schema check.
    expect(refusal(deepFlow(MAX_YAML_DEPTH - 1)).message).not.toContain('deeper than');
  });
});

async function auditCount(gateway: TestGateway): Promise<number> {
  const row = await gateway.store.db.selectFrom('audit_entries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(DIALECTS)('policy routes and hostile YAML (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('answers an alias bomb or deep YAML with a 400 problem on every route that reads policy text, and saves nothing', async () => {
    const before = await auditCount(ctx.gateway);
    for (const [text, expected] of [
      [YAML_ALIAS_BOMB, /alias/],
      [deepFlow(5000), /deeper than \d+ levels/],
      [deepBlock(300), /deeper than \d+ levels/],
    ] as const) {
      for (const [path, body] of [
        ['/api/policies', { body: text }],
        ['/api/policies/simulate', { body: text }],
        ['/api/rules/pii.block_email_input/examples/check', { policy: 'deep', body: text }],
      ] as const) {
        const response = await ctx.gateway.request(path, { method: 'POST', json: body });
        expect({ path, status: response.status }).toEqual({ path, status: 400 });
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        const problem = await json(response);
        expect(problem.detail).toMatch(expected);
        expect(problem.detail).not.toMatch(/stack|resource exhaustion/i);
      }
      const validation = await json(ctx.gateway.request('/api/policies/validate', { method: 'POST', json: { body: text } }));
      expect(validation.valid).toBe(false);
      expect(validation.errors[0].message).toMatch(expected);
    }
    expect(await auditCount(ctx.gateway)).toBe(before);
    expect((await json(ctx.gateway.request('/api/policies'))).items.map((item: { key: string }) => item.key)).not.toContain('fuzz-laughs');
  });

  it('accepts policy text that uses a few aliases', async () => {
    const validation = await json(ctx.gateway.request('/api/policies/validate', { method: 'POST', json: { body: WITH_ALIASES } }));
    expect(validation).toMatchObject({ valid: true, key: 'aliased', rules: 2 });
  });
});
