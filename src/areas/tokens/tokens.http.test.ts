import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';

describe.each(DIALECTS)('tokens over HTTP (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  async function mint(body: Record<string, unknown>, token?: string) {
    const response = await ctx.gateway.request('/api/tokens', { method: 'POST', json: body, token });
    return { status: response.status, body: (await json(response)) as Record<string, any> };
  }

  it('mints a token shown once, stored only as a digest', async () => {
    const created = await mint({ name: 'ops laptop', role: 'operator', ttl_days: 7 });
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^ppt_op_[\w-]{43}$/);
    expect(created.body).toMatchObject({ name: 'ops laptop', role: 'operator', kind: 'operator', status: 'active' });
    expect(Date.parse(created.body.expires_at) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);

    const row = await ctx.gateway.store.db.selectFrom('api_tokens').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(created.body.token);

    const listed = await json(ctx.gateway.request('/api/tokens'));
    expect(JSON.stringify(listed)).not.toContain(created.body.token);
    expect(listed.items.map((item: { id: string }) => item.id)).toContain(created.body.id);

    const me = await json(ctx.gateway.request('/api/me', { token: created.body.token }));
    expect(me).toMatchObject({ kind: 'operator', role: 'operator', token_id: created.body.id });
  });

  it('defaults an API-minted token to the caller role and a 90-day expiry', async () => {
    const created = await mint({});
    expect(created.status).toBe(201);
    expect(created.body.role).toBe('admin');
    const days = (Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(90, 5);
  });

  it('lets a viewer read but refuses it a change (403)', async () => {
    const viewer = await mint({ name: 'auditor', role: 'viewer' });
    const me = await ctx.gateway.request('/api/me', { token: viewer.body.token });
    expect(me.status).toBe(200);
    const change = await ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'x' }, token: viewer.body.token });
    expect(change.status).toBe(403);
    expect(change.headers.get('content-type')).toContain('application/problem+json');
    expect((await json(change)).type).toBe('urn:parapet:problem:forbidden');
  });

  it('refuses a token stronger than the caller, and traffic tokens from non-admins', async () => {
    const operator = await mint({ name: 'op', role: 'operator' });
    expect((await mint({ role: 'admin' }, operator.body.token)).status).toBe(403);
    expect((await mint({ role: 'traffic' }, operator.body.token)).status).toBe(403);
    expect((await mint({ role: 'viewer' }, operator.body.token)).status).toBe(201);
    const traffic = await mint({ name: 'app', role: 'traffic' });
    expect(traffic.status).toBe(201);
    expect(traffic.body).toMatchObject({ kind: 'traffic', role: null });
    expect(traffic.body.token).toMatch(/^ppt_tr_/);
  });

  it('shows non-admins only their own tokens and hides others from revocation', async () => {
    // Tokens minted through the API belong to the caller's owner; a new owner comes from the CLI path.
    const alice = {
      body: (await ctx.gateway.app.services.tokens.mint(
        { name: 'alice', role: 'operator', owner: 'alice', createdBy: 'cli', ttlDays: null },
        'cli',
      )) as Record<string, any>,
    };
    const aliceSecond = await mint({ name: 'alice 2', role: 'viewer' }, alice.body.token);
    const listed = await json(ctx.gateway.request('/api/tokens', { token: alice.body.token }));
    const owners = new Set(listed.items.map((item: { owner: string }) => item.owner));
    expect(owners).toEqual(new Set([alice.body.owner]));
    expect(listed.items.map((item: { id: string }) => item.id)).toContain(aliceSecond.body.id);

    const adminTokens = await json(ctx.gateway.request('/api/tokens?limit=500'));
    const someoneElse = adminTokens.items.find((item: { owner: string }) => item.owner !== alice.body.owner);
    const refused = await ctx.gateway.request(`/api/tokens/${someoneElse.id}/revoke`, { method: 'POST', token: alice.body.token });
    expect(refused.status).toBe(404);
  });

  it('revokes at once, refuses a second revocation with 409, and audits both changes', async () => {
    const victim = await mint({ name: 'to revoke', role: 'viewer' });
    expect((await ctx.gateway.request('/api/me', { token: victim.body.token })).status).toBe(200);
    const revoked = await ctx.gateway.request(`/api/tokens/${victim.body.id}/revoke`, { method: 'POST' });
    expect(revoked.status).toBe(200);
    expect((await json(revoked)).status).toBe('revoked');
    expect((await ctx.gateway.request('/api/me', { token: victim.body.token })).status).toBe(401);
    expect((await ctx.gateway.request(`/api/tokens/${victim.body.id}/revoke`, { method: 'POST' })).status).toBe(409);

    const audit = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('target', '=', victim.body.id).orderBy('seq').execute();
    expect(audit.map((entry) => entry.action)).toEqual(['token.create', 'token.revoke']);
  });

  it('logs out by revoking the presented token', async () => {
    const session = await mint({ name: 'session', role: 'viewer' });
    const out = await ctx.gateway.request('/api/auth/logout', { method: 'POST', token: session.body.token });
    expect(out.status).toBe(200);
    expect(await json(out)).toEqual({ revoked: true, id: session.body.id });
    expect((await ctx.gateway.request('/api/me', { token: session.body.token })).status).toBe(401);
  });

  it('stops accepting a token once it expires', async () => {
    const shortLived = await mint({ name: 'short', role: 'viewer', ttl_days: 1 });
    expect((await ctx.gateway.request('/api/me', { token: shortLived.body.token })).status).toBe(200);
    ctx.gateway.clock.advance(86_400_000 + 1000);
    try {
      expect((await ctx.gateway.request('/api/me', { token: shortLived.body.token })).status).toBe(401);
      const listed = await json(ctx.gateway.request('/api/tokens?limit=500'));
      expect(listed.items.find((item: { id: string }) => item.id === shortLived.body.id).status).toBe('expired');
    } finally {
      ctx.gateway.clock.advance(-(86_400_000 + 1000));
    }
  });

  it('pages lists newest first with a cursor', async () => {
    for (let index = 0; index < 3; index += 1) await mint({ name: `page ${index}`, role: 'viewer' });
    const first = await json(ctx.gateway.request('/api/tokens?limit=2'));
    expect(first.items).toHaveLength(2);
    expect(first.items[0].id > first.items[1].id).toBe(true);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await json(ctx.gateway.request(`/api/tokens?limit=2&cursor=${first.next_cursor}`));
    expect(second.items[0].id < first.items[1].id).toBe(true);
    const bad = await ctx.gateway.request('/api/tokens?cursor=nonsense');
    expect(bad.status).toBe(400);
  });

  it('answers 401 with problem+json for no, malformed or unknown credentials', async () => {
    for (const token of [null, 'ppt_op_unknown']) {
      const response = await ctx.gateway.request('/api/tokens', { token });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
    const malformed = await fetch(`${ctx.gateway.url}/api/tokens`, { headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
  });
});
