import { describe, expect, it } from 'vitest';
import { DIALECTS, withGateway } from '../../test/helpers/gateway.js';
import { newId } from '../lib/ids.js';
import type { TraceRow } from '../store/tables.js';
import type { FindingUpsert } from './recorder.js';

const trace = (id: string): TraceRow => ({
  id,
  at: new Date().toISOString(),
  agent: 'burst',
  subject: 'agent:None',
  surface: 'input',
  tool: null,
  verdict: 'allow',
  effective_verdict: 'allow',
  mode: 'observe',
  rules: '[]',
  entities: '[]',
  degraded: '[]',
  detectors: '[]',
  latency_ms: 0.1,
  content_sha256: '0'.repeat(64),
  content_length: 0,
  content: null,
  session_id: null,
  trace_id: null,
  environment: null,
  facts: null,
  canary: null,
});

const finding = (severity: FindingUpsert['severity'], status = 'x'): FindingUpsert => ({
  fingerprint: `burst-${status}`,
  type: 'shadow_agent',
  severity,
  title: 'Traffic from unregistered agent burst',
  subject: 'agent:None',
  agent: null,
  at: new Date().toISOString(),
  evidence: { severity },
  decisionId: null,
});

describe.each(DIALECTS)('recorder (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('takes a burst without waiting and writes every trace and one finding per fingerprint', async () => {
    const { recorder } = ctx.gateway.app.services;
    const started = performance.now();
    for (let index = 0; index < 5000; index += 1) {
      recorder.record({ trace: trace(newId('dec')), findings: [finding(index === 4000 ? 'high' : 'medium')] });
    }
    // Queuing is synchronous and cheap; the writes happen in batches afterwards.
    expect(performance.now() - started).toBeLessThan(500);
    await recorder.flush();
    const { db } = ctx.gateway.store;
    const traces = await db.selectFrom('traces').select((eb) => eb.fn.countAll().as('n')).where('agent', '=', 'burst').executeTakeFirstOrThrow();
    expect(Number(traces.n)).toBe(5000);
    const row = await db.selectFrom('findings').selectAll().where('fingerprint', '=', 'burst-x').executeTakeFirstOrThrow();
    expect(row.occurrences).toBe(5000);
    // One detection said high; at 100 occurrences and more recurrence raises it two levels.
    expect(row.severity).toBe('critical');
    expect(recorder.stats.dropped).toBe(0);
  });

  it('never lowers severity and reopens a resolved finding on recurrence', async () => {
    const { recorder } = ctx.gateway.app.services;
    recorder.record({ trace: trace(newId('dec')), findings: [finding('critical', 'y')] });
    await recorder.flush();
    const { db } = ctx.gateway.store;
    await db.updateTable('findings').set({ status: 'resolved' }).where('fingerprint', '=', 'burst-y').execute();
    recorder.record({ trace: trace(newId('dec')), findings: [finding('low', 'y')] });
    await recorder.flush();
    const row = await db.selectFrom('findings').selectAll().where('fingerprint', '=', 'burst-y').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ severity: 'critical', status: 'open', occurrences: 2 });
  });

  it('raises severity one level at 10 occurrences and two at 100, never above critical', async () => {
    const { recorder } = ctx.gateway.app.services;
    const { db } = ctx.gateway.store;
    const read = (status: string) => db.selectFrom('findings').selectAll().where('fingerprint', '=', `burst-${status}`).executeTakeFirstOrThrow();
    for (let index = 0; index < 9; index += 1) recorder.record({ trace: null, findings: [finding('low', 'steps')] });
    await recorder.flush();
    expect(await read('steps')).toMatchObject({ occurrences: 9, severity: 'low', severity_rank: 1 });
    recorder.record({ trace: null, findings: [finding('low', 'steps')] });
    await recorder.flush();
    expect(await read('steps')).toMatchObject({ occurrences: 10, severity: 'medium', severity_rank: 2 });
    // Across batches of different sizes the rule is the same: it counts the total.
    for (let batch = 0; batch < 3; batch += 1) {
      for (let index = 0; index < 30; index += 1) recorder.record({ trace: null, findings: [finding('low', 'steps')] });
      await recorder.flush();
    }
    expect(await read('steps')).toMatchObject({ occurrences: 100, severity: 'high', severity_rank: 3 });
    // A new finding seen 100 times in its first batch starts raised; high + 2 stops at critical.
    for (let index = 0; index < 100; index += 1) recorder.record({ trace: null, findings: [finding('high', 'first')] });
    await recorder.flush();
    expect(await read('first')).toMatchObject({ occurrences: 100, severity: 'critical', severity_rank: 4 });
    // A lower severity later never lowers it.
    recorder.record({ trace: null, findings: [finding('low', 'first')] });
    await recorder.flush();
    expect(await read('first')).toMatchObject({ occurrences: 101, severity: 'critical' });
  });

  it('keeps a suppressed finding suppressed on recurrence; a resolved one reopens with one false_resolution', async () => {
    const { recorder } = ctx.gateway.app.services;
    const { db } = ctx.gateway.store;
    recorder.record({ trace: null, findings: [finding('medium', 'quiet'), finding('medium', 'fixed')] });
    await recorder.flush();
    await db.updateTable('findings').set({ status: 'suppressed', suppression_reason: 'known' }).where('fingerprint', '=', 'burst-quiet').execute();
    await db
      .updateTable('findings')
      .set({ status: 'resolved', resolution_note: 'fixed it', status_changed_at: '2026-01-01T00:00:00.000Z', status_changed_by: 'ops' })
      .where('fingerprint', '=', 'burst-fixed')
      .execute();
    // The same fingerprint three times in one batch: one reopening, one false_resolution.
    for (let index = 0; index < 3; index += 1) recorder.record({ trace: null, findings: [finding('medium', 'quiet'), finding('medium', 'fixed')] });
    await recorder.flush();
    const quiet = await db.selectFrom('findings').selectAll().where('fingerprint', '=', 'burst-quiet').executeTakeFirstOrThrow();
    expect(quiet).toMatchObject({ status: 'suppressed', occurrences: 4, suppression_reason: 'known', reopened_count: 0 });
    const fixed = await db.selectFrom('findings').selectAll().where('fingerprint', '=', 'burst-fixed').executeTakeFirstOrThrow();
    expect(fixed).toMatchObject({ status: 'open', occurrences: 4, reopened_count: 1, status_changed_by: 'recurrence', resolution_note: 'fixed it' });
    const raised = await db.selectFrom('findings').selectAll().where('type', '=', 'false_resolution').where('evidence', 'like', `%${fixed.id}%`).execute();
    expect(raised).toHaveLength(1);
    expect(JSON.parse(raised[0]?.evidence ?? '{}')).toMatchObject({
      finding_id: fixed.id,
      finding_type: 'shadow_agent',
      resolution_note: 'fixed it',
      resolved_at: '2026-01-01T00:00:00.000Z',
      resolved_by: 'ops',
    });
  });

  it('counts a batch that cannot be written, reports it, and goes on with the next one', async () => {
    const { recorder } = ctx.gateway.app.services;
    const failedBefore = recorder.stats.failed;
    const duplicate = newId('dec');
    // The same trace id twice: the batch's transaction fails as a whole, nothing of it is kept.
    recorder.record({ trace: trace(duplicate), findings: [] });
    recorder.record({ trace: trace(duplicate), findings: [] });
    await recorder.flush();
    expect(recorder.stats.failed - failedBefore).toBe(2);
    const next = newId('dec');
    recorder.record({ trace: trace(next), findings: [] });
    await recorder.flush();
    const { db } = ctx.gateway.store;
    const rows = await db.selectFrom('traces').select('id').where('id', 'in', [duplicate, next]).execute();
    expect(rows.map((row) => row.id)).toEqual([next]);
  });
});
