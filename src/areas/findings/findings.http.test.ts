// Findings over HTTP on both dialects: the queue people work through (spec 01 §2.6, §3), every
// transition and its refusals, recurrence with false_resolution, filters and paging, the type
// catalogue and the attention ranking.
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { newId } from '../../infra/lib/ids.js';
import type { FindingUpsert } from '../../engine/recording/recorder.js';
import { FINDING_TYPES } from '../../engine/findings/catalog.js';
import { fingerprint } from '../../engine/findings/fingerprint.js';

/** A tool call by an agent the registry does not know: raises shadow_agent and containment. */
async function shadowCall(gateway: TestGateway, agent: string, tool = 'send_email'): Promise<any> {
  const response = await gateway.request('/v1/guard/tool_call', { method: 'POST', json: { agent, tool, arguments: { to: 'a@example.com' } } });
  expect(response.status).toBe(200);
  const decision = await response.json();
  await gateway.app.services.recorder.flush();
  return decision;
}

async function findingsOf(gateway: TestGateway, query: string): Promise<any[]> {
  const response = await gateway.request(`/api/findings?${query}`);
  expect(response.status).toBe(200);
  return (await json(response)).items;
}

async function shadowFinding(gateway: TestGateway, agent: string): Promise<any> {
  const items = await findingsOf(gateway, 'type=shadow_agent&limit=500');
  const found = items.find((item) => item.evidence.agent_name === agent);
  expect(found).toBeDefined();
  return found;
}

const patch = (gateway: TestGateway, id: string, body: unknown, token?: string) =>
  gateway.request(`/api/findings/${id}`, { method: 'PATCH', json: body, ...(token === undefined ? {} : { token }) });

async function auditOf(gateway: TestGateway, target: string): Promise<Array<{ action: string; actor: string; detail: any }>> {
  const rows = await gateway.store.db.selectFrom('audit_entries').selectAll().where('target', '=', target).orderBy('seq').execute();
  return rows.map((row) => ({ action: row.action, actor: row.actor, detail: JSON.parse(row.detail) }));
}

const raised = (type: string, severity: FindingUpsert['severity'], subject: string): FindingUpsert => ({
  fingerprint: fingerprint(type, subject, ['attention']),
  type,
  severity,
  title: `${type} for ${subject}`,
  subject,
  agent: null,
  at: new Date().toISOString(),
  evidence: { test: true },
  decisionId: null,
});

