// A new hand-off is announced once in the chat channel where one is configured (through the alerts
// area's job, against a local fake incoming webhook): who should take it, why and by when, never the
// conversation's text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeChatWebhook } from '../../../test/helpers/fake-chat-webhook.js';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';

describe.each(DIALECTS)('hand-offs announced in the chat channel (%s)', (dialect) => {
  const webhook = new FakeChatWebhook();
  beforeAll(async () => {
    await webhook.start();
  });
  afterAll(async () => {
    await webhook.close();
  });
  const ctx = withGateway({ dialect, overrides: { outbound_allow_private: true, jobs_in_process: false } });

  it('posts one notice per hand-off with its owner role, reasons and deadline', async () => {
    const { gateway } = ctx;
    const hook = webhook.url('/services/T0/B0/handoffs');
    expect((await gateway.request('/api/alerts/chat', { method: 'PUT', json: { url: hook } })).status).toBe(200);
    expect((await gateway.request('/api/escalation/policy', { method: 'PUT', json: { agent: 'desk-bot', mode: 'enforce', owner_role: 'billing-desk', sla_minutes: 15 } })).status).toBe(200);
    const send = (user_text: string) => json(gateway.request('/api/escalation/turns', { method: 'POST', json: { session_id: 'announce-1', agent: 'desk-bot', user_text, agent_text: 'Let me check.' } }));
    const first = await send('My card number is 4111 1111 1111 1111, let me talk to a human please');
    expect(first.handoff).toMatchObject({ owner_role: 'billing-desk' });
    await send('A human, please!');
    for (let tick = 0; tick < 5; tick += 1) await gateway.app.services.worker.tick();
    const posted = webhook.received.filter((delivery) => delivery.path === '/services/T0/B0/handoffs');
    expect(posted).toHaveLength(1);
    const body = posted[0]?.body;
    expect(body.text).toContain('billing-desk');
    expect(JSON.stringify(body.blocks)).toContain('human_request');
    expect(JSON.stringify(body.blocks)).toContain(first.handoff.due_at);
    expect(JSON.stringify(body)).toContain(first.handoff.id);
    // The conversation's text (here a card number) never leaves.
    expect(JSON.stringify(body)).not.toContain('4111');
  });
});
