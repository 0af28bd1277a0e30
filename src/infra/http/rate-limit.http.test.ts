// The gateway's rate limits on the real gateway, in-process store: public routes per client
// address, /api and /v1 per credential (off unless set), never /health or /metrics, trust_proxy
// deciding which address counts, and a 429 problem with Retry-After over the limit.
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { addressKey, routeClass } from './rate-limit.js';

async function expectRateLimited(response: Response, scope: string): Promise<void> {
  expect(response.status).toBe(429);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
  const body = (await response.json()) as { detail: string };
  expect(body).toMatchObject({ type: 'urn:parapet:problem:rate-limited', status: 429, title: 'Too many requests' });
  expect(body.detail).toContain(scope);
}

/** Sends `count` requests one after another and answers their statuses. */
async function statuses(count: number, send: () => Promise<Response>): Promise<number[]> {
  const seen: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const response = await send();
    seen.push(response.status);
    await response.arrayBuffer();
  }
  return seen;
}

const publicRoot = (gateway: TestGateway, headers: Record<string, string> = {}) => fetch(`${gateway.url}/`, { headers });

const auditCount = async (gateway: TestGateway): Promise<number> =>
  Number((await gateway.store.db.selectFrom('audit_entries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

async function mint(gateway: TestGateway, role: string): Promise<string> {
  const minted = await json(gateway.request('/api/tokens', { method: 'POST', json: { name: `rate ${role} ${Math.random()}`, role } }));
  expect(typeof minted.token).toBe('string');
  return minted.token as string;
}

describe('route classes and address keys', () => {
  it('puts public routes, /api and /v1 in their classes and never limits health or metrics', () => {
    expect(routeClass('/api/public/showcase', 'public')).toBe('public');
    expect(routeClass('/', 'public')).toBe('public');
    expect(routeClass('/api/agents', 'viewer')).toBe('api');
    expect(routeClass('/v1/guard/input', 'traffic')).toBe('agent');
    expect(routeClass('/v1x', 'viewer')).toBe('api');
    for (const url of ['/health', '/ready', '/api/health', '/metrics']) expect(routeClass(url, 'optional')).toBeNull();
  });

  it('counts IPv6 clients per /64, IPv4-mapped addresses as IPv4, and hashes junk', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:db8:1:2:bbbb::9'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    const junk = addressKey('x'.repeat(5_000));
    expect(junk.length).toBeLessThanOrEqual(17);
    expect(addressKey(undefined)).toBe('unknown');
  });
});

describe.each(DIALECTS)('rate limits, in-process store (%s)', (dialect) => {
  describe('defaults: public routes limited, /api and /v1 not', () => {
    const ctx = withGateway({ dialect, overrides: { rate_limit_public_per_minute: 3 } });

    it('refuses the public routes past the limit per address with a 429 problem and Retry-After', async () => {
      const gateway = ctx.gateway;
      const first = await publicRoot(gateway);
      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-limit')).toBe('3');
      expect(await statuses(2, () => publicRoot(gateway))).toEqual([200, 200]);
      await expectRateLimited(await publicRoot(gateway), 'from one address');
      // The public routes share one budget per address (the document is public too).
      await expectRateLimited(await fetch(`${gateway.url}/openapi.json`), 'from one address');
    });

    it('never limits /health, /api/health or /metrics', async () => {
      const gateway = ctx.gateway;
      expect(await statuses(8, () => fetch(`${gateway.url}/health`))).toEqual(Array(8).fill(200));
      expect(await statuses(4, () => gateway.request('/api/health'))).toEqual(Array(4).fill(200));
      expect(await statuses(4, () => gateway.request('/metrics'))).toEqual(Array(4).fill(200));
    });

    it('does not limit /api or /v1 by default, and adds no rate headers there', async () => {
      const gateway = ctx.gateway;
      expect(await statuses(12, () => gateway.request('/api/me'))).toEqual(Array(12).fill(200));
      const me = await gateway.request('/api/me');
      expect(me.headers.get('x-ratelimit-limit')).toBeNull();
      const guard = () => gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'rate-agent', content: 'hello' } });
      expect(await statuses(8, guard)).toEqual(Array(8).fill(200));
    });

    it('keeps the showcase on its own limit, apart from the public budget', async () => {
      const gateway = ctx.gateway;
      // The public budget of this address is spent (first test); the showcase has its own bucket.
      const feed = await fetch(`${gateway.url}/api/public/showcase`);
      expect(feed.status).toBe(200);
      expect(feed.headers.get('x-ratelimit-limit')).toBe(String(gateway.config.showcase_rate_limit_per_minute));
    });
  });

  describe('with rate_limit_api_per_minute set', () => {
    const ctx = withGateway({ dialect, overrides: { rate_limit_api_per_minute: 4 } });

    it('gives each credential its own budget', async () => {
      const gateway = ctx.gateway;
      const viewer = await mint(gateway, 'viewer');
      // Minting used one of the admin token's four.
      expect(await statuses(3, () => gateway.request('/api/me'))).toEqual([200, 200, 200]);
      await expectRateLimited(await gateway.request('/api/me'), 'with one credential');
      // Another credential, same address: its own four.
      expect(await statuses(4, () => gateway.request('/api/me', { token: viewer }))).toEqual([200, 200, 200, 200]);
      await expectRateLimited(await gateway.request('/api/version', { token: viewer }), 'with one credential');
      // A refused request changes nothing.
      const audited = await auditCount(gateway);
      expect(await statuses(2, () => gateway.request('/api/tokens', { method: 'POST', json: { name: 'over the limit', role: 'viewer' } }))).toEqual([429, 429]);
      expect(await auditCount(gateway)).toBe(audited);
      // Monitoring still gets through.
      expect((await gateway.request('/api/health')).status).toBe(200);
    });

    it('leaves agent traffic alone', async () => {
      const gateway = ctx.gateway;
      const guard = () => gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'rate-agent', content: 'hello' } });
      expect(await statuses(6, guard)).toEqual(Array(6).fill(200));
    });

    it('answers a malformed or unknown credential 401, never 5xx', async () => {
      const gateway = ctx.gateway;
      const malformed = await fetch(`${gateway.url}/api/me`, { headers: { authorization: 'Basic abc' } });
      expect(malformed.status).toBe(401);
      expect(malformed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await gateway.request('/api/me', { token: 'ppt_op_unknown' })).status).toBe(401);
    });
  });

  describe('with rate_limit_agent_per_minute set', () => {
    const ctx = withGateway({ dialect, overrides: { rate_limit_agent_per_minute: 3 } });

    it('limits /v1 per credential', async () => {
      const gateway = ctx.gateway;
      const other = await mint(gateway, 'traffic');
      const guard = (token?: string) => () =>
        gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'rate-agent', content: 'hello' }, ...(token === undefined ? {} : { token }) });
      expect(await statuses(3, guard())).toEqual([200, 200, 200]);
      await expectRateLimited(await guard()(), 'with one credential');
      expect(await statuses(3, guard(other))).toEqual([200, 200, 200]);
      await expectRateLimited(await guard(other)(), 'with one credential');
      // The operator API has no limit set.
      expect(await statuses(6, () => gateway.request('/api/me'))).toEqual(Array(6).fill(200));
    });
  });

  describe('trust_proxy true: X-Forwarded-For names the client', () => {
    const ctx = withGateway({ dialect, overrides: { trust_proxy: true, rate_limit_public_per_minute: 2 } });

    it('counts per forwarded address', async () => {
      const gateway = ctx.gateway;
      const from = (address: string) => () => publicRoot(gateway, { 'x-forwarded-for': address });
      expect(await statuses(2, from('198.51.100.1'))).toEqual([200, 200]);
      await expectRateLimited(await from('198.51.100.1')(), 'from one address');
      expect(await statuses(2, from('198.51.100.2'))).toEqual([200, 200]);
      // The proxy's own address (the socket) is not the client: it has its own budget.
      expect((await publicRoot(gateway)).status).toBe(200);
    });

    it('answers a forged, oversized forwarding header without a 5xx', async () => {
      const gateway = ctx.gateway;
      const junk = `${'\u00e9x'.repeat(1_000)}, 198.51.100.9`;
      const seen = await statuses(4, () => fetch(`${gateway.url}/`, { headers: { 'x-forwarded-for': encodeURIComponent(junk) } }));
      expect(seen.slice(0, 2)).toEqual([200, 200]);
      expect(seen.slice(2)).toEqual([429, 429]);
    });
  });

  describe('trust_proxy false: X-Forwarded-For is ignored', () => {
    const ctx = withGateway({ dialect, overrides: { trust_proxy: false, rate_limit_public_per_minute: 2 } });

    it('does not let a spoofed header reset the budget', async () => {
      const gateway = ctx.gateway;
      let spoof = 0;
      const spoofed = () => publicRoot(gateway, { 'x-forwarded-for': `203.0.113.${(spoof += 1)}` });
      expect(await statuses(2, spoofed)).toEqual([200, 200]);
      await expectRateLimited(await spoofed(), 'from one address');
      await expectRateLimited(await spoofed(), 'from one address');
    });
  });
});
