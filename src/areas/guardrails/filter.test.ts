// SuppressionFilter on its own: which findings a suppression in force drops, over a real store
// (SQLite) so that sync reads what the service wrote.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { FindingUpsert } from '../../engine/recording/recorder.js';
import { Store } from '../../infra/store/db.js';
import { SuppressionFilter } from './filter.js';
import type { SuppressionRow } from './store.js';

/** Starts at the real time and moves only when told (as in test/helpers/gateway.ts, which loads app.ts). */
class TestClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

const SHA_A = 'a'.repeat(64);
const SHA_B = 'b'.repeat(64);

const detection = (entity: string, detector = 'pii.native', type = 'guardrail_detection'): FindingUpsert => ({
  fingerprint: `${type}-${entity}`,
  type,
  severity: 'medium',
  title: `${entity} held`,
  subject: 'agent:None',
  agent: null,
  at: new Date().toISOString(),
  evidence: { rule_id: 'pii.memory_and_agent_message', entity, detector, score: 0.9 },
  decisionId: null,
});

describe('SuppressionFilter', () => {
  let dir: string;
  let store: Store;
  const clock = new TestClock();
  const filter = () => new SuppressionFilter(store, clock);

  const suppress = async (row: Partial<SuppressionRow>): Promise<string> => {
    const id = newId('gsp');
    await store.db
      .insertInto('guardrail_suppressions')
      .values({
        id,
        feedback_id: newId('gfb'),
        scope: 'agent',
        agent: 'alpha',
        detector_key: 'pii.native',
        entity_type: 'PII.EMAIL',
        content_sha256: null,
        reason: null,
        expires_at: null,
        created_by: 'test',
        created_at: clock.now().toISOString(),
        deleted_at: null,
        ...row,
      })
      .execute();
    return id;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'parapet-filter-'));
    store = Store.open({ databaseUrl: null, dataDir: dir, poolSize: 1 });
    await store.migrate();
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps everything before the first sync and when nothing is suppressed', async () => {
    const empty = filter();
    const findings = [detection('PII.EMAIL')];
    expect(empty.keep(findings[0] as FindingUpsert, { agent: 'alpha', contentSha256: SHA_A })).toBe(true);
    // The same array back: no allocation on the common path.
    expect(empty.filter(findings, { agent: 'alpha', contentSha256: SHA_A })).toBe(findings);
  });

  it('drops the detection finding of that entity and detector for that agent only', async () => {
    await suppress({ agent: 'alpha-1' });
    const suppressions = filter();
    await suppressions.sync();
    expect(suppressions.size).toBe(1);
    const ctx = { agent: 'alpha-1', contentSha256: SHA_A };
    expect(suppressions.keep(detection('PII.EMAIL'), ctx)).toBe(false);
    expect(suppressions.keep(detection('PII.EMAIL'), { ...ctx, agent: 'beta-1' })).toBe(true);
    expect(suppressions.keep(detection('PII.PHONE'), ctx)).toBe(true);
    expect(suppressions.keep(detection('PII.EMAIL', 'pii.other'), ctx)).toBe(true);
    // Only guardrail_detection findings: a budget breach of the same call is never suppressed.
    expect(suppressions.keep(detection('PII.EMAIL', 'pii.native', 'budget_breach'), ctx)).toBe(true);
    const mixed = [detection('PII.EMAIL'), detection('PII.PHONE'), detection('PII.EMAIL', 'pii.native', 'containment')];
    expect(suppressions.filter(mixed, ctx).map((item) => `${item.type}:${item.evidence.entity}`)).toEqual([
      'guardrail_detection:PII.PHONE',
      'containment:PII.EMAIL',
    ]);
  });

  it('an exact suppression covers only the same content; a detector-less one any detector', async () => {
    await suppress({ agent: 'alpha-2', content_sha256: SHA_A });
    await suppress({ agent: 'alpha-3', detector_key: null });
    const suppressions = filter();
    await suppressions.sync();
    expect(suppressions.keep(detection('PII.EMAIL'), { agent: 'alpha-2', contentSha256: SHA_A })).toBe(false);
    expect(suppressions.keep(detection('PII.EMAIL'), { agent: 'alpha-2', contentSha256: SHA_B })).toBe(true);
    expect(suppressions.keep(detection('PII.EMAIL', 'pii.other'), { agent: 'alpha-3', contentSha256: SHA_B })).toBe(false);
  });

  it('a global suppression covers every agent', async () => {
    await suppress({ scope: 'global', agent: null, entity_type: 'SECRET.AWS_KEY', detector_key: 'secrets.native' });
    const suppressions = filter();
    await suppressions.sync();
    for (const agent of ['alpha-1', 'gamma', 'anyone']) {
      expect(suppressions.keep(detection('SECRET.AWS_KEY', 'secrets.native'), { agent, contentSha256: SHA_B })).toBe(false);
    }
  });

  it('leaves out deleted suppressions, and expired ones even between two syncs', async () => {
    await suppress({ agent: 'delta', deleted_at: clock.now().toISOString() });
    await suppress({ agent: 'epsilon', expires_at: new Date(clock.now().getTime() + 60_000).toISOString() });
    const suppressions = filter();
    await suppressions.sync();
    expect(suppressions.keep(detection('PII.EMAIL'), { agent: 'delta', contentSha256: SHA_A })).toBe(true);
    expect(suppressions.keep(detection('PII.EMAIL'), { agent: 'epsilon', contentSha256: SHA_A })).toBe(false);
    clock.advance(61_000);
    expect(suppressions.keep(detection('PII.EMAIL'), { agent: 'epsilon', contentSha256: SHA_A })).toBe(true);
    await suppressions.sync();
    expect(suppressions.keep(detection('PII.EMAIL'), { agent: 'epsilon', contentSha256: SHA_A })).toBe(true);
  });

  it('costs microseconds per finding with many suppressions for other agents', async () => {
    for (let index = 0; index < 200; index++) await suppress({ agent: `bulk-${index}` });
    const suppressions = filter();
    await suppressions.sync();
    const findings = [detection('PII.EMAIL')];
    const started = performance.now();
    for (let index = 0; index < 100_000; index++) suppressions.filter(findings, { agent: 'unsuppressed', contentSha256: SHA_A });
    // A global suppression exists (see above), so every call does look; under a microsecond each
    // here, asserted with room for a loaded machine.
    expect((performance.now() - started) / 100_000).toBeLessThan(0.01);
  });
});