describe.each(DIALECTS)('findings over HTTP (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('lists the findings traffic raised with every field, and reads one', async () => {
    const decision = await shadowCall(ctx.gateway, 'ghost-list');
    const finding = await shadowFinding(ctx.gateway, 'ghost-list');
    expect(finding).toMatchObject({
      type: 'shadow_agent',
      severity: 'medium',
      status: 'open',
      subject: 'agent:None',
      agent: null,
      occurrences: 1,
      decision_id: decision.decision_id,
      suppression_reason: null,
      resolution_note: null,
      status_changed_at: null,
      status_changed_by: null,
      reopened_count: 0,
    });
    expect(finding.id).toMatch(/^fnd_/);
    expect(finding.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(finding.at).toBe(finding.last_seen_at);
    const one = await ctx.gateway.request(`/api/findings/${finding.id}`);
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual(finding);
    const containment = (await findingsOf(ctx.gateway, 'type=containment&limit=500')).filter((item) => item.evidence.agent === 'ghost-list');
    expect(containment.map((item) => item.evidence.rule_id)).toContain('capability.denied');
  });

  it('answers 404 problem for an unknown finding, 400 for a bad filter, and 403 to a viewer changing one', async () => {
    const unknown = await ctx.gateway.request('/api/findings/fnd_00000000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/problem+json');
    expect((await patch(ctx.gateway, 'fnd_00000000000000000000000000', { status: 'resolved', note: 'x' })).status).toBe(404);
    for (const query of ['type=not_a_type', 'status=closed', 'severity=urgent', 'limit=0', 'limit=501', 'cursor=bm9wZQ', 'agent=Not%20A%20Slug']) {
      const response = await ctx.gateway.request(`/api/findings?${query}`);
      expect(response.status, query).toBe(400);
      expect(Array.isArray((await json(response)).errors), query).toBe(true);
    }
    await shadowCall(ctx.gateway, 'ghost-viewer');
    const finding = await shadowFinding(ctx.gateway, 'ghost-viewer');
    const viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer' } }))).token;
    expect((await ctx.gateway.request(`/api/findings/${finding.id}`, { token: viewer })).status).toBe(200);
    const refused = await patch(ctx.gateway, finding.id, { status: 'suppressed', suppression_reason: 'noise' }, viewer);
    expect(refused.status).toBe(403);
    expect((await patch(ctx.gateway, finding.id, { status: 'ignored' })).status).toBe(400);
    expect((await patch(ctx.gateway, finding.id, { status: 'resolved', note: 'x', extra: 1 })).status).toBe(400);
    expect((await patch(ctx.gateway, finding.id, {})).status).toBe(400);
    expect(await auditOf(ctx.gateway, finding.id)).toEqual([]);
  });

  it('walks every transition of spec 01 §3, each audited, and refuses the ones that lack a reason or change nothing', async () => {
    await shadowCall(ctx.gateway, 'ghost-walk');
    const { id } = await shadowFinding(ctx.gateway, 'ghost-walk');

    // Refusals first: nothing is written and nothing is audited.
    const noReason = await patch(ctx.gateway, id, { status: 'suppressed' });
    expect(noReason.status).toBe(422);
    expect(noReason.headers.get('content-type')).toContain('application/problem+json');
    expect((await json(noReason)).errors).toEqual([expect.objectContaining({ field: '/body/suppression_reason' })]);
    const blankReason = await patch(ctx.gateway, id, { status: 'suppressed', suppression_reason: '   ' });
    expect(blankReason.status).toBe(422);
    const noNote = await patch(ctx.gateway, id, { status: 'resolved' });
    expect(noNote.status).toBe(422);
    expect((await json(noNote)).errors).toEqual([expect.objectContaining({ field: '/body/note' })]);
    const misplaced = await patch(ctx.gateway, id, { status: 'resolved', note: 'done', suppression_reason: 'noise' });
    expect(misplaced.status).toBe(400);
    expect((await json(misplaced)).errors).toEqual([expect.objectContaining({ field: '/body/suppression_reason' })]);
    const same = await patch(ctx.gateway, id, { status: 'open', note: 'again' });
    expect(same.status).toBe(409);
    expect(await auditOf(ctx.gateway, id)).toEqual([]);

    // open → suppressed
    const suppressed = await json(patch(ctx.gateway, id, { status: 'suppressed', suppression_reason: 'batch job we know about' }));
    expect(suppressed).toMatchObject({ status: 'suppressed', suppression_reason: 'batch job we know about' });
    expect(suppressed.status_changed_by).toContain('admin');
    expect(Date.parse(suppressed.status_changed_at)).not.toBeNaN();
    expect((await patch(ctx.gateway, id, { status: 'suppressed', suppression_reason: 'again' })).status).toBe(409);
    // A suppressed finding that recurs stays suppressed and counts.
    await shadowCall(ctx.gateway, 'ghost-walk');
    expect(await json(ctx.gateway.request(`/api/findings/${id}`))).toMatchObject({ status: 'suppressed', occurrences: 2 });

    // suppressed → open needs a note
    expect((await patch(ctx.gateway, id, { status: 'open' })).status).toBe(422);
    expect(await json(patch(ctx.gateway, id, { status: 'open', note: 'the batch job was retired' }))).toMatchObject({ status: 'open' });
    // open → resolved
    const resolved = await json(patch(ctx.gateway, id, { status: 'resolved', note: 'agent registered' }));
    expect(resolved).toMatchObject({ status: 'resolved', resolution_note: 'agent registered' });
    // resolved → open by hand needs a note
    expect((await patch(ctx.gateway, id, { status: 'open' })).status).toBe(422);
    expect(await json(patch(ctx.gateway, id, { status: 'open', note: 'not fixed after all' }))).toMatchObject({ status: 'open', reopened_count: 1 });
    // open → suppressed → resolved
    await json(patch(ctx.gateway, id, { status: 'suppressed', suppression_reason: 'quiet for now' }));
    expect((await patch(ctx.gateway, id, { status: 'resolved' })).status).toBe(422);
    expect(await json(patch(ctx.gateway, id, { status: 'resolved', note: 'gone for good' }))).toMatchObject({ status: 'resolved', resolution_note: 'gone for good' });

    const audit = await auditOf(ctx.gateway, id);
    expect(audit.map((entry) => entry.action)).toEqual([
      'finding.suppress',
      'finding.unsuppress',
      'finding.resolve',
      'finding.reopen',
      'finding.suppress',
      'finding.resolve',
    ]);
    expect(audit[0]?.detail).toMatchObject({ from: 'open', to: 'suppressed', suppression_reason: 'batch job we know about', type: 'shadow_agent' });
    expect(audit[1]?.detail).toMatchObject({ from: 'suppressed', to: 'open', note: 'the batch job was retired' });
    expect(audit[3]?.detail).toMatchObject({ from: 'resolved', to: 'open', note: 'not fixed after all' });
    expect(audit.every((entry) => entry.actor.includes('admin'))).toBe(true);
  });

  it('reopens a resolved finding when its fingerprint recurs and raises false_resolution naming it', async () => {
    await shadowCall(ctx.gateway, 'ghost-back');
    const original = await shadowFinding(ctx.gateway, 'ghost-back');
    const resolved = await json(patch(ctx.gateway, original.id, { status: 'resolved', note: 'registered it' }));
    const again = await shadowCall(ctx.gateway, 'ghost-back');
    const reopened = await json(ctx.gateway.request(`/api/findings/${original.id}`));
    expect(reopened).toMatchObject({
      status: 'open',
      occurrences: 2,
      reopened_count: 1,
      status_changed_by: 'recurrence',
      resolution_note: 'registered it',
      decision_id: again.decision_id,
      fingerprint: original.fingerprint,
    });
    expect(reopened.evidence.decision_id).toBe(again.decision_id);
    expect(reopened.last_seen_at >= original.last_seen_at).toBe(true);

    const falseResolutions = (await findingsOf(ctx.gateway, 'type=false_resolution&limit=500')).filter(
      (item) => item.evidence.finding_id === original.id,
    );
    expect(falseResolutions).toHaveLength(1);
    expect(falseResolutions[0]).toMatchObject({
      status: 'open',
      severity: 'medium',
      subject: 'agent:None',
      occurrences: 1,
      fingerprint: fingerprint('false_resolution', 'agent:None', [original.fingerprint]),
      evidence: {
        finding_id: original.id,
        finding_type: 'shadow_agent',
        finding_fingerprint: original.fingerprint,
        resolution_note: 'registered it',
        resolved_at: resolved.status_changed_at,
      },
    });
    // Recurrence of an open finding raises no further false_resolution.
    await shadowCall(ctx.gateway, 'ghost-back');
    expect(await json(ctx.gateway.request(`/api/findings/${original.id}`))).toMatchObject({ status: 'open', occurrences: 3, reopened_count: 1 });
    expect((await findingsOf(ctx.gateway, 'type=false_resolution&limit=500')).filter((item) => item.evidence.finding_id === original.id)).toHaveLength(1);
    // Resolved and back once more: the same false_resolution counts a second occurrence.
    await json(patch(ctx.gateway, original.id, { status: 'resolved', note: 'really registered it' }));
    await shadowCall(ctx.gateway, 'ghost-back');
    const second = (await findingsOf(ctx.gateway, 'type=false_resolution&limit=500')).filter((item) => item.evidence.finding_id === original.id);
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({ occurrences: 2, evidence: { resolution_note: 'really registered it' } });
  });

  it('changes status while the recorder writes the same finding in batches, without a 5xx', async () => {
    await shadowCall(ctx.gateway, 'ghost-busy');
    const { id } = await shadowFinding(ctx.gateway, 'ghost-busy');
    let calls = 0;
    let running = true;
    const traffic = (async () => {
      while (running) {
        await Promise.all(
          Array.from({ length: 10 }, () =>
            ctx.gateway.request('/v1/guard/tool_call', { method: 'POST', json: { agent: 'ghost-busy', tool: 'send_email', arguments: {} } }),
          ),
        );
        calls += 10;
      }
    })();
    const statuses: number[] = [];
    for (let round = 0; round < 10; round += 1) {
      statuses.push((await patch(ctx.gateway, id, { status: 'suppressed', suppression_reason: `round ${round}` })).status);
      statuses.push((await patch(ctx.gateway, id, { status: 'open', note: `round ${round}` })).status);
    }
    running = false;
    await traffic;
    await ctx.gateway.app.services.recorder.flush();
    expect(calls).toBeGreaterThan(0);
    // Suppressing and unsuppressing never conflict with recurrence, which leaves both states alone.
    expect(statuses.every((status) => status === 200)).toBe(true);
    const finding = await json(ctx.gateway.request(`/api/findings/${id}`));
    expect(finding).toMatchObject({ status: 'open', occurrences: calls + 1 });
    expect((await auditOf(ctx.gateway, id)).length).toBe(20);
  });

  it('filters by status, severity, type and agent, and pages newest first with a cursor', async () => {
    await ctx.gateway.request('/api/agents', { method: 'POST', json: { slug: 'filter-bot', owner_email: 'f@example.com', declared_tools: [] } });
    for (const tool of ['tool_a', 'tool_b', 'tool_c']) {
      await ctx.gateway.request('/v1/guard/tool_call', { method: 'POST', json: { agent: 'filter-bot', tool, arguments: {} } });
    }
    await ctx.gateway.app.services.recorder.flush();
    const mine = await findingsOf(ctx.gateway, 'agent=filter-bot&limit=500');
    expect(mine.length).toBeGreaterThanOrEqual(3);
    expect(mine.every((item) => item.agent === 'filter-bot' && item.subject === 'agent:filter-bot')).toBe(true);
    const contained = await findingsOf(ctx.gateway, 'agent=filter-bot&type=containment&status=open&severity=high&limit=500');
    expect(contained.length).toBeGreaterThanOrEqual(3);
    expect(contained.every((item) => item.type === 'containment' && item.status === 'open' && item.severity === 'high')).toBe(true);
    expect(await findingsOf(ctx.gateway, 'agent=filter-bot&status=resolved')).toEqual([]);

    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await json(ctx.gateway.request(`/api/findings?agent=filter-bot&limit=2${cursor === null ? '' : `&cursor=${cursor}`}`));
      expect(page.items.length).toBeLessThanOrEqual(2);
      ids.push(...page.items.map((item: { id: string }) => item.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(ids).toEqual(mine.map((item) => item.id));
    expect([...ids].sort().reverse()).toEqual(ids);
    expect((await json(ctx.gateway.request('/api/findings'))).items.length).toBeLessThanOrEqual(50);
  });

  it('lists every type of the catalogue with title, default severity, meaning and who raises it', async () => {
    const types = await json(ctx.gateway.request('/api/findings/types'));
    expect(types).toEqual({ items: FINDING_TYPES.map((item) => ({ ...item })), next_cursor: null });
    expect(types.items.map((item: { type: string }) => item.type)).toContain('false_resolution');
  });

  it('ranks what needs a person: a critical finding above a low one, pending approvals, stopped, unowned agents and dead jobs', async () => {
    const { recorder } = ctx.gateway.app.services;
    recorder.raise([raised('tool_poisoning', 'critical', 'agent:attn-critical'), raised('unpinned_server', 'low', 'agent:attn-low')]);
    await recorder.flush();
    await ctx.gateway.request('/api/agents', { method: 'POST', json: { slug: 'attn-payer', owner_email: 'p@example.com', declared_tools: ['refund'] } });
    await ctx.gateway.request('/api/agents/attn-payer/access', { method: 'POST', json: { tool_key: 'refund', requires_approval: true } });
    const held = await json(ctx.gateway.request('/v1/guard/tool_call', { method: 'POST', json: { agent: 'attn-payer', tool: 'refund', arguments: { order: 7 } } }));
    expect(held.approval_id).toMatch(/^apr_/);
    await ctx.gateway.request('/api/agents', { method: 'POST', json: { slug: 'attn-orphan' } });
    await ctx.gateway.request('/api/agents', { method: 'POST', json: { slug: 'attn-quiet', owner_team: 'ops' } });
    await ctx.gateway.request('/api/agents/attn-quiet/quarantine', { method: 'POST', json: { reason: 'acting up' } });
    const now = new Date().toISOString();
    await ctx.gateway.store.db
      .insertInto('jobs')
      .values({
        id: newId('job'),
        kind: 'evidence.build',
        payload: '{}',
        status: 'dead',
        attempts: 3,
        max_attempts: 3,
        run_after: now,
        locked_by: null,
        locked_until: null,
        last_error: 'disk full',
        result: null,
        created_by: 'test',
        created_at: now,
        updated_at: now,
        finished_at: now,
      })
      .execute();
    await recorder.flush();

    const attention = await json(ctx.gateway.request('/api/attention?hours=24'));
    expect(attention.hours).toBe(24);
    const items: any[] = attention.items;
    expect(items.length).toBeLessThanOrEqual(100);
    const scores = items.map((item) => item.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const index = (predicate: (item: any) => boolean) => items.findIndex(predicate);
    const critical = index((item) => item.kind === 'finding' && item.title === 'tool_poisoning for agent:attn-critical');
    const low = index((item) => item.kind === 'finding' && item.title === 'unpinned_server for agent:attn-low');
    expect(critical).toBeGreaterThanOrEqual(0);
    expect(low).toBeGreaterThan(critical);
    expect(items[critical]).toMatchObject({ severity: 'critical', score: 125 });
    expect(items[critical].link).toBe(`/api/findings/${items[critical].id}`);
    expect(items[low]).toMatchObject({ severity: 'low', score: 35 });
    const approval = items.find((item) => item.kind === 'approval' && item.id === held.approval_id);
    expect(approval).toMatchObject({ score: 80, severity: 'high', link: `/api/approvals/${held.approval_id}` });
    expect(items.find((item) => item.kind === 'agent_control' && item.title.includes('attn-quiet'))).toMatchObject({ score: 70 });
    expect(items.find((item) => item.kind === 'unowned_agent' && item.title.includes('attn-orphan'))).toMatchObject({ score: 40 });
    expect(items.find((item) => item.kind === 'unowned_agent' && item.title.includes('attn-quiet'))).toBeUndefined();
    expect(items.find((item) => item.kind === 'dead_job')).toMatchObject({ score: 50, why: expect.stringContaining('disk full') });

    // Resolved findings leave the list; past the recency window a finding loses its bonus.
    const lowId = items[low].id;
    await json(patch(ctx.gateway, lowId, { status: 'resolved', note: 'pinned' }));
    ctx.gateway.clock.advance(3 * 3_600_000);
    const later = await json(ctx.gateway.request('/api/attention?hours=1'));
    expect(later.items.find((item: any) => item.id === lowId)).toBeUndefined();
    expect(later.items.find((item: any) => item.id === items[critical].id)).toMatchObject({ score: 100 });
    expect((await ctx.gateway.request('/api/attention?hours=0')).status).toBe(400);
    expect((await ctx.gateway.request('/api/attention?hours=721')).status).toBe(400);
  });
});
