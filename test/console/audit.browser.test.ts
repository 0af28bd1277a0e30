// The Audit & evidence page in Chromium: verifying the chain shows it intact, a checkpoint made
// from the page is listed and then checked by the next verification, an evidence package built
// from the page is listed ready and downloads as a zip; a viewer can verify and download but sees
// no button that changes anything. axe on each view.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startGateway, type TestGateway } from '../helpers/gateway.js';
import { PHONE, expectNoConsoleErrors, openConsole, withBrowser, type ConsolePage } from '../helpers/browser.js';

describe('console audit and evidence', () => {
  const ctx = withBrowser();
  let gateway: TestGateway;
  const expectAccessible = async (view: ConsolePage) => expect(await view.seriousViolations()).toEqual([]);
  beforeAll(async () => {
    gateway = await startGateway();
    // Some history to verify and to put in a package.
    await gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'console-audit-agent', content: 'hello there' } });
    await gateway.request('/api/policies/baseline/mode', { method: 'POST', json: { mode: 'enforce' } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('verifies the chain intact, makes a checkpoint, and builds and downloads an evidence package', async () => {
    const view = await openConsole(ctx.browser, gateway.url, gateway.adminToken);
    try {
      await view.goto('/audit');
      const verify = view.page.getByRole('region', { name: 'Verify the chain', exact: true });
      await verify.getByRole('button', { name: 'Verify the chain' }).click();
      await verify.getByText('The chain is intact').waitFor();

      const checkpoints = view.page.getByRole('region', { name: 'Checkpoints', exact: true });
      await checkpoints.getByRole('button', { name: 'Create a checkpoint' }).click();
      await checkpoints.getByText(/Latest signed head/).waitFor();
      expect(await checkpoints.getByRole('table').getByRole('row').count()).toBe(2);
      await verify.getByRole('button', { name: 'Verify the chain' }).click();
      await verify.getByRole('table').getByRole('cell', { name: 'valid', exact: true }).waitFor();
      await verify.getByText('The chain is intact').waitFor();

      const evidence = view.page.getByRole('region', { name: 'Evidence packages', exact: true });
      await evidence.getByRole('button', { name: 'Build evidence package' }).click();
      await evidence.getByText('Package built.').waitFor();
      const row = evidence.getByRole('row').filter({ hasText: 'ready' });
      await row.waitFor();
      const [download] = await Promise.all([view.page.waitForEvent('download'), row.getByRole('button', { name: /^Download / }).click()]);
      expect(download.suggestedFilename()).toMatch(/\.zip$/);
      const zip = readFileSync((await download.path()) as string);
      expect(zip.subarray(0, 2).toString('latin1')).toBe('PK');
      // The new package's audit entry is in the list below, which reloaded after the build.
      await view.page.getByRole('region', { name: 'Audit entries', exact: true }).getByRole('cell', { name: 'evidence.create' }).first().waitFor();

      await expectAccessible(view);
      await view.screenshot('audit-verified-evidence');
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  });

  it('lets a viewer verify and download but shows no button that changes anything, on a phone', async () => {
    const viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'audit-viewer', role: 'viewer' } }))).token as string;
    const view = await openConsole(ctx.browser, gateway.url, viewer, PHONE);
    try {
      await view.goto('/audit');
      await view.page.getByRole('button', { name: 'Verify the chain' }).click();
      await view.page.getByText('The chain is intact').waitFor();
      await view.page.getByRole('button', { name: /^Download / }).first().waitFor();
      expect(await view.page.getByRole('button', { name: 'Create a checkpoint' }).count()).toBe(0);
      expect(await view.page.getByRole('button', { name: 'Build evidence package' }).count()).toBe(0);
      await expectAccessible(view);
      await view.screenshot('audit-viewer-phone');
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  });
});
