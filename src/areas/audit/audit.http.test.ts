// The audit chain over HTTP: listing entries, signed checkpoints, and verification that names the
// first entry a database writer altered, deleted or reordered, on both engines.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, startGateway, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { Sealer } from '../../infra/lib/sealed.js';
import type { AuditEntryRow } from '../../infra/store/tables.js';
import { AuditCheckpoints, type Checkpoint } from './checkpoints.js';
import { GENESIS_HASH, entryHash } from './log.js';

const verify = (gateway: TestGateway, query = '', token?: string) =>
  json(gateway.request(`/api/audit/verify${query}`, { method: 'POST', ...(token === undefined ? {} : { token }) }));

async function appendMany(gateway: TestGateway, count: number, action = 'test.entry'): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    await gateway.app.services.audit.append({ actor: 'tester', action, target: `t-${index % 3}`, detail: { index, text: 'ünïcødé "quoted" \\ \u2028 😀' } });
  }
}

async function row(gateway: TestGateway, seq: number): Promise<AuditEntryRow> {
  return gateway.store.db.selectFrom('audit_entries').selectAll().where('seq', '=', seq).executeTakeFirstOrThrow();
}

async function head(gateway: TestGateway): Promise<number> {
  const last = await gateway.store.db.selectFrom('audit_entries').select('seq').orderBy('seq', 'desc').limit(1).executeTakeFirstOrThrow();
  return Number(last.seq);
}

async function viewerToken(gateway: TestGateway): Promise<string> {
  return (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'auditor', role: 'viewer' } }))).token;
}

/** Moves a row to another seq (the primary key), the way a database writer would reorder rows. */
async function moveSeq(gateway: TestGateway, from: number, to: number): Promise<void> {
  await gateway.store.db.updateTable('audit_entries').set({ seq: to }).where('seq', '=', from).execute();
}

