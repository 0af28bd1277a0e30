// Entitlement over HTTP on both dialects: every cell of cases/filter.yaml through POST
// /api/entitlement/filter (one call per cell, then all cells of a subject in one call), who may call
// what, malformed bodies changing nothing, `record` persisted on the trace id, grant use and the
// over-permission report with its over_privileged findings, and NUL / lone surrogates.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { malformedRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';

interface Cell {
  subject: string;
  agent?: string;
  purpose?: string;
  chunk: { source: string; classes?: string[]; purpose?: string; residency?: string };
  expect: string;
}
interface CaseFile {
  principals: Array<Record<string, unknown>>;
  grants: Array<Record<string, unknown>>;
  cases: Cell[];
}

const table = parseYaml(readFileSync(new URL('./cases/filter.yaml', import.meta.url), 'utf8')) as CaseFile;

async function entitlementAudit(gateway: TestGateway): Promise<number> {
  return (await gateway.store.db.selectFrom('audit_entries').select('id').where('action', 'like', 'entitlement.%').execute()).length;
}

describe.each(DIALECTS)('entitlement principals, grants and filter (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  let viewer: string;
  let operator: string;
  const grantIds: string[] = [];

  const filter = (body: unknown, init: { token?: string | null; headers?: Record<string, string> } = {}) =>
    ctx.gateway.request('/api/entitlement/filter', { method: 'POST', json: body, ...init });

  beforeAll(async () => {
    const gateway = ctx.gateway;
    viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer', ttl_days: 3650 } }))).token;
    operator = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'ops', role: 'operator', ttl_days: 3650 } }))).token;
    for (const principal of table.principals) {
      const response = await gateway.request('/api/entitlement/principals', { method: 'PUT', json: principal, token: operator });
      expect(response.status, JSON.stringify(principal)).toBe(201);
    }
    for (const grant of table.grants) {
      const response = await gateway.request('/api/entitlement/grants', { method: 'POST', json: grant, token: operator });
      expect(response.status, JSON.stringify(grant)).toBe(201);
      grantIds.push((await json(response)).id);
    }
  });

  it('answers every cell of the case table as expected, one call per cell', async () => {
    const wrong: string[] = [];
    for (const [position, cell] of table.cases.entries()) {
      const chunk = { id: `c${position}`, text: 'retrieved text', ...cell.chunk };
      const body = { subject: cell.subject, chunks: [chunk], ...(cell.agent === undefined ? {} : { agent: cell.agent }), ...(cell.purpose === undefined ? {} : { purpose: cell.purpose }) };
      const response = await filter(body);
      expect(response.status).toBe(200);
      const answer = await json(response);
      const got = answer.allowed.length === 1 ? 'allow' : answer.withheld[0]?.reason;
      if (got !== cell.expect) wrong.push(`${JSON.stringify(body)}: expected ${cell.expect}, got ${got} (${answer.withheld[0]?.detail ?? ''})`);
      if (cell.expect === 'allow') expect(answer.allowed).toEqual([chunk]);
      else expect(answer.withheld).toEqual([{ index: 0, id: chunk.id, source: chunk.source, reason: cell.expect, detail: expect.any(String) }]);
    }
    expect(wrong).toEqual([]);
    // Every reason the filter can give is exercised by the table.
    expect(new Set(table.cases.map((cell) => cell.expect)).size).toBe(9);
  });

  it('answers the same cells in one call per subject, in order, with counts', async () => {
    const groups = new Map<string, Cell[]>();
    for (const cell of table.cases) {
      const key = JSON.stringify([cell.subject, cell.agent ?? null, cell.purpose ?? null]);
      groups.set(key, [...(groups.get(key) ?? []), cell]);
    }
    for (const cells of groups.values()) {
      const first = cells[0] as Cell;
      const chunks = cells.map((cell, index) => ({ id: `k${index}`, text: 't', ...cell.chunk }));
      const answer = await json(filter({ subject: first.subject, chunks, agent: first.agent, purpose: first.purpose }));
      expect(answer.allowed).toEqual(chunks.filter((_, index) => cells[index]?.expect === 'allow'));
      expect(answer.withheld.map((item: { index: number; reason: string }) => [item.index, item.reason])).toEqual(
        cells.flatMap((cell, index) => (cell.expect === 'allow' ? [] : [[index, cell.expect]])),
      );
      expect(answer.counts.chunks).toBe(cells.length);
      expect(answer.counts.allowed + answer.counts.withheld).toBe(cells.length);
      expect(answer.recorded).toBe(0);
    }
  });

  it('lets any credential filter; an agent credential only for its own agent; operator routes need operator', async () => {
    const gateway = ctx.gateway;
    const chunks = [{ source: 'hr/records/7', classes: ['hr'], text: 'salary band' }];
    // A viewer and a traffic token may filter.
    expect((await json(filter({ subject: 'bob', chunks: [{ source: 'crm/a', text: 'x' }] }, { token: viewer }))).counts.allowed).toBe(1);
    expect((await json(filter({ subject: 'erin', chunks, agent: 'helpdesk' }, { token: gateway.trafficToken }))).counts.allowed).toBe(1);
    expect((await json(filter({ subject: 'erin', chunks }, { token: gateway.trafficToken, headers: { 'x-parapet-agent': 'helpdesk' } }))).counts.allowed).toBe(1);
    // An agent credential speaks for its own agent, named or not, and for no other.
    const minted = await gateway.app.services.credentials.mint({ identityId: 'idn_helpdesk', agentSlug: 'helpdesk', ttlDays: 30 }, 'test');
    const own = await json(filter({ subject: 'erin', chunks }, { token: minted.credential }));
    expect(own).toMatchObject({ agent: 'helpdesk', counts: { allowed: 1 } });
    const other = await gateway.app.services.credentials.mint({ identityId: 'idn_other', agentSlug: 'other-bot', ttlDays: 30 }, 'test');
    const impersonating = await filter({ subject: 'erin', chunks, agent: 'helpdesk' }, { token: other.credential });
    expect(impersonating.status).toBe(403);
    expect(impersonating.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await json(filter({ subject: 'erin', chunks }, { token: other.credential }))).withheld[0].reason).toBe('no_grant');
    expect((await filter({ subject: 'erin', chunks }, { token: null })).status).toBe(401);
    // Reading needs a viewer, changing an operator; an agent credential does neither.
    for (const path of ['/api/entitlement/principals', '/api/entitlement/grants', '/api/entitlement/over-permission']) {
      expect((await gateway.request(path, { token: viewer })).status).toBe(200);
      expect((await gateway.request(path, { token: minted.credential })).status).toBe(403);
    }
    const before = await entitlementAudit(gateway);
    expect((await gateway.request('/api/entitlement/principals', { method: 'PUT', json: { subject: 'zed' }, token: viewer })).status).toBe(403);
    expect((await gateway.request('/api/entitlement/grants', { method: 'POST', json: { resource: '**', principal: 'zed' }, token: viewer })).status).toBe(403);
    expect(await entitlementAudit(gateway)).toBe(before);
  });

  it('refuses malformed bodies with a problem and changes nothing', async () => {
    const gateway = ctx.gateway;
    const before = { audit: await entitlementAudit(gateway), grants: (await json(gateway.request('/api/entitlement/grants'))).items.length };
    const bad: Array<[string, string, unknown, number]> = [
      ['PUT', '/api/entitlement/principals', {}, 400],
      ['PUT', '/api/entitlement/principals', { subject: 's'.repeat(257) }, 400],
      ['PUT', '/api/entitlement/principals', { subject: 'x', clearances: 'pii' }, 400],
      ['PUT', '/api/entitlement/principals', { subject: 'x', groups: Array.from({ length: 101 }, (_, i) => `g${i}`) }, 400],
      ['PUT', '/api/entitlement/principals', { subject: 'x', colour: 'blue' }, 400],
      ['POST', '/api/entitlement/grants', { principal: 'x' }, 400],
      ['POST', '/api/entitlement/grants', { resource: 'a/***', principal: 'x' }, 400],
      ['POST', '/api/entitlement/grants', { resource: 'a\\', principal: 'x' }, 400],
      ['POST', '/api/entitlement/grants', { resource: 'a', principal: 'x', principal_kind: 'role' }, 400],
      ['POST', '/api/entitlement/grants', { resource: 'a', principal: 'x', principal_kind: '*' }, 422],
      ['POST', '/api/entitlement/grants', { resource: 'a', principal: '*' }, 422],
      ['POST', '/api/entitlement/filter', {}, 400],
      ['POST', '/api/entitlement/filter', { subject: 'bob', chunks: [{ text: 'no source' }] }, 400],
      ['POST', '/api/entitlement/filter', { subject: 'bob', chunks: [{ source: 'a', text: 'x', score: 0.9 }] }, 400],
      ['POST', '/api/entitlement/filter', { subject: 'bob', chunks: [{ source: 'a', text: 'x'.repeat(32_769) }] }, 400],
      ['POST', '/api/entitlement/filter', { subject: 'bob', chunks: Array.from({ length: 1001 }, () => ({ source: 'a', text: '' })) }, 400],
      ['POST', '/api/entitlement/filter', { subject: 'bob', record: 'yes' }, 400],
      ['GET', '/api/entitlement/over-permission?days=0', undefined, 400],
      ['GET', '/api/entitlement/over-permission?days=366', undefined, 400],
    ];
    for (const [method, path, body, status] of bad) {
      const response = await gateway.request(path, { method, ...(body === undefined ? {} : { json: body }), token: operator });
      expect(response.status, `${method} ${path} ${String(JSON.stringify(body)).slice(0, 120)}`).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const { failures, operations } = await malformedRequestFailures(gateway, '/api/entitlement');
    expect(operations).toBe(6);
    expect(failures).toEqual([]);
    expect(await entitlementAudit(gateway)).toBe(before.audit);
    expect((await json(gateway.request('/api/entitlement/grants'))).items.length).toBe(before.grants);
  });

  it('replaces a principal (200, audited) and the next filter call sees the change', async () => {
    const gateway = ctx.gateway;
    const chunk = { source: 'crm/tickets/9', classes: ['pii'], text: 'phone number' };
    expect((await json(filter({ subject: 'frank', chunks: [chunk] }))).withheld[0].reason).toBe('unknown_subject');
    const created = await gateway.request('/api/entitlement/principals', { method: 'PUT', json: { subject: 'frank', groups: ['support'] }, token: operator });
    expect(created.status).toBe(201);
    expect((await json(filter({ subject: 'frank', chunks: [chunk] }))).withheld[0].reason).toBe('not_cleared');
    const replaced = await gateway.request('/api/entitlement/principals', {
      method: 'PUT',
      json: { subject: 'frank', display: 'Frank', groups: ['support'], clearances: ['PII'] },
      token: operator,
    });
    expect(replaced.status).toBe(200);
    expect(await json(replaced)).toMatchObject({ subject: 'frank', display: 'Frank', clearances: ['pii'], groups: ['support'] });
    expect((await json(filter({ subject: 'frank', chunks: [chunk] }))).allowed).toEqual([chunk]);
    const audit = await gateway.store.db.selectFrom('audit_entries').select(['action', 'target']).where('target', '=', 'frank').orderBy('seq').execute();
    expect(audit.map((entry) => entry.action)).toEqual(['entitlement.principal.create', 'entitlement.principal.update']);
    const listed = (await json(gateway.request('/api/entitlement/principals', { token: viewer }))).items;
    expect(listed.map((item: { subject: string }) => item.subject)).toEqual([...listed.map((item: { subject: string }) => item.subject)].sort());
  });

  it('records each withholding on the trace id when asked', async () => {
    const gateway = ctx.gateway;
    const chunks = [
      { id: 'a', source: 'crm/tickets/1', text: 'ok' },
      { id: 'b', source: 'wiki/secret', text: 'no grant' },
      { source: 'crm/tickets/2', classes: ['pii'], text: 'not cleared' },
    ];
    const answer = await json(filter({ subject: 'bob', chunks, trace_id: 'trc_entitlement_1', record: true }));
    expect(answer.recorded).toBe(2);
    const rows = await gateway.store.db.selectFrom('entitlement_withholdings').selectAll().where('trace_id', '=', 'trc_entitlement_1').orderBy('chunk_source').execute();
    expect(rows.map((row) => [row.subject, row.chunk_source, row.chunk_id, row.reason.split(':')[0]])).toEqual([
      ['bob', 'crm/tickets/2', null, 'not_cleared'],
      ['bob', 'wiki/secret', 'b', 'no_grant'],
    ]);
    // Without record nothing is stored.
    await filter({ subject: 'bob', chunks, trace_id: 'trc_entitlement_2' });
    expect(await gateway.store.db.selectFrom('entitlement_withholdings').selectAll().where('trace_id', '=', 'trc_entitlement_2').execute()).toEqual([]);
  });

  it('reports unused, over-permitted and * grants, and raises over_privileged for the * grant', async () => {
    const gateway = ctx.gateway;
    const now = gateway.clock.now().toISOString();
    for (const key of ['crm/a', 'crm/b', 'crm/c', 'crm/d', 'crm/e', 'crm/f', 'wiki/x']) {
      await gateway.store.db
        .insertInto('knowledge_sources')
        .values({ key, title: key, tier: 'approved', owner: null, domain: null, updated_at_source: null, freshness_sla_hours: null, deprecated: 0, metadata: '{}', created_by: 'test', created_at: now, updated_at: now, last_cited_at: null, validated_at: null, validation: null, validation_ok: null })
        .execute();
    }
    await filter({ subject: 'bob', chunks: [{ source: 'crm/a', text: 'x' }] });
    const report = await json(gateway.request('/api/entitlement/over-permission?days=7', { token: viewer }));
    expect(report.days).toBe(7);
    const used = new Set(report.unused_grants.map((item: { grant: { id: string } }) => item.grant.id));
    // The group grant on crm/** allowed chunks above; the ledger grant of alice did too; the eu-docs grant did.
    expect(used.has(grantIds[0])).toBe(false);
    expect(used.has(grantIds[1])).toBe(false);
    expect(report.unused_grants.every((item: { grant: { last_used_at: string | null }; never_used: boolean }) => item.never_used === (item.grant.last_used_at === null))).toBe(true);
    const grants = (await json(gateway.request('/api/entitlement/grants'))).items;
    expect(grants.find((grant: { id: string }) => grant.id === grantIds[0]).last_used_at).not.toBeNull();
    // bob sees the registered crm/a..f through his group and retrieved one of them: over-permitted at a ratio of 6.
    const bob = report.principals.find((item: { subject: string }) => item.subject === 'bob');
    expect(bob).toMatchObject({ visible_sources: 6, retrieved_sources: 1, ratio: 6, over_permitted: true });
    const erin = report.principals.find((item: { subject: string }) => item.subject === 'erin');
    expect(erin).toMatchObject({ visible_sources: 0, retrieved_sources: 0, ratio: 0, over_permitted: false });
    expect(report.counts.over_permitted_principals).toBe(3);
    // What bob retrieved is in the database (batched, written before the report reads it), so it
    // survives a restart and counts for every gateway process; another process's record counts here.
    const stored = await gateway.store.db.selectFrom('entitlement_retrievals').selectAll().where('subject', '=', 'bob').execute();
    expect(stored.map((row) => row.source)).toContain('crm/a');
    await gateway.store.db.insertInto('entitlement_retrievals').values({ subject: 'bob', source: 'crm/b', last_at: now }).execute();
    await gateway.store.db.insertInto('entitlement_retrievals').values({ subject: 'bob', source: 'crm/old', last_at: '2020-01-01T00:00:00.000Z' }).execute();
    const again = await json(gateway.request('/api/entitlement/over-permission?days=7', { token: viewer }));
    expect(again.principals.find((item: { subject: string }) => item.subject === 'bob')).toMatchObject({ visible_sources: 6, retrieved_sources: 2, ratio: 3, over_permitted: false });
    await gateway.store.db.deleteFrom('entitlement_retrievals').where('subject', '=', 'bob').where('source', '=', 'crm/b').execute();
    expect(report.wildcard_grants).toEqual([{ grant: expect.objectContaining({ id: grantIds[4], principal_kind: '*' }), wildcard: ['principal'] }]);

    // A subject who can see every source and retrieved none is over-permitted; its grant is a * grant too.
    await gateway.request('/api/entitlement/principals', { method: 'PUT', json: { subject: 'gail' }, token: operator });
    const everything = await json(gateway.request('/api/entitlement/grants', { method: 'POST', json: { resource: '**', principal: 'gail' }, token: operator }));
    const after = await json(gateway.request('/api/entitlement/over-permission', { token: viewer }));
    expect(after.principals[0]).toMatchObject({ subject: 'gail', visible_sources: 7, retrieved_sources: 0, ratio: 7, over_permitted: true });
    expect(after.counts.over_permitted_principals).toBe(4);
    expect(after.wildcard_grants.map((item: { grant: { id: string }; wildcard: string[] }) => [item.grant.id, item.wildcard])).toEqual([
      [grantIds[4], ['principal']],
      [everything.id, ['resource']],
    ]);
    await gateway.app.services.recorder.flush();
    const findings = await gateway.store.db.selectFrom('findings').select(['subject', 'status']).where('type', '=', 'over_privileged').orderBy('subject').execute();
    expect(findings.map((finding) => finding.subject)).toEqual(['principal:*', 'subject:gail']);
  });

  it('answers NUL and lone surrogates without a 500 and matches them as stored', async () => {
    const gateway = ctx.gateway;
    const odd = 'nul\u0000sub\uD800ject';
    const put = await gateway.request('/api/entitlement/principals', { method: 'PUT', json: { subject: odd, groups: ['g\u0000'], clearances: ['p\uDC00'], residency: 'e\u0000u' }, token: operator });
    expect(put.status).toBe(201);
    expect((await json(put)).subject).toBe('nul\uFFFDsub\uFFFDject');
    const grant = await gateway.request('/api/entitlement/grants', { method: 'POST', json: { resource: 'odd\u0000/*', principal: odd, residency: 'e\u0000u' }, token: operator });
    expect(grant.status).toBe(201);
    const chunks = [
      { id: 'i\u0000', source: 'odd\u0000/x', classes: ['p\uDC00'], residency: 'e\u0000u', text: 'a\u0000b' },
      { id: 'j\uD800', source: 'elsewhere\uD800', text: 't\uDFFF' },
    ];
    const response = await filter({ subject: odd, chunks, trace_id: 'trc_\u0000odd', record: true, purpose: 'p\u0000' });
    expect(response.status).toBe(200);
    const answer = await json(response);
    expect(answer.counts).toMatchObject({ allowed: 1, withheld: 1 });
    expect(answer.withheld[0].reason).toBe('no_grant');
    const rows = await gateway.store.db.selectFrom('entitlement_withholdings').selectAll().where('trace_id', '=', 'trc_\uFFFDodd').execute();
    expect(rows.map((row) => row.chunk_source)).toEqual(['elsewhere\uFFFD']);
    await ctx.gateway.app.services.entitlement.flushUsage();
    const retrieved = await gateway.store.db.selectFrom('entitlement_retrievals').select('source').where('subject', '=', 'nul\uFFFDsub\uFFFDject').execute();
    expect(retrieved.map((row) => row.source)).toEqual(['odd\uFFFD/x']);
  });
});
