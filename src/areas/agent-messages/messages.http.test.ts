import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/postgres.js';
import type { Principal } from '../../infra/auth/principal.js';
import { AuditLog } from '../audit/log.js';
import { systemClock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { Sealer } from '../../infra/lib/sealed.js';
import { Store } from '../../infra/store/db.js';
import { AgentMessageService } from './service.js';
import { signMessage } from './signature.js';
import { SigningKeyService } from './signing-keys.js';

/** The agent registry routes are another area's; tests insert the row they need. */
async function addAgent(store: Store, slug: string): Promise<void> {
  const now = new Date().toISOString();
  await store.db
    .insertInto('agents')
    .values({
      id: newId('agt'),
      slug,
      name: slug,
      declared_models: '[]',
      declared_tools: '[]',
      data_classes: '[]',
      status: 'approved',
      protections: '{}',
      control: 'active',
      seen_models: '[]',
      seen_tools: '[]',
      created_by: 'test',
      created_at: now,
      updated_at: now,
    })
    .execute();
}

const nowSeconds = (gateway: TestGateway) => Math.floor(gateway.clock.now().getTime() / 1000);

function signed(key: string, fields: { sender: string; recipient?: string; content: string; nonce?: string; timestamp: number }) {
  const nonce = fields.nonce ?? randomUUID();
  return { ...fields, nonce, signature: signMessage(key, { ...fields, nonce }) };
}

describe.each(DIALECTS)('agent signing keys and signed messages (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  const verify = (input: Parameters<AgentMessageService['verify']>[0]) => ctx.gateway.app.services.messages.verify(input);

  async function mint(slug: string, body: Record<string, unknown> = {}, token?: string) {
    const response = await ctx.gateway.request(`/api/agents/${slug}/signing-key`, { method: 'POST', json: body, token });
    return { status: response.status, body: (await json(response)) as Record<string, any> };
  }

  it('mints a key shown once: stored sealed, absent from audit entries and status answers', async () => {
    await addAgent(ctx.gateway.store, 'planner');
    const created = await mint('planner');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ agent: 'planner', id: expect.stringMatching(/^sk_/) });
    expect(created.body.signing_key).toMatch(/^ppt_sk_[A-Za-z0-9_-]{43}$/);
    expect(created.body.signing_key.startsWith(created.body.key_hint.replace('…', ''))).toBe(true);
    expect(created.body.rotated_key).toBeUndefined();
    const raw = created.body.signing_key as string;

    const rows = await ctx.gateway.store.db.selectFrom('signing_keys').selectAll().where('agent_slug', '=', 'planner').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.key_sealed).toMatch(/^v1\./);
    expect(JSON.stringify(rows)).not.toContain(raw);
    expect(ctx.gateway.app.services.sealer.unseal(rows[0]?.key_sealed as string)).toBe(raw);

    const audit = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('target', '=', created.body.id).execute();
    expect(audit.map((entry) => entry.action)).toEqual(['signing_key.create']);
    expect(JSON.stringify(audit)).not.toContain(raw);

    const status = await ctx.gateway.request('/api/agents/planner/signing-key');
    expect(status.status).toBe(200);
    const text = await status.text();
    expect(text).not.toContain(raw);
    expect(text).not.toContain(rows[0]?.key_sealed as string);
    expect(JSON.parse(text)).toEqual({
      agent: 'planner',
      configured: true,
      current: { id: created.body.id, key_hint: created.body.key_hint, created_at: created.body.created_at },
      previous: [],
    });
  });

  it('answers 404 for an agent that is not registered, and changes nothing', async () => {
    const auditBefore = await ctx.gateway.store.db.selectFrom('audit_entries').select('seq').execute();
    const created = await mint('nobody-here');
    expect(created.status).toBe(404);
    expect(created.body.type).toBe('urn:parapet:problem:unknown-id');
    expect((await ctx.gateway.request('/api/agents/nobody-here/signing-key')).status).toBe(404);
    expect(await ctx.gateway.store.db.selectFrom('audit_entries').select('seq').execute()).toHaveLength(auditBefore.length);
  });

  it('reports an agent without a key as not configured', async () => {
    await addAgent(ctx.gateway.store, 'keyless');
    expect(await json(ctx.gateway.request('/api/agents/keyless/signing-key'))).toEqual({
      agent: 'keyless',
      configured: false,
      current: null,
      previous: [],
    });
    expect(await verify(signed('ppt_sk_whatever', { sender: 'keyless', content: 'hi', timestamp: nowSeconds(ctx.gateway) }))).toMatchObject({
      status: 'no_key',
    });
  });

  it('lets a viewer read the status but not mint (403)', async () => {
    await addAgent(ctx.gateway.store, 'viewed');
    const viewer = await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { role: 'viewer' } }));
    const refused = await mint('viewed', {}, viewer.token);
    expect(refused.status).toBe(403);
    expect(refused.body.type).toBe('urn:parapet:problem:forbidden');
    expect((await ctx.gateway.request('/api/agents/viewed/signing-key', { token: viewer.token })).status).toBe(200);
    expect((await ctx.gateway.request('/api/agent-messages', { token: viewer.token })).status).toBe(200);
  });

  it('refuses an overlap outside 0..720 hours and unknown fields (400)', async () => {
    await addAgent(ctx.gateway.store, 'strict');
    expect((await mint('strict', { overlap_hours: 721 })).status).toBe(400);
    expect((await mint('strict', { overlap_hours: -1 })).status).toBe(400);
    expect((await mint('strict', { overlap: 1 })).status).toBe(400);
  });

  it('rotates: the old key verifies during the overlap and is refused after it', async () => {
    await addAgent(ctx.gateway.store, 'rotor');
    const first = (await mint('rotor')).body;
    const second = await mint('rotor', { overlap_hours: 1 });
    expect(second.status).toBe(201);
    const expectedEnd = ctx.gateway.clock.now().getTime() + 3_600_000;
    expect(second.body.rotated_key.id).toBe(first.id);
    expect(Math.abs(Date.parse(second.body.rotated_key.valid_until) - expectedEnd)).toBeLessThan(5000);

    const audit = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('target', '=', second.body.id).execute();
    expect(audit.map((entry) => entry.action)).toEqual(['signing_key.rotate']);
    expect(JSON.stringify(audit)).not.toContain(second.body.signing_key);
    expect(JSON.stringify(audit)).not.toContain(first.signing_key);

    const status = await json(ctx.gateway.request('/api/agents/rotor/signing-key'));
    expect(status.current.id).toBe(second.body.id);
    expect(status.previous).toEqual([{ id: first.id, key_hint: first.key_hint, valid_until: second.body.rotated_key.valid_until }]);

    const during = await verify(signed(first.signing_key, { sender: 'rotor', content: 'old key', timestamp: nowSeconds(ctx.gateway) }));
    expect(during).toMatchObject({ status: 'valid', keyId: first.id });
    const current = await verify(signed(second.body.signing_key, { sender: 'rotor', content: 'new key', timestamp: nowSeconds(ctx.gateway) }));
    expect(current).toMatchObject({ status: 'valid', keyId: second.body.id });

    ctx.gateway.clock.advance(3_600_000 + 1000);
    try {
      const after = await verify(signed(first.signing_key, { sender: 'rotor', content: 'old key', timestamp: nowSeconds(ctx.gateway) }));
      expect(after.status).toBe('bad_signature');
      const still = await verify(signed(second.body.signing_key, { sender: 'rotor', content: 'new key', timestamp: nowSeconds(ctx.gateway) }));
      expect(still).toMatchObject({ status: 'valid', keyId: second.body.id });
      expect((await json(ctx.gateway.request('/api/agents/rotor/signing-key'))).previous).toEqual([]);
    } finally {
      ctx.gateway.clock.advance(-(3_600_000 + 1000));
    }
  });

  it('with overlap_hours 0, the replaced key stops verifying at once', async () => {
    await addAgent(ctx.gateway.store, 'abrupt');
    const first = (await mint('abrupt')).body;
    await mint('abrupt', { overlap_hours: 0 });
    const result = await verify(signed(first.signing_key, { sender: 'abrupt', content: 'x', timestamp: nowSeconds(ctx.gateway) }));
    expect(result.status).toBe('bad_signature');
  });

  describe('verification', () => {
    let key: string;
    beforeAll(async () => {
      await addAgent(ctx.gateway.store, 'sender-a');
      key = (await mint('sender-a')).body.signing_key;
    });

    it('reports unsigned and incomplete messages', async () => {
      expect(await verify({ sender: 'sender-a', content: 'hello' })).toMatchObject({ status: 'unsigned' });
      const partial = await verify({ sender: 'sender-a', content: 'hello', nonce: 'n-1', signature: 'abc' });
      expect(partial.status).toBe('incomplete');
      expect(partial.detail).toContain('timestamp');
      expect((await verify({ sender: 'sender-a', content: 'x', nonce: '', timestamp: 1, signature: 'a' })).status).toBe('incomplete');
    });

    it('accepts a hex or base64url signature once, and refuses the replay', async () => {
      const message = signed(key, { sender: 'sender-a', recipient: 'executor', content: 'do the thing', timestamp: nowSeconds(ctx.gateway) });
      expect((await verify(message)).status).toBe('valid');
      const replay = await verify(message);
      expect(replay.status).toBe('replayed');
      expect(replay.detail).toContain('nonce');

      const other = signed(key, { sender: 'sender-a', content: 'base64url', timestamp: nowSeconds(ctx.gateway) });
      const base64url = Buffer.from(other.signature, 'hex').toString('base64url');
      expect((await verify({ ...other, signature: base64url })).status).toBe('valid');
    });

    it('refuses a wrong signature, altered content or recipient, and a garbled signature', async () => {
      const message = signed(key, { sender: 'sender-a', recipient: 'executor', content: 'pay 10', timestamp: nowSeconds(ctx.gateway) });
      const wrongKey = signed(`${key}x`, { sender: 'sender-a', content: 'pay 10', timestamp: nowSeconds(ctx.gateway) });
      expect((await verify(wrongKey)).status).toBe('bad_signature');
      expect((await verify({ ...message, content: 'pay 1000' })).status).toBe('bad_signature');
      expect((await verify({ ...message, recipient: 'someone-else' })).status).toBe('bad_signature');
      expect((await verify({ ...message, timestamp: message.timestamp + 1 })).status).toBe('bad_signature');
      const garbled = await verify({ ...message, signature: 'not a signature' });
      expect(garbled.status).toBe('bad_signature');
      expect(garbled.detail).toContain('hex');
      // None of those used up the nonce: the genuine message still passes once.
      expect((await verify(message)).status).toBe('valid');
    });

    it('refuses a timestamp outside message_max_skew_seconds either way', async () => {
      const skew = ctx.gateway.config.message_max_skew_seconds;
      expect(skew).toBe(300);
      const old = signed(key, { sender: 'sender-a', content: 'late', timestamp: nowSeconds(ctx.gateway) - skew - 5 });
      const stale = await verify(old);
      expect(stale.status).toBe('stale');
      expect(stale.keyId).toBeDefined();
      const future = signed(key, { sender: 'sender-a', content: 'early', timestamp: nowSeconds(ctx.gateway) + skew + 5 });
      expect((await verify(future)).status).toBe('stale');
      const edge = signed(key, { sender: 'sender-a', content: 'edge', timestamp: nowSeconds(ctx.gateway) - skew + 5 });
      expect((await verify(edge)).status).toBe('valid');
      // A stale message records no nonce: the same nonce with a fresh timestamp passes.
      const retried = signed(key, { sender: 'sender-a', content: 'late', nonce: old.nonce, timestamp: nowSeconds(ctx.gateway) });
      expect((await verify(retried)).status).toBe('valid');
    });

    it('forgets nonces older than twice the skew window, which can no longer pass the timestamp check', async () => {
      const old = signed(key, { sender: 'sender-a', content: 'soon forgotten', timestamp: nowSeconds(ctx.gateway) });
      expect((await verify(old)).status).toBe('valid');
      const stored = () =>
        ctx.gateway.store.db.selectFrom('message_nonces').select('nonce').where('sender', '=', 'sender-a').where('nonce', '=', old.nonce).execute();
      expect(await stored()).toHaveLength(1);
      const jump = (2 * 300 + 61) * 1000;
      ctx.gateway.clock.advance(jump);
      try {
        const fresh = signed(key, { sender: 'sender-a', content: 'later', timestamp: nowSeconds(ctx.gateway) });
        expect((await verify(fresh)).status).toBe('valid');
        await vi.waitFor(async () => expect(await stored()).toHaveLength(0));
        // Forgetting is safe: the old message is now refused for its timestamp instead.
        expect((await verify(old)).status).toBe('stale');
      } finally {
        ctx.gateway.clock.advance(-jump);
      }
    });

    it('scopes nonces per sender', async () => {
      await addAgent(ctx.gateway.store, 'sender-b');
      const keyB = (await mint('sender-b')).body.signing_key;
      const nonce = randomUUID();
      expect((await verify(signed(key, { sender: 'sender-a', content: 'x', nonce, timestamp: nowSeconds(ctx.gateway) }))).status).toBe('valid');
      expect((await verify(signed(keyB, { sender: 'sender-b', content: 'x', nonce, timestamp: nowSeconds(ctx.gateway) }))).status).toBe('valid');
    });
  });

  it('lists recorded messages newest first, by sender, with cursor paging', async () => {
    const messages = ctx.gateway.app.services.messages;
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      ids.push(
        messages.record({
          sender: 'logger-bot',
          recipient: index === 0 ? null : 'reader-bot',
          nonce: `nonce-${index}`,
          timestamp: 1_700_000_000 + index,
          signatureStatus: index === 2 ? 'bad_signature' : 'valid',
          verdict: 'allow',
          effectiveVerdict: index === 2 ? 'block' : 'allow',
          decisionId: `dec_${index}`,
          contentSha256: 'a'.repeat(64),
          sessionId: index === 1 ? 'session-1' : null,
        }),
      );
    }
    messages.record({ sender: 'other-bot', signatureStatus: 'unsigned', verdict: 'allow', effectiveVerdict: 'allow', decisionId: 'dec_x', contentSha256: 'b'.repeat(64) });
    await messages.flush();

    const first = await json(ctx.gateway.request('/api/agent-messages?sender=logger-bot&limit=2'));
    expect(first.items.map((item: { id: string }) => item.id)).toEqual([ids[2], ids[1]]);
    expect(first.items[0]).toMatchObject({
      sender: 'logger-bot',
      recipient: 'reader-bot',
      nonce: 'nonce-2',
      signature_status: 'bad_signature',
      verdict: 'allow',
      effective_verdict: 'block',
      decision_id: 'dec_2',
      content_sha256: 'a'.repeat(64),
      session_id: null,
    });
    // double precision on both engines: epoch seconds come back exactly.
    expect(first.items[0].timestamp).toBe(1_700_000_002);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await json(ctx.gateway.request(`/api/agent-messages?sender=logger-bot&limit=2&cursor=${first.next_cursor}`));
    expect(second.items.map((item: { id: string }) => item.id)).toEqual([ids[0]]);
    expect(second.items[0].recipient).toBeNull();
    expect(second.next_cursor).toBeNull();

    const all = await json(ctx.gateway.request('/api/agent-messages'));
    expect(all.items.map((item: { sender: string }) => item.sender)).toContain('other-bot');
    expect((await ctx.gateway.request('/api/agent-messages?limit=501')).status).toBe(400);
    expect((await ctx.gateway.request('/api/agent-messages?cursor=nonsense')).status).toBe(400);
  });
});

