// The approvals inbox in Chromium: a held tool call is approved with a rationale and the same call
// with its approval_id then passes; a viewer (at phone width) sees the inbox but no Approve or Deny;
// an operator denies another held call with a rationale, and sees the refusal for one decided meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startGateway, type TestGateway } from '../helpers/gateway.js';
import { PHONE, expectNoConsoleErrors, openConsole, withBrowser, type ConsolePage } from '../helpers/browser.js';
import { grantTool, mintToken, registerAgent, toolCall, type ToolCall } from './b-agents.js';

describe('console: approvals', () => {
  const ctx = withBrowser();
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway();
    await registerAgent(gateway, 'console-payer', ['refund']);
    await grantTool(gateway, 'console-payer', { tool_key: 'refund', requires_approval: true });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  /** A refund the grant holds for a person: its approval id. */
  async function heldCall(order: string): Promise<{ call: ToolCall; approvalId: string }> {
    const call = { agent: 'console-payer', tool: 'refund', arguments: { order, amount: 120 } };
    const held = await toolCall(gateway, call);
    expect(held.verdict).toBe('escalate');
    return { call, approvalId: held.approval_id as string };
  }

  /** Approves or denies the pending row of `approvalId` with `rationale`, and waits for it to leave the inbox. */
  async function decide(view: ConsolePage, approvalId: string, action: 'Approve' | 'Deny', rationale: string): Promise<void> {
    const inbox = view.page.getByRole('region', { name: /Waiting for a person/ });
    const row = inbox.getByRole('row').filter({ hasText: approvalId });
    await row.getByRole('button', { name: action }).click();
    const form = row.getByRole('form', { name: action });
    await form.getByLabel('Rationale').fill(rationale);
    await form.getByRole('button', { name: action }).click();
    await expect.poll(() => inbox.getByRole('row').filter({ hasText: approvalId }).count()).toBe(0);
  }

  it('approves a held call with a rationale; the same call with its approval_id then passes', async () => {
    const { call, approvalId } = await heldCall('A-1001');
    const view = await openConsole(ctx.browser, gateway.url, gateway.adminToken);
    try {
      await view.goto('/approvals');
      await decide(view, approvalId, 'Approve', 'customer verified by phone');
      const decided = view.page.getByRole('region', { name: 'Decided', exact: true }).getByRole('row').filter({ hasText: approvalId });
      await decided.waitFor();
      expect(await decided.textContent()).toContain('approved');
      expect(await decided.textContent()).toContain('customer verified by phone');
      expect((await toolCall(gateway, { ...call, approval_id: approvalId })).verdict).toBe('allow');
      expect((await json(gateway.request(`/api/approvals/${approvalId}`))).status).toBe('used');
      await view.screenshot('approvals-approved');
      expect(await view.seriousViolations()).toEqual([]);
      expectNoConsoleErrors(view);
    } finally {
      await view.close();
    }
  });

  it('shows a viewer held calls at phone width without Approve or Deny; an operator denies one and sees the refusal of one decided meanwhile', async () => {
    const first = await heldCall('B-2002');
    const second = await heldCall('C-3003');
    const viewer = await openConsole(ctx.browser, gateway.url, await mintToken(gateway, 'viewer'), PHONE);
    try {
      await viewer.goto('/approvals');
      await viewer.page.getByRole('row').filter({ hasText: first.approvalId }).waitFor();
      expect((await viewer.page.getByRole('button').allTextContents()).sort()).toEqual(['Sign out']);
      await viewer.screenshot('approvals-viewer-phone');
      expect(await viewer.seriousViolations()).toEqual([]);
      expectNoConsoleErrors(viewer);
    } finally {
      await viewer.close();
    }

    const operator = await openConsole(ctx.browser, gateway.url, await mintToken(gateway, 'operator'));
    try {
      await operator.goto('/approvals');
      await decide(operator, first.approvalId, 'Deny', 'duplicate refund');
      expect((await json(gateway.request(`/api/approvals/${first.approvalId}`))).status).toBe('denied');

      // Someone else decides the other one while this page still offers it: the API's refusal is shown in its row.
      expect((await gateway.request(`/api/approvals/${second.approvalId}/approve`, { method: 'POST', json: { rationale: 'by phone' } })).status).toBe(200);
      const row = operator.page.getByRole('region', { name: /Waiting for a person/ }).getByRole('row').filter({ hasText: second.approvalId });
      await row.getByRole('button', { name: 'Deny' }).click();
      await row.getByLabel('Rationale').fill('too late');
      await row.getByRole('form', { name: 'Deny' }).getByRole('button', { name: 'Deny' }).click();
      await expect.poll(() => row.getByRole('alert').textContent()).toContain('already approved');
      await operator.screenshot('approvals-refused');
      expect((await json(gateway.request(`/api/approvals/${second.approvalId}`))).status).toBe('approved');
      // The 409 of the refusal is the only error the browser logged.
      expect(operator.errors).toEqual([expect.stringContaining('409')]);
    } finally {
      await operator.close();
    }
  });
});
