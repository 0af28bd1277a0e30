// The HTTP edge against hostile shapes: JSON nested beyond the depth limit (refused before any
// route code walks it), and requests Node's HTTP parser rejects before Fastify sees them (answered
// as application/problem+json all the same).
import type { FastifyError } from 'fastify';
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, startGateway, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { rawRequest } from '../../../test/helpers/raw-http.js';
import { toProblem } from './errors.js';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Agent-traffic routes and operator routes whose bodies carry free-form JSON, with the deep part placed in it. */
function deepBodies(deep: string): Array<[string, string]> {
  return [
    ['/v1/guard/input', `{"agent":"a","content":"hi","context":[${deep}]}`],
    ['/v1/guard/output', `{"agent":"a","content":"hi","completion":{"x":${deep}}}`],
    ['/v1/guard/tool_call', `{"agent":"a","tool":"t","arguments":{"x":${deep}}}`],
    ['/v1/guard/memory_write', `{"agent":"a","content":"hi","extra":${deep}}`],
    ['/v1/guard/agent_message', `{"sender":"a","content":"hi","extra":${deep}}`],
    ['/v1/chat/completions', `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[${deep}]}`],
    ['/v1/responses', `{"model":"m","input":${deep}}`],
    ['/v1/messages', `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":${deep}}]}`],
    ['/v1/mcp/call', `{"server":"s","tool":"t","arguments":{"x":${deep}}}`],
    ['/v1/traces', `{"resourceSpans":${deep}}`],
    ['/api/tools', `{"key":"deep","json_schema":{"x":${deep}}}`],
    ['/api/agents', `{"slug":"deep","metadata":${deep}}`],
  ];
}

async function auditCount(gateway: TestGateway): Promise<number> {
  const row = await gateway.store.db.selectFrom('audit_entries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(DIALECTS)('JSON nesting limit (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('refuses a body nested 5,000 levels deep on every route with a 400 naming the limit, and changes nothing', async () => {
    const before = await auditCount(ctx.gateway);
    for (const [path, body] of deepBodies(nested(5000))) {
      const response = await ctx.gateway.request(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-parapet-agent': 'a' }, body });
      const text = await response.text();
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = JSON.parse(text);
      expect(problem.type).toBe('urn:parapet:problem:invalid-request');
      expect(problem.detail).toContain(`deeper than ${ctx.gateway.config.body_max_depth} levels`);
      expect(problem.detail).not.toMatch(/stack/i);
    }
    expect(await auditCount(ctx.gateway)).toBe(before);
  });

  it('counts only brackets outside strings, so deep-looking text in a string passes', async () => {
    const content = JSON.stringify(`${'['.repeat(5000)} "\\" {{{{`);
    const response = await ctx.gateway.request('/v1/guard/input', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"agent":"a","content":${content}}` });
    expect(response.status).toBe(200);
  });

  it('accepts tool-call arguments and OTLP JSON nested well within the limit', async () => {
    let argument: unknown = 'leaf';
    for (let level = 0; level < 100; level += 1) argument = level % 2 === 0 ? { next: argument } : [argument];
    const call = await ctx.gateway.request('/v1/guard/tool_call', { method: 'POST', json: { agent: 'a', tool: 'search', arguments: { query: argument } } });
    expect(call.status).toBe(200);

    // A span attribute holding maps in maps: kvlistValue → values → value, five times over.
    let value: Record<string, unknown> = { stringValue: 'leaf' };
    for (let level = 0; level < 5; level += 1) value = { kvlistValue: { values: [{ key: `k${level}`, value }] } };
    const span = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', name: 'nested', startTimeUnixNano: '1', endTimeUnixNano: '2', attributes: [{ key: 'deep', value }] };
    const traces = await ctx.gateway.request('/v1/traces', {
      method: 'POST',
      headers: { 'x-parapet-agent': 'a' },
      json: { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 's' }, spans: [span] }] }] },
    });
    expect(traces.status).toBe(200);
  });
});

describe('JSON nesting limit, configured', () => {
  it('refuses bodies deeper than body_max_depth and accepts those at it', async () => {
    const gateway = await startGateway({ overrides: { body_max_depth: 16 } });
    try {
      const send = (depth: number) =>
        gateway.request('/v1/guard/tool_call', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"agent":"a","tool":"t","arguments":{"x":${nested(depth - 2)}}}` });
      expect((await send(16)).status).toBe(200);
      const refused = await send(17);
      expect(refused.status).toBe(400);
      expect((await json(refused)).detail).toContain('deeper than 16 levels');
    } finally {
      await gateway.close();
    }
  });
});

describe('errors never leak internal messages', () => {
  it('answers a stack overflow as a 400 without its message', () => {
    const issue = toProblem(new RangeError('Maximum call stack size exceeded') as unknown as FastifyError);
    expect(issue.status).toBe(400);
    expect(issue.detail).not.toMatch(/stack/i);
  });
});

describe('requests the HTTP parser refuses', () => {
  const ctx = withGateway();

  const expectProblem = async (request: string | Buffer, status: number, slug: string) => {
    const response = await rawRequest(ctx.gateway.url, request);
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(response.body);
    expect(problem).toMatchObject({ type: `urn:parapet:problem:${slug}`, status });
    expect(typeof problem.title).toBe('string');
    expect(typeof problem.detail).toBe('string');
    expect(problem.detail).not.toMatch(/HPE_|Parse Error/);
  };

  it('answers an over-long URL with 414', async () => {
    await expectProblem(`GET /api/agents?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414, 'uri-too-long');
  });

  it('answers an over-long URL sent in several chunks with 414', async () => {
    await expectProblem(`GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414, 'uri-too-long');
  });

  it('answers oversized headers with 431', async () => {
    await expectProblem(`GET /api/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`, 431, 'headers-too-large');
  });

  it('answers invalid bytes in the path with 400', async () => {
    await expectProblem('GET /api/agents/a\x01b HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'invalid-request');
    await expectProblem('GET /api/agents/a\x00b HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'invalid-request');
    await expectProblem(Buffer.concat([Buffer.from('GET /api/agents/a'), Buffer.from([0xff]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]), 400, 'invalid-request');
  });

  it('answers a malformed request line, header or length with 400', async () => {
    await expectProblem('G@T / HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'invalid-request');
    await expectProblem('GET / HTTP/1.1\r\nHost: x\r\nX-A\x01: b\r\n\r\n', 400, 'invalid-request');
    await expectProblem('POST /api/tools HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, 'invalid-request');
  });

  it('answers a bad percent-encoding in the path with a 400 problem', async () => {
    await expectProblem(`GET /api/agents/%ZZ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ctx.gateway.adminToken}\r\nConnection: close\r\n\r\n`, 400, 'invalid-request');
  });
});
