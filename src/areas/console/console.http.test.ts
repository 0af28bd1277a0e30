// The console's files over HTTP: index.html for every page path (never cached, with a strict
// content security policy), hashed assets cached for a year, a missing asset a 404 problem, /console
// redirected to /console/, and GET / sending a browser there while API clients keep the JSON.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { json, withGateway } from '../../../test/helpers/gateway.js';
import { packagePath } from '../../infra/lib/package-root.js';
import { prefersHtml } from '../system/routes.js';

describe('console files', () => {
  const ctx = withGateway();
  const get = (pathname: string, headers: Record<string, string> = {}) => fetch(ctx.gateway.url + pathname, { headers, redirect: 'manual' });

  it('serves index.html for the app and its page paths, never cached, without a credential', async () => {
    for (const pathname of ['/console/', '/console/decisions/dec_123', '/console/agents/some-bot']) {
      const response = await get(pathname);
      expect(response.status, pathname).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await response.text()).toContain('<div id="root"></div>');
    }
    const bare = await get('/console');
    expect(bare.status).toBe(302);
    expect(bare.headers.get('location')).toBe('/console/');
  });

  it('serves hashed assets as immutable and a missing one as a 404 problem', async () => {
    const [asset] = readdirSync(packagePath('dist', 'console', 'assets')).filter((name) => name.endsWith('.js'));
    const response = await get(`/console/assets/${asset}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('javascript');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const missing = await get('/console/assets/gone-0000.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    for (const sneaky of ['/console/assets/..%2f..%2fpackage.json', '/console/assets/%2e%2e/%2e%2e/package.json']) {
      const answer = await get(sneaky);
      expect(answer.status, sneaky).not.toBe(200);
      expect(answer.status, sneaky).toBeLessThan(500);
    }
  });

  it('sends a browser asking for / to the console and keeps the JSON for API clients', async () => {
    const browser = await get('/', { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
    expect(browser.status).toBe(302);
    expect(browser.headers.get('location')).toBe('/console/');
    for (const accept of [undefined, 'application/json', '*/*', 'application/json, text/html;q=0.5']) {
      const response = await get('/', accept === undefined ? {} : { accept });
      expect(response.status, String(accept)).toBe(200);
      expect((await json(Promise.resolve(response))).links.console).toBe('/console/');
    }
  });

  it('reads Accept the way browsers and clients write it', () => {
    expect(prefersHtml('text/html')).toBe(true);
    expect(prefersHtml('text/html;q=0.1, application/json')).toBe(false);
    expect(prefersHtml('text/html;q=abc')).toBe(false);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml(`${'x,'.repeat(10_000)}text/html`)).toBe(false);
  });
});
