// The findings pages in Chromium on the real API: suppress needs a reason (the browser form refuses
// an empty one, and the API's refusal of a blank one is shown), a suppression with a reason lands,
// bulk resolve with a note, the finding page shows its history and links to its decisions, and a
// viewer sees no change controls. axe on the queue and the finding page; screenshots saved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startGateway, type TestGateway } from '../helpers/gateway.js';
import { PHONE, expectNoConsoleErrors, openConsole, withBrowser } from '../helpers/browser.js';
import { dropRefusalErrors, openFindings, recordBlockedDecision, viewerToken } from './a-traffic.js';

describe('console findings', () => {
  const ctx = withBrowser();
  let gateway: TestGateway;
  let decisionId: string;
  beforeAll(async () => {
    gateway = await startGateway({ overrides: { record_content: 'full' } });
    decisionId = await recordBlockedDecision(gateway, 'support-bot');
    await openFindings(gateway, 3);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const finding = async (id: string) => json(gateway.request(`/api/findings/${id}`));

  it('suppresses a finding only with a reason, and shows the refusal without one', async () => {
    const [target] = await openFindings(gateway, 3);
    const view = await openConsole(ctx.browser, gateway.url, gateway.adminToken);
    try {
      const { page } = view;
      await view.goto('/findings');
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: target!.title, exact: true }) });
      await row.waitFor();
      expect(await view.seriousViolations()).toEqual([]);
      await view.screenshot('findings');

      await row.getByRole('button', { name: 'Suppress' }).click();
      const reason = row.getByLabel('Reason');
      // Empty: the browser's own validation keeps the form from being sent.
      await row.getByRole('button', { name: 'Suppress' }).click();
      expect(await reason.evaluate((input) => (input as any).validity.valueMissing)).toBe(true);
      expect((await finding(target!.id)).status).toBe('open');
      // Blank: the form sends it trimmed, the API refuses it and the page says why.
      await reason.fill('   ');
      await row.getByRole('button', { name: 'Suppress' }).click();
      await expect.poll(() => row.getByRole('alert').textContent()).toMatch(/suppression_reason|reason/i);
      expect((await finding(target!.id)).status).toBe('open');
      await view.screenshot('findings-refusal');

      // From the keyboard: the reason field has the focus, Enter sends the form.
      await reason.fill('known test traffic');
      await reason.press('Enter');
      await expect.poll(async () => (await finding(target!.id)).status).toBe('suppressed');
      expect((await finding(target!.id)).suppression_reason).toBe('known test traffic');
      // The queue shows open findings, so the suppressed one leaves it.
      await expect.poll(() => page.getByRole('link', { name: target!.title, exact: true }).count()).toBe(0);
      dropRefusalErrors(view, 400);
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  }, 90_000);

  it('resolves the selected findings in bulk with a note, and shows a finding with its history and decisions', async () => {
    const open = await openFindings(gateway, 2);
    const view = await openConsole(ctx.browser, gateway.url, gateway.adminToken);
    try {
      const { page } = view;
      await view.goto('/findings');
      for (const item of open) await page.getByRole('checkbox', { name: `Select ${item.title}`, exact: true }).check();
      const bulk = page.getByRole('region', { name: 'Bulk actions' });
      expect(await bulk.textContent()).toContain(`${open.length} selected`);
      await bulk.getByRole('button', { name: 'Resolve selected' }).click();
      await bulk.getByLabel('Note').fill('fixed upstream');
      await bulk.getByRole('button', { name: 'Resolve selected' }).click();
      await expect.poll(async () => Promise.all(open.map(async (item) => (await finding(item.id)).status))).toEqual(open.map(() => 'resolved'));

      const resolved = open[0]!;
      await view.goto(`/findings/${resolved.id}`);
      await page.getByRole('heading', { name: 'History' }).waitFor();
      await expect.poll(() => page.getByRole('list').filter({ hasText: 'first seen' }).textContent()).toContain('fixed upstream');
      // The latest decision, and the same decision in the table of decisions behind the finding.
      await expect.poll(() => page.getByRole('link', { name: decisionId }).count(), { timeout: 20_000 }).toBe(2);
      expect(await page.getByRole('button', { name: 'Reopen' }).count()).toBe(1);
      expect(await view.seriousViolations()).toEqual([]);
      await view.screenshot('finding');
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  }, 90_000);

  it('shows a viewer the queue and a finding without change controls, on a phone', async () => {
    const view = await openConsole(ctx.browser, gateway.url, await viewerToken(gateway, 'findings-viewer'), PHONE);
    try {
      const { page } = view;
      await view.goto('/findings?status=any');
      await page.getByRole('table').waitFor();
      expect(await page.locator('main table').getByRole('button').count()).toBe(0);
      expect(await page.locator('main').getByRole('checkbox').count()).toBe(0);
      await view.screenshot('findings-phone-viewer');
      await page.locator('main table').getByRole('link').first().click();
      await page.getByRole('heading', { name: 'History' }).waitFor();
      expect(await page.locator('main').getByRole('button').count()).toBe(0);
      expect(await view.seriousViolations()).toEqual([]);
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  }, 60_000);
});
