// Every route in /openapi.json, sent malformed input, answers 4xx problem+json, never 5xx, and
// changes nothing (no audit entry appears). Sent hostile values (NUL, lone surrogates, a YAML alias
// bomb, deeply nested JSON) in every string place, path and query parameter, it never answers 5xx,
// every 4xx is a problem, and a refused request changes nothing. Model upstreams are local fakes,
// so proxied calls go all the way through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeAnthropic } from './helpers/fake-anthropic.js';
import { FakeOpenAI } from './helpers/fake-openai.js';
import { DIALECTS, json, startGateway, type TestGateway } from './helpers/gateway.js';
import { casesFor, hostileCasesFor, NOT_5XX, operations, resolve, type HostileCase, type OpenApiDocument } from './helpers/openapi-fuzz.js';

/** Checks one answer; returns what is wrong with it. */
async function judge(fuzz: HostileCase, response: Response): Promise<string[]> {
  const failures: string[] = [];
  const text = await response.text();
  const label = `${fuzz.route} [${fuzz.name}] → ${response.status}`;
  const expected = fuzz.expect === NOT_5XX ? response.status < 500 : fuzz.expect.includes(response.status);
  if (!expected) failures.push(`${label}, expected ${fuzz.expect === NOT_5XX ? NOT_5XX : fuzz.expect.join('|')}: ${text.slice(0, 200)}`);
  if (response.status >= 400) {
    if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json')) {
      failures.push(`${label}: content-type ${response.headers.get('content-type')}`);
      return failures;
    }
    const problem = JSON.parse(text) as Record<string, unknown>;
    for (const field of ['type', 'title', 'status', 'detail']) {
      if (problem[field] === undefined) failures.push(`${label}: problem without ${field}`);
    }
    if (problem.status !== response.status) failures.push(`${label}: problem status ${String(problem.status)}`);
    if (response.status === 400 && fuzz.name.startsWith('wrong type') && !Array.isArray(problem.errors)) {
      failures.push(`${label}: invalid-body problem without errors`);
    }
    if (typeof problem.detail === 'string' && /call stack|RangeError|TypeError|SyntaxError/.test(problem.detail)) {
      failures.push(`${label}: internal message in detail: ${problem.detail.slice(0, 200)}`);
    }
  }
  return failures;
}

describe.each(DIALECTS)('OpenAPI fuzz walk (%s)', (dialect) => {
  let gateway: TestGateway;
  let trafficToken: string;
  let document: OpenApiDocument;
  const openai = new FakeOpenAI();
  const anthropic = new FakeAnthropic();

  const auditCount = async () =>
    Number((await gateway.store.db.selectFrom('audit_entries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    await Promise.all([openai.start(), anthropic.start()]);
    gateway = await startGateway({
      dialect,
      overrides: {
        body_limit_bytes: 64 * 1024,
        upstream_openai_base_url: openai.url,
        upstream_openai_api_key: 'sk-fuzz',
        upstream_anthropic_base_url: anthropic.url,
        upstream_anthropic_api_key: 'sk-fuzz',
      },
    });
    trafficToken = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'fuzz', role: 'traffic' } }))).token;
    document = (await json(fetch(`${gateway.url}/openapi.json`))) as OpenApiDocument;
  });
  afterAll(async () => {
    await gateway?.close();
    await Promise.all([openai.close(), anthropic.close()]);
  });

  it('answers every bad request to every documented route with a 4xx problem and changes nothing', async () => {
    const auditBefore = await auditCount();
    const failures: string[] = [];
    let sent = 0;
    for (const { method, path, operation } of operations(document)) {
      const credential = path.startsWith('/v1') ? trafficToken : gateway.adminToken;
      for (const fuzz of casesFor(document, method, path, operation, { credential, bodyLimit: gateway.config.body_limit_bytes })) {
        const response = await fetch(gateway.url + fuzz.path, { method: fuzz.method, headers: fuzz.headers, body: fuzz.body });
        sent += 1;
        failures.push(...(await judge(fuzz, response)));
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(operations(document).length * 2);
    expect(await auditCount()).toBe(auditBefore);
    expect((await gateway.request('/api/me')).status).toBe(200);
  });

  it(
    'answers hostile values in every string place, path and query parameter without a 5xx, and a refusal changes nothing',
    async () => {
      const failures: string[] = [];
      let sent = 0;
      let audited = await auditCount();
      for (const { method, path, operation } of operations(document)) {
        const traffic = path.startsWith('/v1');
        const body = resolve(document, operation.requestBody?.content?.['application/json']?.schema);
        // Under a traffic token the proxies, MCP calls and trace exports name the agent in a header;
        // the guard routes name it in the body (and a header that disagrees is refused).
        const namesAgent = body?.properties?.agent !== undefined || body?.properties?.sender !== undefined;
        const headers: Record<string, string> = traffic && !namesAgent ? { 'x-parapet-agent': 'fuzz-agent' } : {};
        for (const fuzz of hostileCasesFor(document, method, path, operation, { credential: traffic ? trafficToken : gateway.adminToken, headers })) {
          const response = await fetch(gateway.url + fuzz.path, { method: fuzz.method, headers: fuzz.headers, body: fuzz.body });
          sent += 1;
          failures.push(...(await judge(fuzz, response)));
          const now = await auditCount();
          if (response.status >= 400 && now !== audited) failures.push(`${fuzz.route} [${fuzz.name}] → ${response.status} but the audit log grew by ${now - audited}`);
          audited = now;
        }
      }
      expect(failures).toEqual([]);
      expect(sent).toBeGreaterThan(operations(document).length * 2);
      // The gateway still answers, and the walker's own credential still works.
      expect((await gateway.request('/api/me')).status).toBe(200);
    },
    300_000,
  );
});
