import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';
import { MemoryService, type MemoryWrite } from './service.js';

const DAY_MS = 86_400_000;

describe.each(DIALECTS)('memory entries (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  /** A memory write as the guard would record it; `overrides` say what a case is about. */
  function write(agent: string, overrides: Partial<MemoryWrite> = {}): string {
    return ctx.gateway.app.services.memory.recordWrite({
      agent,
      subject: 'user:42',
      content: 'prefers e-mail',
      contentSha256: 'c'.repeat(64),
      provenance: { source: 'chat', turn: '7' },
      verdict: 'allow',
      decisionId: 'dec_test',
      ...overrides,
    });
  }

  async function list(query: string, token?: string) {
    const response = await ctx.gateway.request(`/api/memory?${query}`, { token });
    return { status: response.status, body: (await json(response)) as Record<string, any> };
  }

  const post = (path: string, body: unknown = {}, token?: string) => ctx.gateway.request(path, { method: 'POST', json: body, token });
  const byId = (items: Array<{ id: string }>) => Object.fromEntries(items.map((item) => [item.id, item])) as Record<string, any>;

  it('keeps every write past the queue bound: callers wait for room instead of entries being dropped', async () => {
    const { store, app, clock } = ctx.gateway;
    const service = new MemoryService(store, app.services.audit, clock, { unverifiedTtlSeconds: 3600, maxQueue: 3 });
    // Twelve concurrent requests each record before any of them waits.
    const ids = Array.from({ length: 12 }, (_, index) =>
      service.recordWrite({ agent: 'bounded-bot', content: `entry ${index}`, contentSha256: 'd'.repeat(64), verdict: 'allow', decisionId: 'dec_test' }),
    );
    const room = service.room();
    expect(room).toBeDefined();
    await room;
    await service.close();
    const stored = await store.db.selectFrom('memory_entries').select('id').where('agent', '=', 'bounded-bot').execute();
    expect(stored.map((row) => row.id).sort()).toEqual([...ids].sort());
  });

  it('records writes with their provenance and an expiry that caps unverified entries', async () => {
    const createdMs = ctx.gateway.clock.now().getTime();
    const unverified = write('recorder-bot');
    const shortTtl = write('recorder-bot', { ttlSeconds: 60, taintSource: 'tool_result', sessionId: 's-1' });
    const longTtl = write('recorder-bot', { ttlSeconds: 30 * 86_400 });
    const verifiedTtl = write('recorder-bot', { verifiedBy: 'alice', ttlSeconds: 30 * 86_400 });
    const verifiedForever = write('recorder-bot', { verifiedBy: 'alice', subject: null, content: null });
    const blocked = write('recorder-bot', { verdict: 'block' });
    await ctx.gateway.app.services.memory.flush();

    const { status, body } = await list('agent=recorder-bot');
    expect(status).toBe(200);
    expect(body.items.map((item: { id: string }) => item.id)).toEqual([blocked, verifiedForever, verifiedTtl, longTtl, shortTtl, unverified]);
    const entries = byId(body.items);
    const expiresIn = (id: string) => (Date.parse(entries[id].expires_at) - createdMs) / 1000;
    expect(expiresIn(unverified)).toBeCloseTo(604_800, -1);
    expect(expiresIn(shortTtl)).toBeCloseTo(60, -1);
    expect(expiresIn(longTtl)).toBeCloseTo(604_800, -1);
    expect(expiresIn(verifiedTtl)).toBeCloseTo(30 * 86_400, -1);
    expect(entries[verifiedForever].expires_at).toBeNull();
    expect(entries[shortTtl]).toMatchObject({
      agent: 'recorder-bot',
      subject: 'user:42',
      content: 'prefers e-mail',
      content_sha256: 'c'.repeat(64),
      provenance: { source: 'chat', turn: '7' },
      taint_source: 'tool_result',
      verified_by: null,
      verified_at: null,
      ttl_seconds: 60,
      verdict: 'allow',
      decision_id: 'dec_test',
      session_id: 's-1',
      revoked_at: null,
      revoked_by: null,
      status: 'active',
    });
    expect(entries[verifiedTtl]).toMatchObject({ verified_by: 'alice', verified_at: expect.any(String), status: 'active' });
    expect(entries[verifiedForever]).toMatchObject({ subject: null, content: null, status: 'active' });
    expect(entries[blocked].status).toBe('blocked');

    const active = await list('agent=recorder-bot&active_only=true');
    expect(active.body.items.map((item: { id: string }) => item.id)).toEqual([verifiedForever, verifiedTtl, longTtl, shortTtl, unverified]);

    ctx.gateway.clock.advance(61_000);
    try {
      const later = byId((await list('agent=recorder-bot')).body.items);
      expect(later[shortTtl].status).toBe('expired');
      expect(later[unverified].status).toBe('active');
      const stillActive = await list('agent=recorder-bot&active_only=true');
      expect(stillActive.body.items.map((item: { id: string }) => item.id)).not.toContain(shortTtl);
    } finally {
      ctx.gateway.clock.advance(-61_000);
    }
  });

  it('revokes at once, refuses a second revocation (409), and audits the change', async () => {
    const id = write('revoke-bot');
    await ctx.gateway.app.services.memory.flush();
    const revoked = await post(`/api/memory/${id}/revoke`, { reason: 'poisoned by a retrieved page' });
    expect(revoked.status).toBe(200);
    const body = await json(revoked);
    expect(body).toMatchObject({ id, status: 'revoked', revoked_at: expect.any(String), revoked_by: expect.stringContaining('admin') });
    expect((await list('agent=revoke-bot&active_only=true')).body.items).toEqual([]);
    expect((await list('agent=revoke-bot')).body.items[0].status).toBe('revoked');

    const again = await post(`/api/memory/${id}/revoke`);
    expect(again.status).toBe(409);
    expect((await json(again)).type).toBe('urn:parapet:problem:conflict');
    const verifyRevoked = await post(`/api/memory/${id}/verify`);
    expect(verifyRevoked.status).toBe(409);

    const audit = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('target', '=', id).execute();
    expect(audit.map((entry) => entry.action)).toEqual(['memory.revoke']);
    expect(JSON.parse(audit[0]?.detail as string)).toMatchObject({ agent: 'revoke-bot', reason: 'poisoned by a retrieved page' });
  });

  it('verify stops decay: past the unverified ttl a verified entry stays active, an unverified one expires', async () => {
    const kept = write('decay-bot');
    const decays = write('decay-bot');
    const ownTtl = write('decay-bot', { ttlSeconds: 10 * 86_400 });
    await ctx.gateway.app.services.memory.flush();

    const verified = await post(`/api/memory/${kept}/verify`);
    expect(verified.status).toBe(200);
    const body = await json(verified);
    expect(body).toMatchObject({ id: kept, status: 'active', expires_at: null, verified_at: expect.any(String) });
    expect(body.verified_by).toContain('admin');
    const named = await json(post(`/api/memory/${ownTtl}/verify`, { verified_by: 'alice' }));
    expect(named.verified_by).toBe('alice');
    expect(Date.parse(named.expires_at) - Date.parse(named.created_at)).toBe(10 * DAY_MS);

    ctx.gateway.clock.advance(7 * DAY_MS + 1000);
    try {
      const entries = byId((await list('agent=decay-bot')).body.items);
      expect(entries[kept].status).toBe('active');
      expect(entries[decays].status).toBe('expired');
      expect(entries[ownTtl].status).toBe('active');
      const active = (await list('agent=decay-bot&active_only=true')).body.items.map((item: { id: string }) => item.id);
      expect(active).toEqual([ownTtl, kept]);
      ctx.gateway.clock.advance(3 * DAY_MS);
      expect(byId((await list('agent=decay-bot')).body.items)[ownTtl].status).toBe('expired');
    } finally {
      ctx.gateway.clock.advance(-(10 * DAY_MS + 1000));
    }

    const audit = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('target', '=', kept).execute();
    expect(audit.map((entry) => entry.action)).toEqual(['memory.verify']);
  });

  it('answers 404 for unknown entries and 403 to a viewer changing one', async () => {
    expect((await post('/api/memory/mem_00000000000000000000000000/revoke')).status).toBe(404);
    const unknown = await post('/api/memory/mem_00000000000000000000000000/verify');
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).type).toBe('urn:parapet:problem:unknown-id');

    const id = write('guarded-bot');
    await ctx.gateway.app.services.memory.flush();
    const viewer = await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { role: 'viewer' } }));
    expect((await post(`/api/memory/${id}/revoke`, {}, viewer.token)).status).toBe(403);
    expect((await post(`/api/memory/${id}/verify`, {}, viewer.token)).status).toBe(403);
    expect((await list('agent=guarded-bot', viewer.token)).body.items[0]).toMatchObject({ id, status: 'active', verified_by: null });
  });

  it('refuses bad bodies and queries (400)', async () => {
    const id = write('strict-bot');
    await ctx.gateway.app.services.memory.flush();
    expect((await post(`/api/memory/${id}/revoke`, { reason: 5 })).status).toBe(400);
    expect((await post(`/api/memory/${id}/verify`, { verified_by: '' })).status).toBe(400);
    expect((await post(`/api/memory/${id}/verify`, { verifier: 'x' })).status).toBe(400);
    expect((await list('active_only=maybe')).status).toBe(400);
    expect((await list('limit=0')).status).toBe(400);
    expect((await list('cursor=nonsense')).status).toBe(400);
  });

  it('pages newest first with a cursor', async () => {
    const ids = [write('paging-bot'), write('paging-bot'), write('paging-bot')];
    await ctx.gateway.app.services.memory.flush();
    const first = await list('agent=paging-bot&limit=2');
    expect(first.body.items.map((item: { id: string }) => item.id)).toEqual([ids[2], ids[1]]);
    const second = await list(`agent=paging-bot&limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.items.map((item: { id: string }) => item.id)).toEqual([ids[0]]);
    expect(second.body.next_cursor).toBeNull();
  });
});
