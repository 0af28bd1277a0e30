// The agents pages in Chromium: a grant proposed from blocked traffic is approved in one click and
// the next tool call passes; an admin kills an agent with a reason and its calls stop; a viewer
// (at phone width) sees the registry and an agent but no button that changes anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startGateway, type TestGateway } from '../helpers/gateway.js';
import { PHONE, expectNoConsoleErrors, openConsole, withBrowser } from '../helpers/browser.js';
import { grantTool, mintToken, registerAgent, toolCall } from './b-agents.js';

describe('console: agents', () => {
  const ctx = withBrowser();
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  /** A blocked call of a tool the agent lacks; once recorded, GET …/access proposes the grant. */
  async function blockedCall(slug: string, tool: string) {
    const call = { agent: slug, tool, arguments: { query: 'quarterly revenue' } };
    expect((await toolCall(gateway, call)).verdict).toBe('block');
    await gateway.app.services.recorder.flush();
    return call;
  }

  it('approves a grant proposed from traffic in one click; the next tool call passes', async () => {
    await registerAgent(gateway, 'console-researcher');
    const call = await blockedCall('console-researcher', 'search_docs');
    const view = await openConsole(ctx.browser, gateway.url, gateway.adminToken);
    try {
      await view.goto('/agents');
      await view.page.getByRole('link', { name: 'console-researcher' }).waitFor();
      expect(await view.page.getByRole('heading', { name: 'Register an agent' }).count()).toBe(1);
      await view.screenshot('agents-list');
      expect(await view.seriousViolations()).toEqual([]);
      await view.page.getByRole('link', { name: 'console-researcher' }).click();
      await view.page.getByRole('heading', { level: 1, name: 'Agent console-researcher' }).waitFor();
      const approve = view.page.getByRole('button', { name: 'Approve grant search_docs' });
      await approve.click();
      // Granted: the grant row (with its Remove) replaces the proposal.
      await view.page.getByRole('button', { name: 'Remove grant search_docs' }).waitFor();
      expect(await approve.count()).toBe(0);
      expect((await toolCall(gateway, call)).verdict).toBe('allow');
      await view.screenshot('agents-grant-approved');
      expect(await view.seriousViolations()).toEqual([]);
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  });

  it('kills an agent with a reason as admin: the page shows it killed and its calls are blocked', async () => {
    await registerAgent(gateway, 'console-runaway', ['fetch_url']);
    await grantTool(gateway, 'console-runaway', { tool_key: 'fetch_url' });
    const call = { agent: 'console-runaway', tool: 'fetch_url', arguments: { url: 'https://example.com/' } };
    expect((await toolCall(gateway, call)).verdict).toBe('allow');
    const view = await openConsole(ctx.browser, gateway.url, gateway.adminToken);
    try {
      await view.goto('/agents/console-runaway');
      await view.page.getByRole('button', { name: 'Kill' }).click();
      const form = view.page.getByRole('form', { name: 'Kill' });
      await form.getByLabel('Reason').fill('runaway loop in production');
      await form.getByRole('button', { name: 'Kill' }).click();
      // The reload shows the new state, its reason, and Resume in place of Kill.
      await view.page.getByRole('button', { name: 'Resume' }).waitFor();
      const summary = view.page.getByRole('region', { name: 'console-runaway' });
      expect(await summary.textContent()).toContain('killed');
      expect(await summary.textContent()).toContain('runaway loop in production');
      expect(await view.page.getByRole('button', { name: 'Kill' }).count()).toBe(0);
      expect((await json(gateway.request('/api/agents/console-runaway'))).control).toMatchObject({ state: 'killed', reason: 'runaway loop in production' });
      expect((await toolCall(gateway, call)).verdict).toBe('block');
      await view.screenshot('agents-killed');
      expect(await view.seriousViolations()).toEqual([]);
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  });

  it('shows a viewer the registry and an agent at phone width with no change buttons; preview still works', async () => {
    await registerAgent(gateway, 'console-viewed', ['lookup']);
    await grantTool(gateway, 'console-viewed', { tool_key: 'lookup' });
    await blockedCall('console-viewed', 'send_email');
    const viewer = await mintToken(gateway, 'viewer');
    const view = await openConsole(ctx.browser, gateway.url, viewer, PHONE);
    try {
      await view.goto('/agents');
      await view.page.getByRole('link', { name: 'console-viewed' }).waitFor();
      expect(await view.page.getByRole('heading', { name: 'Register an agent' }).count()).toBe(0);
      await view.screenshot('agents-list-viewer-phone');
      expect(await view.seriousViolations()).toEqual([]);

      await view.page.getByRole('link', { name: 'console-viewed' }).click();
      // Loaded: the grant, the proposal and the protections form are all on the page.
      await view.page.getByRole('cell', { name: 'send_email', exact: true }).waitFor();
      await view.page.getByRole('cell', { name: 'lookup', exact: true }).waitFor();
      await view.page.getByRole('heading', { name: 'Try other protections' }).waitFor();
      await view.page.getByRole('heading', { name: 'Gaps' }).waitFor();
      const buttons = await view.page.getByRole('button').allTextContents();
      expect(buttons.sort()).toEqual(['Preview against last week', 'Sign out']);

      await view.page.getByLabel('Blocked words (comma-separated)').fill('revenue');
      await view.page.getByRole('button', { name: 'Preview against last week' }).click();
      await expect.poll(() => view.page.getByText(/would be blocked/).count()).toBe(1);
      await view.screenshot('agents-agent-viewer-phone');
      expect(await view.seriousViolations()).toEqual([]);
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  });
});
