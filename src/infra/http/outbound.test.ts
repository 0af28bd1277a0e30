// The outbound policy: URLs and resolved addresses judged, caps and redirects, against a real
// server on 127.0.0.1 (reachable only with allowPrivate).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedLookup, outboundRequest, outboundUrlProblem, OutboundRefused } from './outbound.js';

const closed = { allowPrivate: false };
const open = { allowPrivate: true };

describe('outbound URL policy', () => {
  it.each([
    ['http://example.com/hook', /only https/],
    ['https://127.0.0.1/x', /loopback/],
    ['https://10.1.2.3/x', /private/],
    ['https://169.254.169.254/latest/meta-data', /linkLocal/],
    ['https://[::1]/x', /loopback/],
    ['https://[::ffff:127.0.0.1]/x', /loopback/],
    ['https://localhost/x', /local name/],
    ['https://db.internal/x', /local name/],
    ['https://user:pw@example.com/x', /credentials/],
    ['file:///etc/passwd', /scheme/],
    ['not a url', /not a URL/],
  ])('refuses %s', (url, why) => {
    expect(outboundUrlProblem(url, closed)).toMatch(why);
  });

  it('accepts public https, and http or inner addresses only when allowed', () => {
    expect(outboundUrlProblem('https://hooks.example.com/services/T1', closed)).toBeNull();
    expect(outboundUrlProblem('http://127.0.0.1:9/x', open)).toBeNull();
    expect(outboundUrlProblem('file:///etc/passwd', open)).toMatch(/scheme/);
  });

  it('refuses a name that resolves to an inner address at connect time', async () => {
    const error = await new Promise<Error | null>((resolve) => guardedLookup('localhost', {}, (failure) => resolve(failure)));
    expect(error).toBeInstanceOf(OutboundRefused);
    expect(error?.message).toMatch(/localhost resolves to .* loopback address/);
  });
});

describe('outboundRequest', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/big') response.end('x'.repeat(5000));
      else if (request.url === '/hop') response.writeHead(302, { location: '/big' }).end();
      else if (request.url === '/away') response.writeHead(302, { location: 'http://example.com/' }).end();
      else response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses a loopback server unless the policy allows it', async () => {
    await expect(outboundRequest(`${base}/`, closed)).rejects.toBeInstanceOf(OutboundRefused);
    expect((await outboundRequest(`${base}/`, open)).body).toBe('ok');
  });

  it('caps what it reads and follows same-origin redirects only when asked', async () => {
    const capped = await outboundRequest(`${base}/big`, open, { maxBytes: 100 });
    expect(capped).toMatchObject({ status: 200, truncated: true });
    expect(capped.body).toHaveLength(100);
    await expect(outboundRequest(`${base}/hop`, open)).rejects.toThrow(/redirect not followed/);
    expect((await outboundRequest(`${base}/hop`, open, { maxRedirects: 2 })).url).toBe(`${base}/big`);
    await expect(outboundRequest(`${base}/away`, open, { maxRedirects: 2 })).rejects.toThrow(/another origin/);
  });
});
