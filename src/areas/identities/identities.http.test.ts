// Identities over HTTP: credentials with a lifetime, rotation with an overlap, capabilities, the
// capability check, orphaned and stale identities; and signed agent messages through the guard.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { signMessage } from '../agent-messages/signature.js';

async function register(gateway: TestGateway, body: Record<string, unknown>): Promise<any> {
  const response = await gateway.request('/api/agents', { method: 'POST', json: body });
  expect(response.status).toBe(201);
  return response.json();
}

const HOUR_MS = 3_600_000;

describe.each(DIALECTS)('identities over HTTP (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('mints a credential shown once with ttl_days; it speaks only for its own agent', async () => {
    const agent = await register(ctx.gateway, { slug: 'cred-bot', owner_email: 'c@example.com' });
    const minted = await ctx.gateway.request(`/api/identities/${agent.identity_id}/credentials?ttl_days=10`, { method: 'POST', json: {} });
    expect(minted.status).toBe(201);
    const body = (await minted.json()) as any;
    expect(body).toMatchObject({ identity_id: agent.identity_id, agent: 'cred-bot', status: 'active' });
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(10 * 86_400_000);
    const listed = await json(ctx.gateway.request('/api/identities'));
    expect(JSON.stringify(listed)).not.toContain(body.credential);
    const own = await ctx.gateway.request('/v1/guard/input', { method: 'POST', token: body.credential, json: { agent: 'cred-bot', content: 'hi' } });
    expect(own.status).toBe(200);
    const other = await ctx.gateway.request('/v1/guard/input', { method: 'POST', token: body.credential, json: { agent: 'someone-else', content: 'hi' } });
    expect(other.status).toBe(403);
    expect((await ctx.gateway.request('/api/identities/idn_nope/credentials', { method: 'POST', json: {} })).status).toBe(404);
  });

  it('rotates: the old and new credentials both work during the overlap, then only the new one', async () => {
    const agent = await register(ctx.gateway, { slug: 'rotor', owner_email: 'r@example.com' });
    const old = await json(ctx.gateway.request(`/api/identities/${agent.identity_id}/credentials`, { method: 'POST', json: {} }));
    const rotated = await json(ctx.gateway.request(`/api/identities/${agent.identity_id}/rotate?overlap_hours=2`, { method: 'POST', json: {} }));
    expect(rotated.credential).toMatch(/^ppt_ag_/);
    expect(rotated.rotated).toEqual([{ id: old.id, expires_at: expect.any(String) }]);
    const check = (credential: string) =>
      ctx.gateway.request('/v1/guard/input', { method: 'POST', token: credential, json: { agent: 'rotor', content: 'ping' } }).then((r) => r.status);
    expect(await check(old.credential)).toBe(200);
    expect(await check(rotated.credential)).toBe(200);
    ctx.gateway.clock.advance(2 * HOUR_MS + 60_000);
    // Past the overlap (and past the credential cache, which lasts at most 2 s of the moved clock).
    expect(await check(old.credential)).toBe(401);
    expect(await check(rotated.credential)).toBe(200);
    const audit = await ctx.gateway.store.db.selectFrom('audit_entries').select(['action', 'detail']).where('target', '=', agent.identity_id).execute();
    expect(audit.map((row) => row.action)).toContain('identity.rotate');
    expect(JSON.stringify(audit)).not.toContain(rotated.credential);
  });

  it('grants through the identity and answers the capability check without recording', async () => {
    const agent = await register(ctx.gateway, { slug: 'checker', owner_email: 'k@example.com', declared_tools: ['query_db'] });
    const granted = await ctx.gateway.request(`/api/identities/${agent.identity_id}/capabilities`, {
      method: 'POST',
      json: { tool_key: 'query_db', actions: ['read'], max_taint: 'untrusted', constraints: { table: ['orders', 'invoices'] } },
    });
    expect(granted.status).toBe(201);
    await ctx.gateway.app.services.recorder.flush();
    const tracesBefore = await ctx.gateway.store.db.selectFrom('traces').select('id').execute();
    const check = (body: Record<string, unknown>) =>
      json(ctx.gateway.request(`/api/identities/${agent.identity_id}/check`, { method: 'POST', json: { tool_key: 'query_db', ...body } }));
    expect(await check({ action: 'read', arguments: { table: 'orders' } })).toMatchObject({ allowed: true, outcome: 'allow', capability: ['granted'] });
    const write = await check({ action: 'delete', arguments: { table: 'orders' } });
    expect(write).toMatchObject({ allowed: false, outcome: 'deny' });
    expect(write.reasons.join(' ')).toContain('not delete');
    expect(await check({ arguments: { table: 'users' } })).toMatchObject({ outcome: 'deny', capability: ['constraint_violated', 'granted'] });
    expect(await check({ arguments: { table: 'orders' }, argument_taint: { table: 'hostile' } })).toMatchObject({
      outcome: 'deny',
      taint: 'hostile',
    });
    expect(await check({ tool_key: 'drop_everything' })).toMatchObject({ outcome: 'deny', capability: ['denied', 'not_declared'] });
    await ctx.gateway.app.services.recorder.flush();
    expect(await ctx.gateway.store.db.selectFrom('traces').select('id').execute()).toHaveLength(tracesBefore.length);
  });

  it('raises orphaned_identity for an agent without owner and stale_identity for one unused for 30 days', async () => {
    await register(ctx.gateway, { slug: 'ownerless' });
    const fresh = await register(ctx.gateway, { slug: 'sleepy', owner_email: 's@example.com' });
    let identities = await json(ctx.gateway.request('/api/identities'));
    expect(identities.items.find((item: { agent: string }) => item.agent === 'ownerless').status).toBe('orphaned');
    expect(identities.items.find((item: { agent: string }) => item.agent === 'sleepy').status).toBe('active');
    ctx.gateway.clock.advance(31 * 86_400_000);
    identities = await json(ctx.gateway.request('/api/identities'));
    expect(identities.items.find((item: { id: string }) => item.id === fresh.identity_id).status).toBe('stale');
    await ctx.gateway.app.services.identities.sweep();
    await ctx.gateway.app.services.recorder.flush();
    const rows = await ctx.gateway.store.db.selectFrom('findings').select(['type', 'subject']).where('type', 'in', ['orphaned_identity', 'stale_identity']).execute();
    expect(rows).toEqual(expect.arrayContaining([{ type: 'orphaned_identity', subject: 'agent:ownerless' }, { type: 'stale_identity', subject: 'agent:sleepy' }]));
  });
});

