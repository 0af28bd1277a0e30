import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';

describe.each(DIALECTS)('agent credentials (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  const mintFor = (agentSlug: string) =>
    ctx.gateway.app.services.credentials.mint({ identityId: `idn_${agentSlug}`, agentSlug, ttlDays: 30 }, 'test');

  it('authenticates as its own agent and reads the full health payload', async () => {
    const minted = await mintFor('billing-bot');
    expect(minted.credential).toMatch(/^ppt_ag_/);
    const me = await json(ctx.gateway.request('/api/me', { token: minted.credential }));
    expect(me).toMatchObject({ kind: 'agent', agent: 'billing-bot', credential_id: minted.id, role: null });
    const health = await json(ctx.gateway.request('/health', { token: minted.credential }));
    expect(health.checks[0]).toMatchObject({ name: 'database', status: 'ok', detail: dialect });
    expect(health.unchecked).toEqual(expect.arrayContaining([expect.objectContaining({ what: 'degraded checks' })]));
  });

  it('is refused on operator routes (403)', async () => {
    const minted = await mintFor('support-bot');
    const response = await ctx.gateway.request('/api/tokens', { token: minted.credential });
    expect(response.status).toBe(403);
    expect((await json(response)).detail).toContain('operator token');
  });

  it('stops working at once when revoked, and a second revocation is a conflict', async () => {
    const minted = await mintFor('search-bot');
    expect((await ctx.gateway.request('/api/me', { token: minted.credential })).status).toBe(200);
    const revoked = await ctx.gateway.request(`/api/credentials/${minted.id}/revoke`, { method: 'POST' });
    expect(revoked.status).toBe(200);
    const body = await json(revoked);
    expect(body).toMatchObject({ id: minted.id, status: 'revoked', agent: 'search-bot' });
    expect((await ctx.gateway.request('/api/me', { token: minted.credential })).status).toBe(401);
    expect((await ctx.gateway.request(`/api/credentials/${minted.id}/revoke`, { method: 'POST' })).status).toBe(409);
    expect(JSON.stringify(body)).not.toContain(minted.credential);
  });

  it('needs the operator role to revoke, and answers 404 for an unknown id', async () => {
    const minted = await mintFor('report-bot');
    const viewer = await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { role: 'viewer' } }));
    expect((await ctx.gateway.request(`/api/credentials/${minted.id}/revoke`, { method: 'POST', token: viewer.token })).status).toBe(403);
    expect((await ctx.gateway.request('/api/credentials/cred_unknown/revoke', { method: 'POST' })).status).toBe(404);
  });

  it('lets an agent log itself out', async () => {
    const minted = await mintFor('temp-bot');
    const out = await ctx.gateway.request('/api/auth/logout', { method: 'POST', token: minted.credential });
    expect(await json(out)).toEqual({ revoked: true, id: minted.id });
    expect((await ctx.gateway.request('/health', { token: minted.credential })).status).toBe(401);
  });
});
