// The overview in Chromium on the real API, after one blocked decision: what needs attention links
// to the finding, the onboarding checklist counts what is done, and the three charts (decisions and
// block rate per day, detector latency p95, open findings by severity) draw with their tables.
// axe on a laptop and a phone; screenshots saved. The gateway keeps the default record_content
// (redacted), so the last test reads a redacted decision page here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { PHONE, expectNoConsoleErrors, openConsole, withBrowser } from '../helpers/browser.js';
import { EMAIL, openFindings, recordBlockedDecision } from './a-traffic.js';

describe('console overview', () => {
  const ctx = withBrowser();
  let gateway: TestGateway;
  let decisionId: string;
  beforeAll(async () => {
    // The default record_content (redacted): the last test reads the decision as it is recorded then.
    gateway = await startGateway();
    decisionId = await recordBlockedDecision(gateway, 'support-bot');
    await openFindings(gateway, 3);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('shows what needs attention, the checklist and the charts, and leads to a finding', async () => {
    const view = await openConsole(ctx.browser, gateway.url, gateway.adminToken);
    try {
      const { page } = view;
      const card = (name: string) => page.getByRole('region', { name });
      await card('Getting started').getByText(/\d+ of \d+ done/).waitFor();
      expect(await card('Getting started').textContent()).toContain('Promote the baseline pack to enforce');
      // Three charts: the summary ranges, the latency report and the board come from report threads.
      await expect.poll(() => page.locator('.recharts-wrapper').count(), { timeout: 30_000 }).toBe(3);
      expect(await card('Decisions and block rate, last 7 days').textContent()).toContain('1 decision, 1 blocked (100.0 %)');
      await card('Decisions and block rate, last 7 days').getByText('as a table').click();
      expect(await card('Decisions and block rate, last 7 days').getByRole('row').filter({ hasText: 'last 24 h' }).textContent()).toContain('100.0 %');
      expect(await card('Detector latency p95, last 7 days').textContent()).toContain('injection.heuristic');
      expect(await card('Open findings by severity').textContent()).toMatch(/[3-9] open/);
      const attention = card('Needs attention').getByRole('link').first();
      await attention.waitFor();
      expect(await view.seriousViolations()).toEqual([]);
      await view.screenshot('overview');

      await attention.click();
      await page.getByRole('heading', { name: 'History' }).waitFor();
      expect(page.url()).toMatch(/\/console\/findings\/fnd_/);
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  }, 90_000);

  it('fits a phone', async () => {
    const view = await openConsole(ctx.browser, gateway.url, gateway.adminToken, PHONE);
    try {
      await expect.poll(() => view.page.locator('.recharts-wrapper').count(), { timeout: 30_000 }).toBe(3);
      // Nothing wider than the screen: the page does not scroll sideways.
      expect(await view.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      expect(await view.seriousViolations()).toEqual([]);
      await view.screenshot('overview-phone');
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  }, 60_000);

  it('shows a decision recorded redacted with its placeholders marked, and says so', async () => {
    const view = await openConsole(ctx.browser, gateway.url, gateway.adminToken);
    try {
      await view.goto(`/decisions/${decisionId}`);
      await view.page.getByText('Recorded redacted').waitFor();
      const content = await view.page.locator('pre.content').textContent();
      // Each detected span was replaced by its entity when recorded (the address inside the exfiltration span too).
      expect(content).not.toContain(EMAIL);
      expect(await view.page.locator('mark.span[data-entity="INJECTION.INSTRUCTION_OVERRIDE"]').textContent()).toBe('[INJECTION.INSTRUCTION_OVERRIDE]');
      await view.screenshot('decision-redacted');
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  });
});
