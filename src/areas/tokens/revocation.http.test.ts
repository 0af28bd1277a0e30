// Who may revoke which token, on both engines: a role at least as strong as the token's, and never
// the bootstrap admin token through the API, so a weaker token minted under the admin's owner
// cannot lock the admin out, before or after the gateway restarts on the same database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, startGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/postgres.js';

describe.each(DIALECTS)('token revocation rights (%s)', (dialect) => {
  const adminToken = `ppt_op_revocation-admin-${dialect}-0123456789abcdef`;
  let dataDir: string;
  let database: TestDatabase | undefined;
  let gateway: TestGateway;

  const start = () =>
    startGateway({
      dialect,
      ...(database === undefined ? {} : { databaseUrl: database.url }),
      overrides: { data_dir: dataDir, admin_token: adminToken },
    });

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'parapet-revocation-'));
    if (dialect === 'postgres') database = await createTestDatabase();
    gateway = await start();
  });
  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // The helper's request() sends its own random admin token; this gateway knows only ours.
  const request = (pathname: string, init: { method?: string; json?: unknown; token?: string } = {}) =>
    gateway.request(pathname, { ...init, token: init.token ?? adminToken });

  async function mint(role: string, token?: string): Promise<{ id: string; token: string }> {
    const response = await request('/api/tokens', { method: 'POST', json: { name: `${role} token`, role }, token });
    expect(response.status).toBe(201);
    return json(response);
  }
  const revoke = (id: string, token?: string) => request(`/api/tokens/${id}/revoke`, { method: 'POST', token });
  const adminTokenId = async () =>
    (await gateway.store.db.selectFrom('api_tokens').select('id').where('name', '=', 'PARAPET_ADMIN_TOKEN').executeTakeFirstOrThrow()).id;

  it('refuses an operator revoking the admin token that minted it, and the admin still works after a restart', async () => {
    const operator = await mint('operator');
    const adminId = await adminTokenId();
    const refused = await revoke(adminId, operator.token);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect((await json(refused)).detail).toContain('an operator token cannot revoke an admin token');

    await gateway.close();
    gateway = await start();
    expect((await request('/api/me')).status).toBe(200);
    const row = await gateway.store.db.selectFrom('api_tokens').selectAll().where('id', '=', adminId).executeTakeFirstOrThrow();
    expect(row.revoked_at).toBeNull();
  });

  it('refuses revoking a stronger token: a viewer cannot revoke an operator, an operator cannot revoke an admin', async () => {
    const viewer = await mint('viewer');
    const operator = await mint('operator');
    const otherAdmin = await mint('admin');
    expect((await revoke(operator.id, viewer.token)).status).toBe(403);
    expect((await revoke(otherAdmin.id, operator.token)).status).toBe(403);
    // Equal or weaker is allowed: the operator revokes a viewer, the admin revokes another admin.
    expect((await revoke(viewer.id, operator.token)).status).toBe(200);
    expect((await revoke(otherAdmin.id)).status).toBe(200);
    expect((await request('/api/me', { token: otherAdmin.token })).status).toBe(401);
    expect((await request('/api/me', { token: operator.token })).status).toBe(200);
  });

  it('lets an operator revoke a traffic token of its owner', async () => {
    const operator = await mint('operator');
    const traffic = await mint('traffic');
    expect((await revoke(traffic.id, operator.token)).status).toBe(200);
  });

  it('never revokes the bootstrap admin token through the API, not even by the admin itself or a logout', async () => {
    const adminId = await adminTokenId();
    const byAdmin = await revoke(adminId);
    expect(byAdmin.status).toBe(409);
    expect((await json(byAdmin)).detail).toContain('bootstrap admin token');
    const logout = await request('/api/auth/logout', { method: 'POST' });
    expect(logout.status).toBe(409);
    expect((await request('/api/me')).status).toBe(200);
    // Nothing changed and nothing was audited.
    const entries = await gateway.store.db.selectFrom('audit_entries').select('action').where('target', '=', adminId).execute();
    expect(entries.map((entry) => entry.action)).toEqual(['token.create']);
  });

  it('still refuses after a restart on the same database', async () => {
    const operator = await mint('operator');
    await gateway.close();
    gateway = await start();
    expect((await revoke(await adminTokenId(), operator.token)).status).toBe(403);
    expect((await revoke(await adminTokenId())).status).toBe(409);
    expect((await request('/api/me')).status).toBe(200);
  });
});

describe.each(DIALECTS)('the admin token minted at first start (%s)', (dialect) => {
  it('is the bootstrap admin token too: no API call revokes it', async () => {
    // No admin_token: the first start mints one (the helper drops the raw value; a CLI-made admin stands in).
    const gateway = await startGateway({ dialect, overrides: { admin_token: null } });
    try {
      const minted = await gateway.store.db.selectFrom('api_tokens').selectAll().where('created_by', '=', 'bootstrap').executeTakeFirstOrThrow();
      expect(minted.role).toBe('admin');
      const admin = await gateway.app.services.tokens.mint({ name: 'second admin', role: 'admin', owner: 'admin', createdBy: 'cli', ttlDays: null }, 'cli');
      const refused = await gateway.request(`/api/tokens/${minted.id}/revoke`, { method: 'POST', token: admin.token });
      expect(refused.status).toBe(409);
      expect((await json(refused)).type).toBe('urn:parapet:problem:conflict');
      // The storage's own authority (`parapet admin token revoke`) still can.
      expect((await gateway.app.services.tokens.revoke(null, minted.id)).status).toBe('revoked');
    } finally {
      await gateway.close();
    }
  });
});