describe('replay detection across gateway processes on one PostgreSQL database', () => {
  let database: TestDatabase;
  const stores: Store[] = [];
  const secretKey = 'shared-secret-key-for-both-gateway-processes';
  const operator: Principal = {
    kind: 'operator',
    role: 'operator',
    tokenId: 'tok_test',
    tokenHash: 'x',
    name: 'test',
    owner: 'test',
    expiresAt: null,
  };

  function gatewayOn(store: Store, key: string) {
    const keys = new SigningKeyService(store, new AuditLog(store, systemClock), new Sealer({ secretKey: key, dataDir: '/nonexistent' }), systemClock);
    return { keys, messages: new AgentMessageService(store, keys, systemClock, { maxSkewSeconds: 300 }) };
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    for (let index = 0; index < 3; index += 1) {
      stores.push(Store.open({ databaseUrl: database.url, dataDir: '/nonexistent', poolSize: 4 }));
    }
    await stores[0]?.migrate();
    await addAgent(stores[0] as Store, 'shared-bot');
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await database?.drop();
  });

  it('accepts each nonce exactly once when two processes see the same message at the same time', async () => {
    const one = gatewayOn(stores[0] as Store, secretKey);
    const two = gatewayOn(stores[1] as Store, secretKey);
    const key = (await one.keys.mint(operator, 'shared-bot', {})).signing_key;
    const messages = Array.from({ length: 25 }, (_, index) =>
      signed(key, { sender: 'shared-bot', content: `message ${index}`, timestamp: Math.floor(Date.now() / 1000) }),
    );
    const results = await Promise.all(messages.flatMap((message) => [one.messages.verify(message), two.messages.verify(message)]));
    for (let index = 0; index < messages.length; index += 1) {
      const pair = [results[2 * index]?.status, results[2 * index + 1]?.status].sort();
      expect(pair).toEqual(['replayed', 'valid']);
    }
    const nonces = await (stores[0] as Store).db.selectFrom('message_nonces').select('nonce').where('sender', '=', 'shared-bot').execute();
    expect(nonces).toHaveLength(messages.length);
  });

  it('cannot verify with keys sealed under another secret_key, and says why', async () => {
    const one = gatewayOn(stores[0] as Store, secretKey);
    const errors: unknown[] = [];
    const otherKeys = new SigningKeyService(
      stores[2] as Store,
      new AuditLog(stores[2] as Store, systemClock),
      new Sealer({ secretKey: 'a-different-secret-key-on-the-third-process', dataDir: '/nonexistent' }),
      systemClock,
    );
    const other = new AgentMessageService(stores[2] as Store, otherKeys, systemClock, { maxSkewSeconds: 300, onError: (error) => errors.push(error) });
    const key = (await one.keys.mint(operator, 'shared-bot', {})).signing_key;
    const result = await other.verify(signed(key, { sender: 'shared-bot', content: 'x', timestamp: Math.floor(Date.now() / 1000) }));
    expect(result.status).toBe('no_key');
    expect(result.detail).toContain('secret_key');
    expect(errors.length).toBeGreaterThan(0);
  });
});
