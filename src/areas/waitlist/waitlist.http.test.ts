// The waitlist over HTTP on both dialects: a public sign-up, idempotent per trimmed lower-cased
// address (one row; 201 then 200, the same answer otherwise), addresses validated, bounded fields,
// operators list it (paged) and export it as CSV safe from formula injection (audited), roles, fuzz.
import { describe, expect, it } from 'vitest';
import { hostileRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { csvCell, emailProblem } from './service.js';

const join = (gateway: TestGateway, body: unknown) => gateway.request('/api/waitlist', { method: 'POST', token: null, json: body });

async function rows(gateway: TestGateway) {
  return gateway.store.db.selectFrom('waitlist_entries').selectAll().orderBy('id').execute();
}

async function mint(gateway: TestGateway, role: 'viewer' | 'operator'): Promise<string> {
  return (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: `${role} for waitlist`, role } }))).token;
}

describe('addresses the waitlist accepts', () => {
  it('accepts ordinary and internationalised addresses', () => {
    for (const email of ['ada@example.com', 'first.last+tag@sub.example.co.uk', "o'brien@example.ie", 'zoë@exämple.de', 'x@a-b.io']) expect(emailProblem(email)).toBeNull();
  });

  it('refuses what is not an address', () => {
    const bad = ['', 'plain', '@example.com', 'ada@', 'ada@example', 'a@b@example.com', 'ada @example.com', 'ada@exa mple.com', 'ada\u0000@example.com', 'ada@example.c0m', '.ada@example.com', 'a..da@example.com', 'ada@-example.com', 'ada@example..com', 'ada\ud800@example.com', 'a"b@example.com', `${'a'.repeat(65)}@example.com`, `a@${'b'.repeat(250)}.com`, 'ada@example.com\u2028'];
    for (const email of bad) expect(emailProblem(email), email).not.toBeNull();
  });

  it('quotes CSV cells and defuses formulas', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    for (const start of ['+', '-', '@', '\t']) expect(csvCell(`${start}1`)).toBe(`"'${start}1"`);
    expect(csvCell('Acme, Inc.')).toBe('"Acme, Inc."');
    expect(csvCell(null)).toBe('');
    expect(csvCell(3)).toBe('3');
  });
});

describe.each(DIALECTS)('the waitlist (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('stores one entry per address, whatever its case and spaces: 201 first, 200 after, nothing else said', async () => {
    const { gateway } = ctx;
    const auditBefore = await gateway.store.db.selectFrom('audit_entries').select('id').execute();
    const first = await join(gateway, { email: '  Ada.Lovelace@Example.COM ', source: 'landing', company: 'Analytical Engines' });
    expect(first.status).toBe(201);
    expect(await json(first)).toEqual({ status: 'joined' });
    const second = await join(gateway, { email: 'ada.lovelace@example.com', note: 'interested in the proxy' });
    expect(second.status).toBe(200);
    expect(await json(second)).toEqual({ status: 'joined' });
    expect((await join(gateway, { email: 'ADA.LOVELACE@EXAMPLE.COM' })).status).toBe(200);
    const stored = await rows(gateway);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      email: 'Ada.Lovelace@Example.COM',
      email_normalized: 'ada.lovelace@example.com',
      source: 'landing',
      company: 'Analytical Engines',
      // Empty the first time, filled in by the second sign-up; the first values are kept.
      note: 'interested in the proxy',
      signups: 3,
    });
    // A sign-up is not an operator change: the audit chain is untouched.
    expect(await gateway.store.db.selectFrom('audit_entries').select('id').execute()).toEqual(auditBefore);
  });

  it('refuses a missing or invalid address, unknown fields and overlong fields with 400, storing nothing', async () => {
    const { gateway } = ctx;
    const before = (await rows(gateway)).length;
    const cases: unknown[] = [{}, { source: 'x' }, { email: 'not-an-address' }, { email: 'a\u0000b@example.com' }, { email: 'a@b.com', extra: 1 }, { email: 'a@b.com', note: 'x'.repeat(2001) }, { email: `${'a'.repeat(250)}@b.com` }];
    for (const body of cases) {
      const response = await join(gateway, body);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const missing = await json(join(gateway, { company: 'Acme' }));
    expect(JSON.stringify(missing)).toContain('email');
    expect((await rows(gateway)).length).toBe(before);
  });

  it('stores NUL and lone surrogates in the free fields as replacement characters', async () => {
    const { gateway } = ctx;
    expect((await join(gateway, { email: 'nul@example.org', company: 'Ac\u0000me', note: 'half \ud800 pair' })).status).toBe(201);
    const row = (await rows(gateway)).find((entry) => entry.email === 'nul@example.org');
    expect(row).toMatchObject({ company: 'Ac\uFFFDme', note: 'half \uFFFD pair' });
  });

  it('lists entries to operators, newest first and paged, and refuses viewers and anonymous callers', async () => {
    const { gateway } = ctx;
    for (const index of [1, 2, 3]) await join(gateway, { email: `page${index}@example.net` });
    const operator = await mint(gateway, 'operator');
    const first = await json(gateway.request('/api/waitlist?limit=2', { token: operator }));
    expect(first.items.map((item: { email: string }) => item.email)).toEqual(['page3@example.net', 'page2@example.net']);
    expect(first.next_cursor).not.toBeNull();
    const next = await json(gateway.request(`/api/waitlist?limit=2&cursor=${first.next_cursor}`, { token: operator }));
    expect(next.items[0].email).toBe('page1@example.net');
    expect(Object.keys(first.items[0]).sort()).toEqual(['company', 'created_at', 'email', 'id', 'note', 'signups', 'source', 'updated_at']);

    expect((await gateway.request('/api/waitlist', { token: null })).status).toBe(401);
    expect((await gateway.request('/api/waitlist', { token: await mint(gateway, 'viewer') })).status).toBe(403);
    expect((await gateway.request('/api/waitlist?format=csv', { token: null })).status).toBe(401);
  });

  it('exports every entry as CSV with formula-like cells defused, and audits the export', async () => {
    const { gateway } = ctx;
    await join(gateway, { email: 'formula@example.com', company: '=HYPERLINK("http://evil.example","click")', note: '+1 call me, "soon"', source: '@campaign' });
    const operator = await mint(gateway, 'operator');
    const response = await gateway.request('/api/waitlist?format=csv', { token: operator });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(response.headers.get('content-disposition')).toContain('attachment');
    const text = await response.text();
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('email,source,company,note,signups,created_at,updated_at');
    expect(lines).toHaveLength(1 + (await rows(gateway)).length);
    const line = lines.find((entry) => entry.startsWith('"formula@example.com"'))!;
    expect(line).toContain(`"'@campaign","'=HYPERLINK(""http://evil.example"",""click"")","'+1 call me, ""soon""",1,`);
    const audit = await gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'waitlist.export').execute();
    expect(audit).toHaveLength(1);
    // The audit entry names how many, never whom.
    expect(audit[0]!.detail).not.toContain('@example');
  });

  it('answers malformed and hostile requests with a 4xx problem or a success, never a 5xx', async () => {
    const { failures, sent, operations } = await hostileRequestFailures(ctx.gateway, ['/api/waitlist']);
    expect(operations).toEqual(['GET /api/waitlist', 'POST /api/waitlist']);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(10);
  }, 120_000);
});
