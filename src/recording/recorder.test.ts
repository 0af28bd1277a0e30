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
    expect(row.severity).toBe('high');
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
