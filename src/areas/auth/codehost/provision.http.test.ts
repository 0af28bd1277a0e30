// POST /api/auth/codehost/provision over HTTP on both dialects: the same identity gives the same
// user and a new working viewer token each time; changed login, email and name are kept; two
// provisions at once create one user; admin only; audited, with no token in the audit or the
// database; malformed and hostile input.
import { describe, expect, it } from 'vitest';
import { auditOf } from '../../../../test/helpers/audit.js';
import { hostileRequestFailures } from '../../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../../test/helpers/gateway.js';

const PATH = '/api/auth/codehost/provision';

async function provision(gateway: TestGateway, body: Record<string, unknown>, token?: string | null) {
  return gateway.request(PATH, { method: 'POST', json: body, ...(token === undefined ? {} : { token }) });
}

async function identities(gateway: TestGateway, codehostUserId: string) {
  return gateway.store.db.selectFrom('codehost_identities').selectAll().where('codehost_user_id', '=', codehostUserId).execute();
}

describe.each(DIALECTS)('code-host provisioning on %s', (dialect) => {
  const ctx = withGateway({ dialect });
  const minted: string[] = [];

  it('creates the user once and mints a working viewer token each time; a changed login and email are kept', async () => {
    const { gateway } = ctx;
    const first = await provision(gateway, { codehost_user_id: '583231', codehost_login: 'octo', email: 'octo@example.com', name: 'Octo Cat' });
    expect(first.status).toBe(201);
    const created = await json(first);
    expect(created).toMatchObject({
      user: { id: 'usr_583231', codehost_user_id: '583231', login: 'octo', email: 'octo@example.com', name: 'Octo Cat' },
      created: true,
      role: 'viewer',
      token_id: expect.stringMatching(/^tok_/),
      token: expect.any(String),
    });
    minted.push(created.token);

    const me = await json(gateway.request('/api/me', { token: created.token }));
    expect(me).toMatchObject({ kind: 'operator', role: 'viewer', owner: 'usr_583231', token_id: created.token_id });
    expect((await gateway.request('/api/tokens', { method: 'POST', json: { name: 'x', role: 'operator' }, token: created.token })).status).toBe(403);

    const second = await provision(gateway, { codehost_user_id: '583231', codehost_login: 'octo-renamed', email: 'octo@new.example.com', name: 'Octo Cat' });
    expect(second.status).toBe(200);
    const again = await json(second);
    expect(again).toMatchObject({ user: { id: 'usr_583231', login: 'octo-renamed', email: 'octo@new.example.com', created_at: created.user.created_at }, created: false });
    expect(again.token).not.toBe(created.token);
    expect(again.token_id).not.toBe(created.token_id);
    minted.push(again.token);
    expect(await json(gateway.request('/api/me', { token: again.token }))).toMatchObject({ role: 'viewer', owner: 'usr_583231' });
    // The first token still works: provisioning adds a token, it does not replace one.
    expect((await gateway.request('/api/me', { token: created.token })).status).toBe(200);

    const rows = await identities(gateway, '583231');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ user_id: 'usr_583231', login: 'octo-renamed', email: 'octo@new.example.com', name: 'Octo Cat' });
    const tokens = await gateway.store.db.selectFrom('api_tokens').selectAll().where('owner', '=', 'usr_583231').execute();
    expect(tokens.map((row) => row.role)).toEqual(['viewer', 'viewer']);
  });

  it('audits each provision and keeps every raw token out of the audit and the database', async () => {
    const { gateway } = ctx;
    const entries = await auditOf(gateway, 'usr_583231');
    expect(entries.map((entry) => [entry.action, entry.detail.created])).toEqual([
      ['codehost.provisioned', true],
      ['codehost.provisioned', false],
    ]);
    expect(entries[1]!.detail.changed).toEqual(['email', 'login']);
    const tokenEntries = await gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'token.create').execute();
    expect(tokenEntries.filter((entry) => JSON.parse(entry.detail).owner === 'usr_583231')).toHaveLength(2);

    expect(minted).toHaveLength(2);
    const audit = JSON.stringify(await gateway.store.db.selectFrom('audit_entries').selectAll().execute());
    const stored = JSON.stringify([await gateway.store.db.selectFrom('api_tokens').selectAll().execute(), await gateway.store.db.selectFrom('codehost_identities').selectAll().execute()]);
    for (const token of minted) {
      expect(audit).not.toContain(token);
      expect(stored).not.toContain(token);
    }
  });

  it('creates one user when the same identity is provisioned twice at once', async () => {
    const { gateway } = ctx;
    const body = { codehost_user_id: 'MDQ6VXNlcjE=', codehost_login: 'racer', email: 'racer@example.com' };
    const answers = await Promise.all([provision(gateway, body), provision(gateway, body), provision(gateway, body)]);
    const bodies = await Promise.all(answers.map((answer) => json(answer)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 201]);
    expect(bodies.filter((item) => item.created)).toHaveLength(1);
    expect(new Set(bodies.map((item) => item.user.id))).toEqual(new Set(['usr_MDQ6VXNlcjE=']));
    expect(new Set(bodies.map((item) => item.token)).size).toBe(3);
    expect(await identities(gateway, 'MDQ6VXNlcjE=')).toHaveLength(1);
  });

  it('is for admins only and refuses malformed bodies, changing nothing', async () => {
    const { gateway } = ctx;
    const operator = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'ops', role: 'operator' } }))).token;
    const viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer' } }))).token;
    const body = { codehost_user_id: '77', codehost_login: 'intruder', email: 'i@example.com' };
    expect((await provision(gateway, body, null)).status).toBe(401);
    expect((await provision(gateway, body, operator)).status).toBe(403);
    expect((await provision(gateway, body, viewer)).status).toBe(403);
    for (const bad of [
      {},
      { codehost_user_id: '77', codehost_login: 'x' },
      { ...body, email: 'not-an-email' },
      { ...body, codehost_user_id: 'has space' },
      { ...body, codehost_user_id: 'x'.repeat(101) },
      { ...body, codehost_login: '' },
      { ...body, name: 'n'.repeat(201) },
      { ...body, role: 'admin' },
    ]) {
      const response = await provision(gateway, bad);
      expect(response.status, JSON.stringify(bad).slice(0, 80)).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect(await identities(gateway, '77')).toHaveLength(0);
    const odd = await json(provision(gateway, { ...body, codehost_user_id: '78', name: 'a\u0000b\udc00' }));
    expect(odd.user.name).toBe('a\uFFFDb\uFFFD');
  });

  it('answers hostile input with a 4xx problem or a success, never a 5xx', async () => {
    const { failures, operations, sent } = await hostileRequestFailures(ctx.gateway, [PATH]);
    expect(operations).toEqual([`POST ${PATH}`]);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(5);
  }, 120_000);
});
