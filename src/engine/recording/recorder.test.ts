import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { DIALECTS, withGateway } from '../../../test/helpers/gateway.js';
import { PG_ADMIN_URL } from '../../../test/helpers/postgres.js';
import { newId } from '../../infra/lib/ids.js';
import type { TraceRow } from '../../infra/store/tables.js';
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

  it('keeps the rest of a batch when one recording is refused, dead-letters it, counts it and raises recording_failure', async () => {
    const { recorder } = ctx.gateway.app.services;
    const { db } = ctx.gateway.store;
    const deadBefore = recorder.stats.deadLettered;
    const taken = newId('dec');
    recorder.record({ trace: trace(taken), findings: [] });
    await recorder.flush();
    // A trace id already stored is refused by both databases for this row alone (primary key).
    const neighbours = Array.from({ length: 20 }, () => newId('dec'));
    for (const [index, id] of neighbours.entries()) {
      recorder.record({ trace: trace(id), findings: [finding('medium', `neighbour-${index}`)] });
      if (index === 10) recorder.record({ trace: { ...trace(taken), agent: 'refused' }, findings: [finding('medium', 'refused')] });
    }
    await recorder.flush();
    const rows = await db.selectFrom('traces').select('id').where('id', 'in', neighbours).execute();
    expect(rows).toHaveLength(neighbours.length);
    const neighbourFindings = await db.selectFrom('findings').select('fingerprint').where('fingerprint', 'like', 'burst-neighbour-%').execute();
    expect(neighbourFindings).toHaveLength(neighbours.length);
    expect(recorder.stats.deadLettered - deadBefore).toBe(1);
    const letters = await db.selectFrom('dead_letters').selectAll().execute();
    const letter = letters.find((row) => row.payload.includes('"refused"'));
    expect(letter).toMatchObject({ kind: 'recording' });
    expect(JSON.parse(letter?.payload ?? '{}')).toMatchObject({ trace: { id: taken, agent: 'refused' }, findings: [{ fingerprint: 'burst-refused' }] });
    // The refused recording's own findings are in its dead letter, not in the findings table.
    expect(await db.selectFrom('findings').select('id').where('fingerprint', '=', 'burst-refused').execute()).toHaveLength(0);
    const failure = await db.selectFrom('findings').selectAll().where('type', '=', 'recording_failure').executeTakeFirstOrThrow();
    expect(failure).toMatchObject({ severity: 'high', decision_id: taken, status: 'open' });
    expect(JSON.parse(failure.evidence)).toMatchObject({ dead_letter_id: letter?.id, decision_id: taken, agent: 'refused' });
    const metrics = await (await ctx.gateway.request('/metrics')).text();
    expect(metrics).toMatch(new RegExp(`^parapet_recording_dead_letters_total ${recorder.stats.deadLettered}$`, 'm'));
  });
});

describe('recorder while PostgreSQL cannot be reached', () => {
  const ctx = withGateway({ dialect: 'postgres' });

  /** Runs one statement as the server's administrator (not through the gateway's pool). */
  const admin = async (text: string): Promise<void> => {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };

  it('keeps every recording queued and retries, dead-letters none, and writes them all once it is back', async () => {
    const { recorder } = ctx.gateway.app.services;
    const database = new URL(ctx.gateway.config.database_url as string).pathname.slice(1);
    const retriedBefore = recorder.stats.retried;
    const ids = Array.from({ length: 50 }, () => newId('dec'));
    await admin(`alter database ${database} allow_connections false`);
    try {
      await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${database}'`);
      for (const id of ids) recorder.record({ trace: trace(id), findings: [finding('low', 'outage')] });
      const flushed = recorder.flush();
      // Several attempts, each refused, while the database stays away.
      await vi.waitFor(() => expect(recorder.stats.retried - retriedBefore).toBeGreaterThan(2), { timeout: 20_000, interval: 50 });
      expect(recorder.backlog).toBe(ids.length);
      expect(recorder.stats.deadLettered).toBe(0);
      await admin(`alter database ${database} allow_connections true`);
      await flushed;
    } finally {
      await admin(`alter database ${database} allow_connections true`);
    }
    const { db } = ctx.gateway.store;
    expect(await db.selectFrom('traces').select('id').where('id', 'in', ids).execute()).toHaveLength(ids.length);
    expect(await db.selectFrom('findings').select('occurrences').where('fingerprint', '=', 'burst-outage').executeTakeFirstOrThrow()).toEqual({ occurrences: ids.length });
    expect(await db.selectFrom('dead_letters').select('id').execute()).toHaveLength(0);
    expect(recorder.stats.deadLettered).toBe(0);
  });
});
