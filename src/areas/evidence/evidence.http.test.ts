// Evidence packages over HTTP on both engines: built in the request and verifiable with
// sha256sum; a transient storage failure answers 202 and the job finishes it; a permanent one
// answers 503 and leaves a dead job that retry brings back.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { strFromU8, strToU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { entryHash } from '../audit/log.js';
import { verifyEvidenceFiles } from '../audit/offline.js';
import type { EvidenceStorage } from './storage.js';

/** Wraps the gateway's real file storage; each queued error is thrown by one put. */
class FlakyStorage implements EvidenceStorage {
  readonly failures: Error[] = [];
  private inner: EvidenceStorage | undefined;
  use(inner: EvidenceStorage): void {
    this.inner = inner;
  }
  async put(name: string, bytes: Uint8Array): Promise<void> {
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    return this.inner?.put(name, bytes);
  }
  async get(name: string): Promise<Uint8Array> {
    if (this.inner === undefined) throw new Error('no storage');
    return this.inner.get(name);
  }
}

const failure = (code: string) => Object.assign(new Error(code === 'EBUSY' ? 'busy' : 'permission denied'), { code });
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function auditCount(gateway: TestGateway): Promise<number> {
  return Number((await gateway.store.db.selectFrom('audit_entries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** Runs the worker until `done` holds (the in-process loop may get there first; ticks never overlap). */
async function runJobsUntil(gateway: TestGateway, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('the job did not get there in 15 s');
    gateway.clock.advance(5_000);
    await gateway.app.services.worker.tick();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function packageOf(gateway: TestGateway, id: string): Promise<any> {
  const listed = await json(gateway.request('/api/evidence?limit=500'));
  return listed.items.find((item: { id: string }) => item.id === id);
}

describe.each(DIALECTS)('evidence packages (%s)', (dialect) => {
  const storage = new FlakyStorage();
  const ctx = withGateway({ dialect, evidenceStorage: storage });
  const files = async () => {
    const { FileEvidenceStorage } = await import('./storage.js');
    storage.use(new FileEvidenceStorage(path.join(ctx.gateway.config.data_dir, 'evidence')));
  };

  it('builds a package in the request (201) whose every file matches the manifest and passes sha256sum -c', async () => {
    await files();
    // Registered: findings name the agent only for registered agents (others are agent:None).
    expect((await ctx.gateway.request('/api/agents', { method: 'POST', json: { slug: 'ledger-bot', owner_email: 'ops@example.com' } })).status).toBe(201);
    for (const [agent, content] of [
      ['ledger-bot', 'my SSN is 123-45-6789'],
      ['ledger-bot', 'hello there'],
      ['other-bot', 'unrelated'],
    ]) {
      expect((await ctx.gateway.request('/v1/guard/input', { method: 'POST', json: { agent, content } })).status).toBe(200);
    }
    await ctx.gateway.app.services.recorder.flush();
    expect((await ctx.gateway.request('/api/policies/baseline/mode', { method: 'POST', json: { mode: 'enforce' } })).status).toBe(200);

    const response = await ctx.gateway.request('/api/evidence', { method: 'POST', json: { agents: ['ledger-bot'], controls: ['AC-2', 'AU-6'] } });
    expect(response.status).toBe(201);
    const created = await json(response);
    expect(created).toMatchObject({ status: 'ready', scope: { agents: ['ledger-bot'], controls: ['AC-2', 'AU-6'] }, job_id: null, error: null });
    expect(created.id).toMatch(/^evp_/);
    expect(created.counts.decisions).toBe(2);
    expect(created.counts.findings).toBeGreaterThanOrEqual(1);
    expect(created.counts.policies).toBeGreaterThanOrEqual(4);
    expect(created.checkpoint_id).toEqual(expect.any(String));
    expect(Date.parse(created.scope.period_to) - Date.parse(created.scope.period_from)).toBe(30 * 86_400_000);

    const download = await ctx.gateway.request(`/api/evidence/${created.id}/download`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/zip');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="${created.id}.zip"`);
    const zip = new Uint8Array(await download.arrayBuffer());
    expect(zip.length).toBe(created.size_bytes);
    const unzipped = unzipSync(zip);
    expect(Object.keys(unzipped).sort()).toEqual([
      'SHA256SUMS',
      'VERIFY.txt',
      'approvals.jsonl',
      'audit-checkpoints.jsonl',
      'audit.jsonl',
      'control-results.jsonl',
      'decisions.jsonl',
      'findings.jsonl',
      'framework-status.jsonl',
      'manifest.json',
      'policies.jsonl',
    ]);
    const manifestBytes = unzipped['manifest.json'] as Uint8Array;
    expect(sha256(manifestBytes)).toBe(created.manifest_sha256);
    const manifest = JSON.parse(strFromU8(manifestBytes));
    expect(manifest).toMatchObject({ package_id: created.id, scope: created.scope, counts: created.counts, checkpoint: { id: created.checkpoint_id } });
    for (const file of manifest.files) {
      const bytes = unzipped[file.name] as Uint8Array;
      expect(sha256(bytes), file.name).toBe(file.sha256);
      expect(bytes.length).toBe(file.bytes);
      expect(strFromU8(bytes).split('\n').filter(Boolean)).toHaveLength(file.records);
    }
    const lines = (name: string) => strFromU8(unzipped[name] as Uint8Array).split('\n').filter(Boolean).map((line) => JSON.parse(line));
    // The compliance files: no control computed yet in this period, the framework status of every framework.
    expect(lines('control-results.jsonl')).toEqual([]);
    expect(lines('framework-status.jsonl').map((row) => row.key).sort()).toEqual(['eu-ai-act', 'iso-42001', 'nist-ai-rmf', 'owasp-llm-2025']);
    expect(lines('decisions.jsonl').map((row) => row.agent)).toEqual(['ledger-bot', 'ledger-bot']);
    expect(Array.isArray(lines('decisions.jsonl')[0].rules)).toBe(true);
    expect(lines('policies.jsonl').find((row) => row.key === 'baseline')).toMatchObject({ mode: 'enforce', stored_state: { mode: 'enforce' } });
    // The checkpoint covers the audit entries in the package.
    const audit = lines('audit.jsonl');
    expect(audit.some((entry) => entry.action === 'policy.mode' && entry.target === 'baseline')).toBe(true);
    expect(Math.max(...audit.map((entry) => entry.seq))).toBeLessThanOrEqual(manifest.checkpoint.seq);
    // What an auditor needs offline: the entries up to the checkpoint, the checkpoints, the public key, the algorithm.
    expect(audit.at(-1)).toMatchObject({ seq: manifest.checkpoint.seq, action: 'audit.checkpoint', target: manifest.checkpoint.id });
    expect(lines('audit-checkpoints.jsonl').map((row) => row.id)).toContain(manifest.checkpoint.id);
    expect(manifest.audit).toMatchObject({ first_seq: audit[0].seq, last_seq: manifest.checkpoint.seq, public_key: { algorithm: 'ed25519', key_id: manifest.checkpoint.key_id } });
    expect(manifest.audit.algorithm).toContain('RFC 8785');
    expect(strFromU8(unzipped['VERIFY.txt'] as Uint8Array)).toContain('Ed25519');
    expect(verifyEvidenceFiles(new Map(Object.entries(unzipped)))).toMatchObject({ ok: true });

    // The documented check: unzip pkg.zip -d pkg && (cd pkg && sha256sum -c SHA256SUMS).
    const dir = mkdtempSync(path.join(tmpdir(), 'parapet-evidence-'));
    try {
      for (const [name, bytes] of Object.entries(unzipped)) writeFileSync(path.join(dir, name), bytes);
      const checked = execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dir, encoding: 'utf8' });
      expect(checked.trim().split('\n').sort()).toEqual(
        [
          'VERIFY.txt',
          'approvals.jsonl',
          'audit-checkpoints.jsonl',
          'audit.jsonl',
          'control-results.jsonl',
          'decisions.jsonl',
          'findings.jsonl',
          'framework-status.jsonl',
          'manifest.json',
          'policies.jsonl',
        ].map(
          (name) => `${name}: OK`,
        ),
      );
      writeFileSync(path.join(dir, 'decisions.jsonl'), '{"tampered":true}\n');
      expect(() => execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dir, stdio: 'pipe' })).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const listed = await json(ctx.gateway.request('/api/evidence'));
    expect(listed.items[0]).toMatchObject({ id: created.id, status: 'ready' });
    const entry = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'evidence.create').where('target', '=', created.id).executeTakeFirst();
    expect(entry).toBeDefined();
  });

  it('checks offline: an audit entry altered in the package fails, even with SHA256SUMS and later hashes redone', async () => {
    await files();
    await ctx.gateway.app.services.audit.append({ actor: 'ops', action: 'policy.mode', target: 'offline-check', detail: { mode: 'enforce' } });
    const created = await json(ctx.gateway.request('/api/evidence', { method: 'POST', json: {} }));
    const unzipped = unzipSync(new Uint8Array(await (await ctx.gateway.request(`/api/evidence/${created.id}/download`)).arrayBuffer()));
    const pristine = new Map(Object.entries(unzipped));
    expect(verifyEvidenceFiles(pristine)).toMatchObject({ ok: true });

    const entries = strFromU8(unzipped['audit.jsonl'] as Uint8Array).split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const victim = entries.findIndex((entry) => entry.target === 'offline-check');
    expect(victim).toBeGreaterThanOrEqual(0);
    entries[victim].detail = { mode: 'monitor' };
    const withEntries = (rows: unknown[]) => {
      const tampered = new Map(pristine);
      const bytes = strToU8(rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
      tampered.set('audit.jsonl', bytes);
      // The forger redoes SHA256SUMS too (manifest.json is not changed, so its line stays).
      const sums = strFromU8(pristine.get('SHA256SUMS') as Uint8Array).replace(/^[0-9a-f]{64} {2}audit\.jsonl$/m, `${sha256(bytes)}  audit.jsonl`);
      tampered.set('SHA256SUMS', strToU8(sums));
      return tampered;
    };

    const altered = verifyEvidenceFiles(withEntries(entries));
    expect(altered.ok).toBe(false);
    expect(altered.lines.join('\n')).toContain(`seq ${entries[victim].seq} (${entries[victim].id}) does not match its hash`);

    // Every later hash recomputed: the chain is consistent again, but the signed checkpoint is not.
    let prevHash = entries[victim].prev_hash;
    for (const entry of entries.slice(victim)) {
      entry.prev_hash = prevHash;
      entry.hash = entryHash(prevHash, { seq: entry.seq, id: entry.id, at: entry.at, actor: entry.actor, action: entry.action, target: entry.target, detail: entry.detail });
      prevHash = entry.hash;
    }
    const rehashed = verifyEvidenceFiles(withEntries(entries));
    expect(rehashed.ok).toBe(false);
    expect(rehashed.lines.join('\n')).toContain('is not the one it sealed');

    // The forger also moves every checkpoint onto the new hashes and relabels them as old HMAC
    // checkpoints (which only the gateway can check), redoing SHA256SUMS for every file changed.
    const byHash = new Map(entries.map((entry) => [entry.seq, entry.hash]));
    const relabel = (checkpoint: any) => ({ ...checkpoint, hash: byHash.get(checkpoint.seq) ?? checkpoint.hash, algorithm: 'hmac-sha256' });
    const relabelled = withEntries(entries);
    const checkpointLines = strFromU8(pristine.get('audit-checkpoints.jsonl') as Uint8Array).split('\n').filter(Boolean);
    relabelled.set('audit-checkpoints.jsonl', strToU8(checkpointLines.map((line) => `${JSON.stringify(relabel(JSON.parse(line)))}\n`).join('')));
    const manifest = JSON.parse(strFromU8(pristine.get('manifest.json') as Uint8Array));
    relabelled.set('manifest.json', strToU8(JSON.stringify({ ...manifest, checkpoint: relabel(manifest.checkpoint) })));
    let sums = strFromU8(relabelled.get('SHA256SUMS') as Uint8Array);
    for (const name of ['audit-checkpoints.jsonl', 'manifest.json']) {
      sums = sums.replace(new RegExp(`^[0-9a-f]{64} {2}${name.replace('.', '\\.')}$`, 'm'), `${sha256(relabelled.get(name) as Uint8Array)}  ${name}`);
    }
    relabelled.set('SHA256SUMS', strToU8(sums));
    const downgraded = verifyEvidenceFiles(relabelled);
    expect(downgraded.ok).toBe(false);
    expect(downgraded.lines.join('\n')).toContain('the package checkpoint');
    expect(downgraded.lines.join('\n')).toContain('is not signed with');
  });

  it('refuses a backwards or over-long period (400) before doing anything, and answers 404 for an unknown package', async () => {
    const before = await auditCount(ctx.gateway);
    const backwards = await ctx.gateway.request('/api/evidence', { method: 'POST', json: { period_from: '2026-03-01T00:00:00Z', period_to: '2026-02-01T00:00:00Z' } });
    expect(backwards.status).toBe(400);
    expect(backwards.headers.get('content-type')).toContain('application/problem+json');
    expect((await json(backwards)).errors[0].field).toBe('/body/period_from');
    const long = await ctx.gateway.request('/api/evidence', { method: 'POST', json: { period_from: '2024-01-01', period_to: '2025-06-01' } });
    expect(long.status).toBe(400);
    expect((await ctx.gateway.request('/api/evidence', { method: 'POST', json: { period_to: 'yesterday' } })).status).toBe(400);
    expect((await ctx.gateway.request('/api/evidence', { method: 'POST', json: { agents: 'ledger-bot' } })).status).toBe(400);
    expect(await auditCount(ctx.gateway)).toBe(before);
    expect((await ctx.gateway.request('/api/evidence/evp_00000000000000000000000000/download')).status).toBe(404);
    const dated = await ctx.gateway.request('/api/evidence', { method: 'POST', json: { period_from: '2026-01-01', period_to: '2026-01-31' } });
    expect(dated.status).toBe(201);
    expect((await json(dated)).scope).toMatchObject({ period_from: '2026-01-01T00:00:00.000Z', period_to: '2026-01-31T23:59:59.999Z' });
  });

  it('answers 202 queued_for_retry on a transient storage failure; the evidence.build job finishes it later', async () => {
    await files();
    storage.failures.push(failure('EBUSY'));
    const response = await ctx.gateway.request('/api/evidence', { method: 'POST', json: { controls: ['AU-6'] } });
    expect(response.status).toBe(202);
    const queued = await json(response);
    expect(queued).toEqual({ id: expect.stringMatching(/^evp_/), status: 'queued_for_retry', job_id: expect.stringMatching(/^job_/) });
    const job = await json(ctx.gateway.request(`/api/jobs/${queued.job_id}`));
    expect(job).toMatchObject({ kind: 'evidence.build', status: 'queued', attempts: 0, max_attempts: 2, payload: { package_id: queued.id } });
    // Retried later, with backoff: the job is not due yet.
    expect(Date.parse(job.run_after)).toBeGreaterThan(Date.parse(job.created_at));
    const notReady = await ctx.gateway.request(`/api/evidence/${queued.id}/download`);
    expect(notReady.status).toBe(409);
    expect(await packageOf(ctx.gateway, queued.id)).toMatchObject({ status: 'queued_for_retry', job_id: queued.job_id, error: 'EBUSY: busy' });

    await runJobsUntil(ctx.gateway, async () => (await packageOf(ctx.gateway, queued.id)).status === 'ready');
    expect(await json(ctx.gateway.request(`/api/jobs/${queued.job_id}`))).toMatchObject({ status: 'done', attempts: 1, result: { package_id: queued.id, status: 'ready' } });
    const zip = new Uint8Array(await (await ctx.gateway.request(`/api/evidence/${queued.id}/download`)).arrayBuffer());
    expect(JSON.parse(strFromU8(unzipSync(zip)['manifest.json'] as Uint8Array)).package_id).toBe(queued.id);
  });

  it('retries a transient failure once more with backoff, then the job is dead and the package failed', async () => {
    await files();
    storage.failures.push(failure('EBUSY'), failure('ENOSPC'), failure('EBUSY'));
    const queued = await json(ctx.gateway.request('/api/evidence', { method: 'POST', json: {} }));
    expect(queued.status).toBe('queued_for_retry');
    await runJobsUntil(ctx.gateway, async () => (await json(ctx.gateway.request(`/api/jobs/${queued.job_id}`))).status === 'dead');
    expect(await json(ctx.gateway.request(`/api/jobs/${queued.job_id}`))).toMatchObject({ attempts: 2, last_error: 'EBUSY: busy' });
    expect(await packageOf(ctx.gateway, queued.id)).toMatchObject({ status: 'failed', job_id: queued.job_id });
    expect(storage.failures).toHaveLength(0);
  });

  it('answers 503 on a permanent failure with a dead job listed in GET /api/jobs; retrying the job builds the package', async () => {
    await files();
    storage.failures.push(failure('EACCES'));
    const response = await ctx.gateway.request('/api/evidence', { method: 'POST', json: { agents: ['ledger-bot'] } });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    const problem = await json(response);
    expect(problem).toMatchObject({ status: 503, type: 'urn:parapet:problem:unavailable' });
    const jobId = /job_[0-9a-z]{26}/.exec(problem.detail)?.[0] ?? '';
    expect(problem.detail).toContain('EACCES');

    const jobs = await json(ctx.gateway.request('/api/jobs'));
    expect(jobs.items.find((job: { id: string }) => job.id === jobId)).toMatchObject({ kind: 'evidence.build', status: 'dead', attempts: 1, last_error: 'EACCES: permission denied' });
    const dead = await json(ctx.gateway.request('/api/jobs?status=dead&kind=evidence.build'));
    expect(dead.items.map((job: { id: string }) => job.id)).toContain(jobId);
    const packageId = (await json(ctx.gateway.request(`/api/jobs/${jobId}`))).payload.package_id;
    expect(await packageOf(ctx.gateway, packageId)).toMatchObject({ status: 'failed', job_id: jobId });
    expect((await ctx.gateway.request(`/api/evidence/${packageId}/download`)).status).toBe(409);

    const retried = await ctx.gateway.request(`/api/jobs/${jobId}/retry`, { method: 'POST' });
    expect(retried.status).toBe(200);
    expect(await json(retried)).toMatchObject({ status: 'queued', attempts: 0 });
    await runJobsUntil(ctx.gateway, async () => (await packageOf(ctx.gateway, packageId)).status === 'ready');
    expect((await ctx.gateway.request(`/api/evidence/${packageId}/download`)).status).toBe(200);
  });
});
