// Under a traffic token the proxies and /v1/mcp/call take the agent from X-Parapet-Agent
// (CONTRACT.md "Naming the agent"). A header that is present but names nobody (empty, only
// whitespace) or more than any agent name is a 400, never a call recorded for agent "".
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { rawRequest } from '../../../test/helpers/raw-http.js';

const ROUTES: Array<[string, unknown]> = [
  ['/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }],
  ['/v1/responses', { model: 'gpt-4o-mini', input: 'hello' }],
  ['/v1/messages', { model: 'claude-haiku-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] }],
  ['/v1/mcp/call', { server: 'files', tool: 'read', arguments: { path: 'a.txt' } }],
  ['/v1/guard/input', { agent: 'billing', content: 'hello' }],
];

async function recorded(gateway: TestGateway): Promise<number> {
  const row = await gateway.store.db.selectFrom('traces').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(DIALECTS)('X-Parapet-Agent under a traffic token (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('refuses an empty header with a 400 problem naming the header, and records nothing', async () => {
    const before = await recorded(ctx.gateway);
    for (const [path, body] of ROUTES) {
      const response = await ctx.gateway.request(path, { method: 'POST', headers: { 'x-parapet-agent': '' }, json: body });
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await json(response)).detail).toContain('X-Parapet-Agent');
    }
    expect(await recorded(ctx.gateway)).toBe(before);
  });

  it('refuses a header of only whitespace, as sent on the wire', async () => {
    for (const [path, body] of ROUTES) {
      const text = JSON.stringify(body);
      const response = await rawRequest(
        ctx.gateway.url,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ctx.gateway.trafficToken}\r\nX-Parapet-Agent:  \t  \r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(JSON.parse(response.body).detail).toContain('X-Parapet-Agent');
    }
  });

  it('refuses a header longer than any agent name', async () => {
    for (const [path, body] of ROUTES) {
      const response = await ctx.gateway.request(path, { method: 'POST', headers: { 'x-parapet-agent': 'a'.repeat(201) }, json: body });
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
    }
  });

  it('still refuses a missing header and takes a named one', async () => {
    const missing = await ctx.gateway.request('/v1/mcp/call', { method: 'POST', json: ROUTES[3]?.[1] });
    expect(missing.status).toBe(400);
    const named = await ctx.gateway.request('/v1/guard/input', { method: 'POST', headers: { 'x-parapet-agent': 'billing' }, json: { agent: 'billing', content: 'hello' } });
    expect(named.status).toBe(200);
  });
});
