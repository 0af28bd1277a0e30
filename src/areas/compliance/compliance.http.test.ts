// Compliance over HTTP on both engines: a deployment built step by step with gaps (an agent
// without owner, the baseline in observe, no audit checkpoint, no evidence package) shows the
// matching controls failing and the framework roll-up; closing each gap through the API turns its
// control to pass and moves the roll-up. Sync is idempotent and versioned; roles and malformed
// bodies are checked; an evidence package carries the control results and still verifies offline.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../infra/lib/package-root.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { verifyEvidenceFiles } from '../audit/offline.js';

type Result = { key: string; status: string; value: number | null; evidence: { ids: string[]; counts: Record<string, number> } };
type Rollup = { key: string; covered: number; failing: number; not_evidenced: number; pass_rate: number; failing_controls: string[]; clauses_detail: Array<{ ref: string; status: string }> };

async function auditCount(gateway: TestGateway, action: string): Promise<number> {
  const row = await gateway.store.db.selectFrom('audit_entries').select((eb) => eb.fn.countAll().as('n')).where('action', '=', action).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(DIALECTS)('compliance (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  let viewer = '';
  let operator = '';

  const compute = async (): Promise<Map<string, Result>> => {
    const response = await ctx.gateway.request('/api/controls/compute?window_days=30', { method: 'POST', json: {}, token: operator });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: Result[] };
    return new Map(body.results.map((result) => [result.key, result]));
  };
  const euStatus = async (): Promise<Rollup> => {
    const body = await json(ctx.gateway.request('/api/compliance/status?framework=eu-ai-act', { token: viewer }));
    expect(body.frameworks).toHaveLength(1);
    return body.frameworks[0] as Rollup;
  };

  beforeAll(async () => {
    viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer' } }))).token;
    operator = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'ops', role: 'operator' } }))).token;
  });

  it('loads the catalogue at start; a second sync changes nothing and a changed catalogue makes a new version', async () => {
    const gateway = ctx.gateway;
    const frameworks = await json(gateway.request('/api/frameworks', { token: viewer }));
    expect(frameworks.items.map((item: { key: string }) => item.key).sort()).toEqual(['eu-ai-act', 'iso-42001', 'nist-ai-rmf', 'owasp-llm-2025']);
    const before = await auditCount(gateway, 'controls.sync');
    const first = await json(gateway.request('/api/controls/sync', { method: 'POST', json: {}, token: operator }));
    expect(first).toMatchObject({ version: 1, changed: false, controls: 22, frameworks: 4 });
    expect(first.obligations).toBeGreaterThanOrEqual(4);
    const again = await json(gateway.request('/api/controls/sync', { method: 'POST', json: {}, token: operator }));
    expect(again).toEqual(first);
    expect(await auditCount(gateway, 'controls.sync')).toBe(before);
    expect(await gateway.store.db.selectFrom('obligations').select('key').where('key', '=', 'eu-ai-act.general').executeTakeFirst()).toEqual({ key: 'eu-ai-act.general' });

    // A copy of the catalogue with one title changed: a new version, audited.
    const copy = mkdtempSync(path.join(tmpdir(), 'parapet-catalogue-'));
    const service = gateway.app.services.compliance;
    const original = service.catalogueDir;
    try {
      cpSync(packagePath('catalogue'), copy, { recursive: true });
      const file = path.join(copy, 'controls.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('title: Every agent has a named owner', 'title: Every agent names its owner'));
      service.catalogueDir = copy;
      const changed = await json(gateway.request('/api/controls/sync', { method: 'POST', json: {}, token: operator }));
      expect(changed).toMatchObject({ version: 2, changed: true, controls: 22 });
      expect(await auditCount(gateway, 'controls.sync')).toBe(before + 1);
      const controls = await json(gateway.request('/api/controls', { token: viewer }));
      expect(controls.catalogue_version).toBe(2);
      expect(controls.items.find((item: { key: string }) => item.key === 'agents.owner_named').title).toBe('Every agent names its owner');
      // A catalogue that names an unknown control is refused and changes nothing.
      writeFileSync(path.join(copy, 'frameworks', 'eu-ai-act.yaml'), readFileSync(path.join(copy, 'frameworks', 'eu-ai-act.yaml'), 'utf8').replace('[agents.owner_named, agents.purpose_declared]', '[agents.nobody]'));
      const broken = await gateway.request('/api/controls/sync', { method: 'POST', json: {}, token: operator });
      expect(broken.status).toBe(503);
      expect(broken.headers.get('content-type')).toContain('application/problem+json');
    } finally {
      service.catalogueDir = original;
      rmSync(copy, { recursive: true, force: true });
    }
    const back = await json(gateway.request('/api/controls/sync', { method: 'POST', json: {}, token: operator }));
    expect(back).toMatchObject({ version: 3, changed: true });
  });

  it('shows the gaps of a deployment failing, and each passing once it is closed, with the roll-up moving', async () => {
    const gateway = ctx.gateway;
    expect((await gateway.request('/api/agents', { method: 'POST', json: { slug: 'orphan-bot', purpose: 'answers questions' } })).status).toBe(201);
    expect((await gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'orphan-bot', content: 'hello' } })).status).toBe(200);
    await gateway.app.services.recorder.flush();

    let results = await compute();
    expect(results.get('agents.owner_named')).toMatchObject({ status: 'fail', value: 1, evidence: { ids: ['orphan-bot'] } });
    expect(results.get('policies.baseline_enforced')?.status).toBe('fail');
    expect(results.get('audit.checkpoint_recent')?.status).toBe('fail');
    expect(results.get('evidence.package_recent')?.status).toBe('fail');
    expect(results.get('audit.chain_verified')?.status).toBe('pass');
    expect(results.get('evaluations.run_recent')?.status).toBe('not_evidenced');
    expect(results.get('traffic.identified')).toMatchObject({ status: 'pass', value: 1 });
    let status = await euStatus();
    expect(status.failing_controls).toEqual(expect.arrayContaining(['agents.owner_named', 'policies.baseline_enforced', 'audit.checkpoint_recent', 'evidence.package_recent']));
    expect(status.clauses_detail[0]?.status).toBe('failing');
    expect(status.clauses_detail.find((clause) => clause.ref === 'Art. 12')?.status).toBe('failing');
    const failingAtStart = status.failing;

    // Gap 1: the agent gets an owner.
    expect((await gateway.request('/api/agents/orphan-bot', { method: 'PATCH', json: { owner_email: 'owner@example.com' } })).status).toBe(200);
    results = await compute();
    expect(results.get('agents.owner_named')).toMatchObject({ status: 'pass', value: 0 });
    status = await euStatus();
    expect(status.failing_controls).not.toContain('agents.owner_named');

    // Gap 2: the baseline enforces.
    expect((await gateway.request('/api/policies/baseline/mode', { method: 'POST', json: { mode: 'enforce' } })).status).toBe(200);
    results = await compute();
    expect(results.get('policies.baseline_enforced')?.status).toBe('pass');

    // Gap 3: a signed audit checkpoint.
    expect((await gateway.request('/api/audit/checkpoint', { method: 'POST', json: {} })).status).toBe(201);
    results = await compute();
    expect(results.get('audit.checkpoint_recent')).toMatchObject({ status: 'pass', value: 1 });
    status = await euStatus();
    expect(status.failing_controls).not.toContain('audit.checkpoint_recent');

    // A signed-off risk assessment (written as the risk area stores it): agents.risk_assessed passes.
    expect(results.get('agents.risk_assessed')).toMatchObject({ status: 'fail', evidence: { ids: ['orphan-bot'] } });
    const now = gateway.clock.now();
    await gateway.store.db
      .insertInto('risk_assessments')
      .values({
        id: 'rsk_test', agent: 'orphan-bot', eu_ai_act_class: 'limited', inherent_risk: 'medium', residual_risk: 'low', answers: '{}', review_months: 12,
        signed_off: 1, signed_off_by: 'Ada Lovelace', signed_off_at: now.toISOString(), assessed_by: 'ops', assessed_at: now.toISOString(),
        next_review_at: new Date(now.getTime() + 365 * 86_400_000).toISOString(),
      })
      .execute();
    results = await compute();
    expect(results.get('agents.risk_assessed')).toMatchObject({ status: 'pass', value: 0 });
    expect(results.get('agents.reviews_current')).toMatchObject({ status: 'pass', value: 0 });

    // Gap 4: an evidence package; it carries the control results of its period and verifies offline.
    const built = await gateway.request('/api/evidence', { method: 'POST', json: {} });
    expect(built.status).toBe(201);
    const pkg = (await built.json()) as { id: string };
    results = await compute();
    expect(results.get('evidence.package_recent')).toMatchObject({ status: 'pass', evidence: { ids: [pkg.id] } });
    status = await euStatus();
    for (const key of ['agents.owner_named', 'policies.baseline_enforced', 'audit.checkpoint_recent', 'evidence.package_recent']) expect(status.failing_controls).not.toContain(key);
    expect(status.failing).toBeLessThan(failingAtStart);

    const zip = new Uint8Array(await (await gateway.request(`/api/evidence/${pkg.id}/download`)).arrayBuffer());
    const files = new Map(Object.entries(unzipSync(zip)));
    expect(verifyEvidenceFiles(files).ok).toBe(true);
    const manifest = JSON.parse(strFromU8(files.get('manifest.json') as Uint8Array)) as { files: Array<{ name: string }> };
    expect(manifest.files.map((file) => file.name)).toEqual(expect.arrayContaining(['control-results.jsonl', 'framework-status.jsonl', 'risk-register.jsonl']));
    expect(strFromU8(files.get('risk-register.jsonl') as Uint8Array)).toContain('"rsk_test"');
    const stored = strFromU8(files.get('control-results.jsonl') as Uint8Array).trim().split('\n').map((line) => JSON.parse(line) as Result);
    expect(stored.some((result) => result.key === 'agents.owner_named' && result.status === 'fail')).toBe(true);
    expect(stored.some((result) => result.key === 'agents.owner_named' && result.status === 'pass')).toBe(true);
    const frameworkStatus = strFromU8(files.get('framework-status.jsonl') as Uint8Array).trim().split('\n').map((line) => JSON.parse(line) as { key: string });
    expect(frameworkStatus.map((item) => item.key)).toContain('eu-ai-act');

    // The history and the framework view follow.
    const controls = await json(gateway.request('/api/controls?history=3', { token: viewer }));
    const owner = controls.items.find((item: { key: string }) => item.key === 'agents.owner_named');
    expect(owner.latest.status).toBe('pass');
    expect(owner.history).toHaveLength(3);
    expect(owner.clauses).toEqual(expect.arrayContaining([{ framework: 'eu-ai-act', ref: 'Art. 14', title: 'Human oversight' }]));
    const eu = await json(gateway.request('/api/frameworks/eu-ai-act', { token: viewer }));
    const art12 = eu.clauses.find((clause: { ref: string }) => clause.ref === 'Art. 12');
    expect(art12.controls.find((control: { key: string }) => control.key === 'audit.checkpoint_recent').status).toBe('pass');
  });

  it('checks roles, reviews and malformed requests (problem+json, nothing changed)', async () => {
    const gateway = ctx.gateway;
    expect((await gateway.request('/api/controls/compute', { method: 'POST', json: {}, token: viewer })).status).toBe(403);
    expect((await gateway.request('/api/controls/sync', { method: 'POST', json: {}, token: viewer })).status).toBe(403);
    const review = { control_key: 'approvals.human_oversight', framework: 'eu-ai-act', reference: 'Art. 14', note: 'checked the approval queue' };
    expect((await gateway.request('/api/frameworks/review', { method: 'POST', json: review, token: viewer })).status).toBe(403);
    expect((await gateway.request('/api/controls', { token: null })).status).toBe(401);

    const reviews = async () => Number((await gateway.store.db.selectFrom('framework_reviews').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const bad: Array<[unknown, number]> = [
      [{ framework: 'eu-ai-act' }, 400],
      [{ ...review, extra: 1 }, 400],
      [{ ...review, framework: 'nope' }, 422],
      [{ ...review, control_key: 'nope.nope' }, 422],
      [{ ...review, reference: 'Art. 12' }, 422],
      ['not an object', 400],
    ];
    for (const [body, code] of bad) {
      const response = await gateway.request('/api/frameworks/review', { method: 'POST', json: body, token: operator });
      expect(response.status).toBe(code);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
    for (const query of ['window_days=0', 'window_days=366', 'window_days=abc']) {
      const response = await gateway.request(`/api/controls/compute?${query}`, { method: 'POST', json: {}, token: operator });
      expect(response.status).toBe(400);
    }
    expect(await reviews()).toBe(0);
    expect((await gateway.request('/api/frameworks/nope', { token: viewer })).status).toBe(404);
    expect((await gateway.request('/api/compliance/status?framework=nope', { token: viewer })).status).toBe(404);

    const before = await auditCount(gateway, 'framework.review');
    const created = await gateway.request('/api/frameworks/review', { method: 'POST', json: review, token: operator });
    expect(created.status).toBe(201);
    const row = (await created.json()) as { id: string; reviewer: string };
    expect(await auditCount(gateway, 'framework.review')).toBe(before + 1);
    const eu = await json(gateway.request('/api/frameworks/eu-ai-act', { token: viewer }));
    expect(eu.reviews).toEqual([expect.objectContaining({ id: row.id, control_key: 'approvals.human_oversight', reference: 'Art. 14', reviewer: row.reviewer })]);
  });

  it('runs as the controls.compute job, and the daily run queues itself only when results are older than a day', async () => {
    const gateway = ctx.gateway;
    const service = gateway.app.services.compliance;
    // Results were computed moments ago: nothing to queue.
    expect(await service.scheduleDaily()).toBe(false);
    gateway.clock.advance(25 * 3_600_000);
    expect(await service.scheduleDaily()).toBe(true);
    expect(await service.scheduleDaily()).toBe(false);
    const before = await auditCount(gateway, 'controls.compute');
    const deadline = Date.now() + 15_000;
    while ((await auditCount(gateway, 'controls.compute')) === before) {
      if (Date.now() > deadline) throw new Error('the job did not run');
      await gateway.app.services.worker.tick();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await service.scheduleDaily()).toBe(false);
  });
});