describe.each(DIALECTS)('audit chain over HTTP (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('lists entries newest first with filters and a seq cursor; detail is an object', async () => {
    await appendMany(ctx.gateway, 12, 'test.list');
    const first = await json(ctx.gateway.request('/api/audit/entries?action=test.list&limit=5'));
    expect(first.items).toHaveLength(5);
    const seqs = first.items.map((item: { seq: number }) => item.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(first.items[0]).toMatchObject({ action: 'test.list', actor: 'tester', detail: { index: 11 } });
    expect(Object.keys(first.items[0]).sort()).toEqual(['action', 'actor', 'at', 'detail', 'hash', 'id', 'prev_hash', 'seq', 'target']);
    const second = await json(ctx.gateway.request(`/api/audit/entries?action=test.list&limit=5&cursor=${first.next_cursor}`));
    expect(second.items.map((item: { detail: { index: number } }) => item.detail.index)).toEqual([6, 5, 4, 3, 2]);
    const third = await json(ctx.gateway.request(`/api/audit/entries?action=test.list&limit=5&cursor=${second.next_cursor}`));
    expect(third.items).toHaveLength(2);
    expect(third.next_cursor).toBeNull();

    const byTarget = await json(ctx.gateway.request('/api/audit/entries?action=test.list&target=t-0&actor=tester'));
    expect(byTarget.items.map((item: { detail: { index: number } }) => item.detail.index)).toEqual([9, 6, 3, 0]);
    const lowest = Math.min(...third.items.map((item: { seq: number }) => item.seq));
    const range = await json(ctx.gateway.request(`/api/audit/entries?start_seq=${lowest}&end_seq=${lowest + 2}`));
    expect(range.items.map((item: { seq: number }) => item.seq)).toEqual([lowest + 2, lowest + 1, lowest]);

    expect((await ctx.gateway.request('/api/audit/entries?cursor=bm90LWEtc2Vx')).status).toBe(400);
    expect((await ctx.gateway.request('/api/audit/entries?limit=1001')).status).toBe(400);
    expect((await ctx.gateway.request('/api/audit/entries?start_seq=0')).status).toBe(400);
    expect((await ctx.gateway.request('/api/audit/entries', { token: await viewerToken(ctx.gateway) })).status).toBe(200);
  });

  it('verifies a clean chain, whole and by range, for a viewer', async () => {
    const viewer = await viewerToken(ctx.gateway);
    const last = await head(ctx.gateway);
    expect(await verify(ctx.gateway, '', viewer)).toEqual({ ok: true, checked: last, start_seq: 1, end_seq: last, first_bad: null, checkpoints: [], missing_checkpoints: [], head: null });
    // A range that starts mid-chain links its first entry to the stored hash of the one before.
    expect(await verify(ctx.gateway, '?start_seq=3&end_seq=7')).toMatchObject({ ok: true, checked: 5, start_seq: 3, end_seq: 7 });
    expect(await verify(ctx.gateway, `?start_seq=${last}`)).toMatchObject({ ok: true, checked: 1 });
    // Past the head: nothing to check, and the range ends at the head.
    expect(await verify(ctx.gateway, `?end_seq=${last + 100}`)).toMatchObject({ ok: true, checked: last, end_seq: last });
    const refused = await ctx.gateway.request('/api/audit/verify?start_seq=5&end_seq=4', { method: 'POST' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect((await ctx.gateway.request('/api/audit/verify?start_seq=0', { method: 'POST' })).status).toBe(400);
  });

  it('creates a checkpoint that seals the head including its own audit.checkpoint entry', async () => {
    const viewer = await viewerToken(ctx.gateway);
    expect((await ctx.gateway.request('/api/audit/checkpoint', { method: 'POST', token: viewer })).status).toBe(403);
    const before = await head(ctx.gateway);
    const response = await ctx.gateway.request('/api/audit/checkpoint', { method: 'POST' });
    expect(response.status).toBe(201);
    const checkpoint = (await response.json()) as Checkpoint;
    expect(checkpoint).toMatchObject({ seq: before + 1, key_id: expect.stringMatching(/^[0-9a-f]{16}$/), algorithm: 'ed25519', signature: expect.stringMatching(/^[\w-]{86}$/) });
    expect(checkpoint.id).toMatch(/^chk_/);
    const entry = await row(ctx.gateway, checkpoint.seq);
    expect(entry).toMatchObject({ action: 'audit.checkpoint', target: checkpoint.id, hash: checkpoint.hash });
    expect(checkpoint.created_by).toBe(entry.actor);
    const { auditCheckpoints } = ctx.gateway.app.services;
    expect(await auditCheckpoints.latest()).toEqual(checkpoint);
    expect(auditCheckpoints.verifySignature(checkpoint)).toBe(true);
    expect(auditCheckpoints.verifySignature({ ...checkpoint, at: new Date(0).toISOString() })).toBe(false);
    expect(auditCheckpoints.verifySignature({ ...checkpoint, signature: 'not hex' })).toBe(false);

    const result = await verify(ctx.gateway);
    expect(result).toMatchObject({ ok: true, first_bad: null });
    expect(result.checkpoints).toEqual([{ id: checkpoint.id, seq: checkpoint.seq, signature_valid: true, matches_chain: true }]);
    // A range that ends before the checkpoint does not report it.
    expect((await verify(ctx.gateway, `?end_seq=${checkpoint.seq - 1}`)).checkpoints).toEqual([]);
  });

  it('names an altered row: hash mismatch at its seq', async () => {
    const target = 4;
    const original = await row(ctx.gateway, target);
    await ctx.gateway.store.db.updateTable('audit_entries').set({ detail: '{"index":999}' }).where('seq', '=', target).execute();
    try {
      const result = await verify(ctx.gateway);
      expect(result).toMatchObject({ ok: false, checked: target, first_bad: { seq: target, id: original.id, reason: 'hash mismatch' } });
      // The entries after it still link to its stored hash: a range after it verifies.
      expect(await verify(ctx.gateway, `?start_seq=${target + 1}`)).toMatchObject({ ok: true });
      // Other fields are covered too.
      await ctx.gateway.store.db.updateTable('audit_entries').set({ detail: original.detail, actor: 'someone else' }).where('seq', '=', target).execute();
      expect((await verify(ctx.gateway)).first_bad).toEqual({ seq: target, id: original.id, reason: 'hash mismatch' });
    } finally {
      await ctx.gateway.store.db.updateTable('audit_entries').set({ detail: original.detail, actor: original.actor }).where('seq', '=', target).execute();
    }
    expect((await verify(ctx.gateway)).ok).toBe(true);
  });

  it('names a deleted row: a gap at the entry after it, also at the end of a range', async () => {
    const target = 6;
    const original = await row(ctx.gateway, target);
    const next = await row(ctx.gateway, target + 1);
    await ctx.gateway.store.db.deleteFrom('audit_entries').where('seq', '=', target).execute();
    try {
      expect(await verify(ctx.gateway)).toMatchObject({ ok: false, checked: target, first_bad: { seq: target + 1, id: next.id, reason: 'gap' } });
      // The missing entry is the last of the range, or the one before it.
      expect((await verify(ctx.gateway, `?end_seq=${target}`)).first_bad).toEqual({ seq: target + 1, id: next.id, reason: 'gap' });
      expect((await verify(ctx.gateway, `?start_seq=${target + 1}`)).first_bad).toEqual({ seq: target + 1, id: next.id, reason: 'gap' });
      expect(await verify(ctx.gateway, `?end_seq=${target - 1}`)).toMatchObject({ ok: true });
    } finally {
      await ctx.gateway.store.db.insertInto('audit_entries').values(original).execute();
    }
    expect((await verify(ctx.gateway)).ok).toBe(true);
  });

  it('names reordered rows: a broken link at the first moved seq', async () => {
    const [a, b] = [3, 8];
    const [rowA, rowB] = [await row(ctx.gateway, a), await row(ctx.gateway, b)];
    const swap = async () => {
      await moveSeq(ctx.gateway, a, -1);
      await moveSeq(ctx.gateway, b, a);
      await moveSeq(ctx.gateway, -1, b);
    };
    await swap();
    try {
      expect(await verify(ctx.gateway)).toMatchObject({ ok: false, checked: a, first_bad: { seq: a, id: rowB.id, reason: 'broken link' } });
      // A row renumbered into a hole also breaks the link: its prev_hash is not its new predecessor's hash.
      expect((await verify(ctx.gateway, `?start_seq=${b}`)).first_bad).toEqual({ seq: b, id: rowA.id, reason: 'broken link' });
    } finally {
      await swap();
    }
    expect((await verify(ctx.gateway)).ok).toBe(true);
  });

  it('names a first entry whose prev_hash is not the genesis hash', async () => {
    const first = await row(ctx.gateway, 1);
    expect(first.prev_hash).toBe(GENESIS_HASH);
    await ctx.gateway.store.db.updateTable('audit_entries').set({ prev_hash: 'f'.repeat(64) }).where('seq', '=', 1).execute();
    try {
      expect((await verify(ctx.gateway)).first_bad).toEqual({ seq: 1, id: first.id, reason: 'first entry prev_hash not genesis' });
    } finally {
      await ctx.gateway.store.db.updateTable('audit_entries').set({ prev_hash: GENESIS_HASH }).where('seq', '=', 1).execute();
    }
  });

  it('refuses a checkpoint whose signature or hash was edited in the database', async () => {
    const checkpoint = await json(ctx.gateway.request('/api/audit/checkpoint', { method: 'POST' }));
    const edit = (values: { signature?: string; hash?: string }) =>
      ctx.gateway.store.db.updateTable('audit_checkpoints').set(values).where('id', '=', checkpoint.id).execute();
    const reported = async () => (await verify(ctx.gateway)).checkpoints.find((item: { id: string }) => item.id === checkpoint.id);
    try {
      // Every other spelling of the last character (its unused bits included) and a changed middle one.
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const last = alphabet.indexOf(checkpoint.signature.at(-1) as string);
      const middle = checkpoint.signature.length >> 1;
      const edits = [
        // 64 bytes end in a character with 2 data bits: flipping an unused bit decodes to the same bytes.
        ...[last ^ 1, last ^ 16].map((index) => `${checkpoint.signature.slice(0, -1)}${alphabet[index]}`),
        `${checkpoint.signature.slice(0, middle)}${checkpoint.signature[middle] === 'A' ? 'B' : 'A'}${checkpoint.signature.slice(middle + 1)}`,
      ];
      for (const signature of edits) {
        await edit({ signature });
        expect(await reported()).toEqual({ id: checkpoint.id, seq: checkpoint.seq, signature_valid: false, matches_chain: true });
        expect((await verify(ctx.gateway)).ok).toBe(false);
      }
      await edit({ signature: checkpoint.signature, hash: 'a'.repeat(64) });
      expect(await reported()).toEqual({ id: checkpoint.id, seq: checkpoint.seq, signature_valid: false, matches_chain: false });
    } finally {
      await edit({ signature: checkpoint.signature, hash: checkpoint.hash });
    }
    expect(await verify(ctx.gateway)).toMatchObject({ ok: true, first_bad: null });
  });

  it('catches, by its checkpoint, a chain rewritten consistently after it and a cut-off tail', async () => {
    const checkpoint = await json(ctx.gateway.request('/api/audit/checkpoint', { method: 'POST' }));
    await appendMany(ctx.gateway, 3, 'test.tail');
    const saved = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('seq', '>=', checkpoint.seq - 2).orderBy('seq').execute();
    try {
      // Someone with database access alters an entry before the checkpoint and re-hashes
      // everything after it: every link holds, but the checkpoint's hash is no longer in the chain.
      let previous = (await row(ctx.gateway, checkpoint.seq - 3)).hash;
      for (const entry of saved) {
        const detail = entry.seq === checkpoint.seq - 2 ? { rewritten: true } : JSON.parse(entry.detail);
        const hash = entryHash(previous, { seq: Number(entry.seq), id: entry.id, at: entry.at, actor: entry.actor, action: entry.action, target: entry.target, detail });
        await ctx.gateway.store.db.updateTable('audit_entries').set({ detail: JSON.stringify(detail), prev_hash: previous, hash }).where('seq', '=', entry.seq).execute();
        previous = hash;
      }
      const rewritten = await verify(ctx.gateway);
      expect(rewritten.first_bad).toBeNull();
      expect(rewritten.ok).toBe(false);
      expect(rewritten.checkpoints.find((item: { id: string }) => item.id === checkpoint.id)).toMatchObject({ signature_valid: true, matches_chain: false });
    } finally {
      for (const entry of saved) {
        await ctx.gateway.store.db.updateTable('audit_entries').set({ detail: entry.detail, prev_hash: entry.prev_hash, hash: entry.hash }).where('seq', '=', entry.seq).execute();
      }
    }
    expect((await verify(ctx.gateway)).ok).toBe(true);

    // Deleting the newest entries leaves a shorter chain that verifies; the checkpoint beyond it does not.
    await ctx.gateway.store.db.deleteFrom('audit_entries').where('seq', '>=', checkpoint.seq).execute();
    try {
      const cut = await verify(ctx.gateway);
      expect(cut).toMatchObject({ ok: false, first_bad: null, end_seq: checkpoint.seq - 1 });
      expect(cut.checkpoints.find((item: { id: string }) => item.id === checkpoint.id)).toMatchObject({ signature_valid: true, matches_chain: false });
    } finally {
      await ctx.gateway.store.db.insertInto('audit_entries').values(saved.filter((entry) => entry.seq >= checkpoint.seq)).execute();
    }
    expect((await verify(ctx.gateway)).ok).toBe(true);
  });

  it('does not accept a checkpoint made under another secret key', async () => {
    const { store, app } = ctx.gateway;
    const sealer = (secretKey: string) => new Sealer({ secretKey, dataDir: mkdtempSync(path.join(tmpdir(), 'parapet-key-')) });
    const mine = new AuditCheckpoints(store, app.services.audit, sealer('a'.repeat(32) + '-first-gateway-key'), app.services.clock);
    const theirs = new AuditCheckpoints(store, app.services.audit, sealer('b'.repeat(32) + '-other-gateway-key'), app.services.clock);
    const checkpoint = await mine.create('test');
    expect(mine.verifySignature(checkpoint)).toBe(true);
    expect(theirs.verifySignature(checkpoint)).toBe(false);
    // Even relabelled with the other key's id, the signature does not verify.
    const relabelled = await theirs.create('test');
    expect(theirs.verifySignature({ ...checkpoint, key_id: relabelled.key_id })).toBe(false);
    expect(checkpoint.key_id).not.toBe(relabelled.key_id);
    // The gateway's own key is neither of these: over HTTP both show as not signed by it.
    const reported = (await verify(ctx.gateway)).checkpoints.filter((item: { id: string }) => [checkpoint.id, relabelled.id].includes(item.id));
    expect(reported).toEqual([
      { id: checkpoint.id, seq: checkpoint.seq, signature_valid: false, matches_chain: true },
      { id: relabelled.id, seq: relabelled.seq, signature_valid: false, matches_chain: true },
    ]);
    await store.db.deleteFrom('audit_checkpoints').where('id', 'in', [checkpoint.id, relabelled.id]).execute();
  });
});

describe('two gateways with different secret keys on one PostgreSQL database', () => {
  it("verifies a checkpoint only under the key of the gateway that made it", async () => {
    const first = await startGateway({ dialect: 'postgres', overrides: { secret_key: 'first-gateway-secret-key-0123456789abcdef' } });
    try {
      const second = await startGateway({
        dialect: 'postgres',
        databaseUrl: first.config.database_url as string,
        overrides: { secret_key: 'second-gateway-secret-key-0123456789abcdef' },
      });
      try {
        const checkpoint = await json(first.request('/api/audit/checkpoint', { method: 'POST' }));
        const seen = (gateway: TestGateway) => verify(gateway).then((result) => result.checkpoints.find((item: { id: string }) => item.id === checkpoint.id));
        expect(await seen(first)).toMatchObject({ signature_valid: true, matches_chain: true });
        expect(await seen(second)).toMatchObject({ signature_valid: false, matches_chain: true });
        expect((await verify(second)).first_bad).toBeNull();
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
