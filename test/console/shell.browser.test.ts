// The console's shell in Chromium: a wrong token is refused with the API's reason, an operator
// token signs in, the navigation reaches every page, a phone width works, and nothing logs an error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startGateway, type TestGateway } from '../helpers/gateway.js';
import { PHONE, expectNoConsoleErrors, openConsole, withBrowser } from '../helpers/browser.js';

describe('console shell', () => {
  const ctx = withBrowser();
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('refuses an unknown token and an agent credential, and signs in an operator', async () => {
    const view = await openConsole(ctx.browser, gateway.url, null);
    try {
      await view.page.getByLabel('Operator token').fill('ppt_op_not-a-real-token-0000000000');
      await view.page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => view.page.getByRole('alert').textContent()).toContain('unknown');
      await view.page.getByLabel('Operator token').fill(gateway.trafficToken);
      await view.page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => view.page.getByRole('alert').textContent()).toContain('operator token');
      await view.page.getByLabel('Operator token').fill(gateway.adminToken);
      await view.page.getByRole('button', { name: 'Sign in' }).click();
      await view.page.getByRole('navigation', { name: 'Main' }).waitFor();
      await view.screenshot('shell-signed-in');
      // The token lives in this tab's sessionStorage only.
      expect(await view.page.evaluate(() => [(globalThis as any).localStorage.length, (globalThis as any).document.cookie])).toEqual([0, '']);
    } finally {
      await view.close();
    }
    // The 401s of the refused tokens are the only errors the browser logged.
  });

  it('reaches every page from the navigation, on a laptop and a phone', async () => {
    const viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'console-viewer', role: 'viewer' } }))).token as string;
    for (const viewport of [undefined, PHONE]) {
      const view = await openConsole(ctx.browser, gateway.url, viewer, viewport);
      try {
        const links = await view.page.getByRole('navigation', { name: 'Main' }).getByRole('link').all();
        const names = await Promise.all(links.map((link) => link.textContent()));
        expect(names.length).toBeGreaterThanOrEqual(10);
        for (const name of names) {
          await view.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: name ?? '' }).click();
          await view.page.getByRole('heading', { level: 1 }).first().waitFor();
        }
        expectNoConsoleErrors(view);
      } finally {
        await view.close();
      }
    }
  });
});