describe.each(DIALECTS)('signed agent messages through the guard (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  async function send(fields: { sender: string; recipient: string; content: string; key?: string; nonce?: string; timestamp?: number }) {
    const nonce = fields.nonce ?? randomUUID();
    const timestamp = fields.timestamp ?? Math.floor(ctx.gateway.clock.now().getTime() / 1000);
    const signature = fields.key === undefined ? undefined : signMessage(fields.key, { sender: fields.sender, recipient: fields.recipient, nonce, timestamp, content: fields.content });
    const body = { sender: fields.sender, recipient: fields.recipient, content: fields.content, ...(signature === undefined ? {} : { nonce, timestamp, signature }) };
    return json(ctx.gateway.request('/v1/guard/agent_message', { method: 'POST', json: body }));
  }

  it('accepts a signed message, refuses its replay, and refuses a rotated-out key after the overlap', async () => {
    await register(ctx.gateway, { slug: 'planner', owner_email: 'p@example.com' });
    await register(ctx.gateway, { slug: 'executor', owner_email: 'e@example.com' });
    const first = await json(ctx.gateway.request('/api/agents/planner/signing-key', { method: 'POST', json: {} }));
    const message = { sender: 'planner', recipient: 'executor', content: 'Please compile the weekly report.' };

    const nonce = randomUUID();
    const accepted = await send({ ...message, key: first.signing_key, nonce });
    expect(accepted.verdict).toBe('allow');
    expect(accepted.rules_fired).toEqual([]);
    const replayed = await send({ ...message, key: first.signing_key, nonce });
    expect(replayed.verdict).toBe('block');
    expect(replayed.rules_fired.map((rule: { rule_id: string }) => rule.rule_id)).toEqual(['agent_message.signature']);

    const forged = await send({ ...message, key: 'ppt_sk_not-the-key' });
    expect(forged.verdict).toBe('block');

    const second = await json(ctx.gateway.request('/api/agents/planner/signing-key', { method: 'POST', json: { overlap_hours: 1 } }));
    expect((await send({ ...message, key: first.signing_key })).verdict).toBe('allow');
    expect((await send({ ...message, key: second.signing_key })).verdict).toBe('allow');
    ctx.gateway.clock.advance(HOUR_MS + 60_000);
    expect((await send({ ...message, key: first.signing_key })).verdict).toBe('block');
    expect((await send({ ...message, key: second.signing_key })).verdict).toBe('allow');

    await ctx.gateway.app.services.messages.flush();
    const log = await json(ctx.gateway.request('/api/agent-messages?sender=planner'));
    const statuses = log.items.map((item: { signature_status: string }) => item.signature_status);
    expect(statuses).toEqual(expect.arrayContaining(['valid', 'replayed', 'bad_signature']));
  });

  it("flags a message whose recipient is unknown or whose personal data the sender's card does not declare", async () => {
    await register(ctx.gateway, { slug: 'crm-sync', owner_email: 'c@example.com', data_classes: ['contact'] });
    await register(ctx.gateway, { slug: 'crm-store', owner_email: 'c@example.com' });
    const plain = await send({ sender: 'crm-sync', recipient: 'crm-store', content: 'Sync finished.' });
    expect(plain.verdict).toBe('allow');
    const personal = await send({ sender: 'crm-sync', recipient: 'crm-store', content: 'Customer mail: jane.doe@example.com' });
    expect(personal.rules_fired.map((rule: { rule_id: string }) => rule.rule_id).sort()).toEqual([
      'agent_message.agent_card_mismatch',
      'pii.memory_and_agent_message',
    ]);
    const unknownRecipient = await send({ sender: 'crm-sync', recipient: 'mystery-agent', content: 'Sync finished.' });
    expect(unknownRecipient.rules_fired.map((rule: { rule_id: string }) => rule.rule_id)).toEqual(['agent_message.agent_card_mismatch']);
  });

  it('keeps memory writes as entries', async () => {
    await register(ctx.gateway, { slug: 'rememberer', owner_email: 'm@example.com' });
    const decision = await json(
      ctx.gateway.request('/v1/guard/memory_write', {
        method: 'POST',
        json: { agent: 'rememberer', content: 'User prefers metric units.', subject: 'user:42', verified_by: 'profile-service', ttl_seconds: 3600 },
      }),
    );
    expect(decision.verdict).toBe('allow');
    await ctx.gateway.app.services.memory.flush();
    const entries = await json(ctx.gateway.request('/api/memory?agent=rememberer'));
    expect(entries.items[0]).toMatchObject({ agent: 'rememberer', subject: 'user:42', verified_by: 'profile-service', status: 'active', decision_id: decision.decision_id });
  });
});
