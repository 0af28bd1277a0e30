// The decisions pages in Chromium on the real API: a blocked decision is found in the list by its
// verdict, its page highlights the detected spans by entity and marks the decisive rule, an operator
// disputes it in one click, and a viewer sees no change button. axe on both pages, screenshots saved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startGateway, type TestGateway } from '../helpers/gateway.js';
import { PHONE, expectNoConsoleErrors, openConsole, withBrowser } from '../helpers/browser.js';
import { EMAIL, dropRefusalErrors, recordBlockedDecision, viewerToken } from './a-traffic.js';

describe('console decisions', () => {
  const ctx = withBrowser();
  let gateway: TestGateway;
  let decisionId: string;
  beforeAll(async () => {
    gateway = await startGateway({ overrides: { record_content: 'full' } });
    decisionId = await recordBlockedDecision(gateway, 'support-bot');
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('signs in, finds the blocked decision and shows its spans highlighted, the decisive rule and a dispute', async () => {
    const view = await openConsole(ctx.browser, gateway.url, gateway.adminToken);
    try {
      const { page } = view;
      await view.goto('/decisions');
      await page.getByLabel('Verdict').selectOption('block');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.url()).toContain('verdict=block');
      const row = page.getByRole('row').filter({ hasText: 'support-bot' });
      await row.getByRole('link').first().waitFor();
      expect(await row.textContent()).toContain('injection.block_input');
      expect(await view.seriousViolations()).toEqual([]);
      await view.screenshot('decisions');

      await row.getByRole('link').first().click();
      await page.getByRole('heading', { name: 'Checked content' }).waitFor();
      expect(page.url()).toContain(`/console/decisions/${decisionId}`);
      const email = page.locator('mark.span[data-entity="PII.EMAIL"]');
      expect(await email.textContent()).toContain(EMAIL);
      expect(await email.getAttribute('title')).toBe('PII.EMAIL');
      expect(await page.locator('mark.span').count()).toBeGreaterThanOrEqual(2);
      const decisiveRow = page.getByRole('row').filter({ hasText: 'decisive' });
      expect(await decisiveRow.count()).toBe(1);
      expect(await decisiveRow.textContent()).toContain('injection.block_input');
      expect(await view.seriousViolations()).toEqual([]);
      await view.screenshot('decision');

      await page.getByRole('button', { name: 'Dispute PII.EMAIL' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Recorded' }).textContent()).toContain('PII.EMAIL as a false positive');
      const labels = (await json(gateway.request('/api/guardrails/feedback'))).items;
      expect(labels).toMatchObject([{ decision_id: decisionId, label: 'false_positive', entity_type: 'PII.EMAIL' }]);
      // The same label again is refused, and the page says why.
      await page.getByRole('button', { name: 'Dispute PII.EMAIL' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('already has this label');
      dropRefusalErrors(view, 409);
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  }, 90_000);

  it('shows a viewer the decision without change buttons, on a phone', async () => {
    const view = await openConsole(ctx.browser, gateway.url, await viewerToken(gateway, 'decisions-viewer'), PHONE);
    try {
      await view.goto(`/decisions/${decisionId}`);
      await view.page.getByRole('heading', { name: 'Rules fired' }).waitFor();
      expect(await view.page.locator('main').getByRole('button').count()).toBe(0);
      expect(await view.page.locator('mark.span').count()).toBeGreaterThanOrEqual(2);
      expect(await view.seriousViolations()).toEqual([]);
      await view.screenshot('decision-phone-viewer');
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  });
});
