// The audit chain against accidents and against someone with write access to the database, on both
// engines, through the real routes; tampering is done with SQL on the gateway's own database.
// Text that the databases cannot store as sent (lone surrogates, NUL) must not break the chain;
// checkpoints deleted, altered or forged, and chains rewritten and re-hashed, must not verify.
import { createHash, createHmac, generateKeyPairSync, hkdfSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator, type Selectable } from 'kysely';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, startGateway, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { createTestDatabase } from '../../../test/helpers/postgres.js';
import { Store } from '../../infra/store/db.js';
import { migrations } from '../../infra/store/migrations/index.js';
import type { AuditCheckpointsTable, AuditEntriesTable } from '../../infra/store/tables.js';
import { CHECKPOINT_KEY_PURPOSE } from './checkpoints.js';
import { entryHash, GENESIS_HASH } from './log.js';
import { publicKeyId, signCheckpoint } from './signing.js';

type EntryRow = Selectable<AuditEntriesTable>;
type CheckpointRow = Selectable<AuditCheckpointsTable>;

async function snapshot(gateway: TestGateway): Promise<{ entries: EntryRow[]; checkpoints: CheckpointRow[] }> {
  const db = gateway.store.db;
  return {
    entries: await db.selectFrom('audit_entries').selectAll().orderBy('seq').execute(),
    checkpoints: await db.selectFrom('audit_checkpoints').selectAll().orderBy('seq').execute(),
  };
}

async function restore(gateway: TestGateway, saved: { entries: EntryRow[]; checkpoints: CheckpointRow[] }): Promise<void> {
  await gateway.store.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('audit_checkpoints').execute();
    await trx.deleteFrom('audit_entries').execute();
    for (const row of saved.entries) await trx.insertInto('audit_entries').values(row).execute();
    for (const row of saved.checkpoints) await trx.insertInto('audit_checkpoints').values(row).execute();
  });
}

/** What an attacker with write access does after changing entry `fromSeq`: recompute every hash from there on. */
async function rehashFrom(gateway: TestGateway, fromSeq: number): Promise<void> {
  const db = gateway.store.db;
  const rows = await db.selectFrom('audit_entries').selectAll().where('seq', '>=', fromSeq).orderBy('seq').execute();
  let prevHash = fromSeq === 1 ? GENESIS_HASH : (await db.selectFrom('audit_entries').select('hash').where('seq', '=', fromSeq - 1).executeTakeFirstOrThrow()).hash;
  for (const row of rows) {
    const hash = entryHash(prevHash, { seq: Number(row.seq), id: row.id, at: row.at, actor: row.actor, action: row.action, target: row.target, detail: JSON.parse(row.detail) });
    await db.updateTable('audit_entries').set({ prev_hash: prevHash, hash }).where('seq', '=', row.seq).execute();
    prevHash = hash;
  }
}

describe.each(DIALECTS)('audit chain integrity (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  let clean: { entries: EntryRow[]; checkpoints: CheckpointRow[] };
  const verify = (body: unknown = {}) => json(ctx.gateway.request('/api/audit/verify', { method: 'POST', json: body }));
  const checkpoint = async () => {
    const response = await ctx.gateway.request('/api/audit/checkpoint', { method: 'POST', json: {} });
    expect(response.status).toBe(201);
    return json(response);
  };
  const exportHead = async () => {
    const response = await ctx.gateway.request('/api/audit/head');
    expect(response.status).toBe(200);
    return json(response);
  };
  const entryOfCheckpoint = async (id: string) =>
    ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'audit.checkpoint').where('target', '=', id).executeTakeFirstOrThrow();

  beforeAll(async () => {
    // Before the first checkpoint there is no head to export.
    const none = await ctx.gateway.request('/api/audit/head');
    expect(none.status).toBe(404);
    expect(none.headers.get('content-type')).toContain('application/problem+json');
  });
  afterEach(async () => {
    if (clean !== undefined) await restore(ctx.gateway, clean);
  });

  it('keeps verifying after entries with lone surrogates, NUL and astral characters in every field', async () => {
    const registered = await ctx.gateway.request('/api/tools', { method: 'POST', json: { key: 'tool\ud800x' } });
    expect(registered.status).toBeLessThan(300);
    const audit = ctx.gateway.app.services.audit;
    const awkward = ['high \ud800 alone', 'low \udc00 alone', 'nul \u0000 inside', 'astral \u{1F600} and \u{10FFFF}', 'reversed \udc00\ud800 pair'];
    for (const text of awkward) {
      await audit.append({ actor: `actor ${text}`, action: `action ${text}`, target: `target ${text}`, detail: { [`key ${text}`]: text, nested: [text, { deeper: text }] } });
    }
    const result = await verify();
    expect(result).toMatchObject({ ok: true, first_bad: null });

    // What is stored is what was hashed: the storable form, the same on both engines.
    const stored = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('target', 'like', 'target high%').executeTakeFirstOrThrow();
    expect(stored.target).toBe('target high \uFFFD alone');
    expect(JSON.parse(stored.detail)).toEqual({ 'key high \uFFFD alone': 'high \uFFFD alone', nested: ['high \uFFFD alone', { deeper: 'high \uFFFD alone' }] });
    const tool = await ctx.gateway.store.db.selectFrom('audit_entries').select('target').where('target', 'like', 'tool%').executeTakeFirstOrThrow();
    expect(tool.target).toBe('tool\uFFFDx');
    const astral = await ctx.gateway.store.db.selectFrom('audit_entries').select('actor').where('target', 'like', 'target astral%').executeTakeFirstOrThrow();
    expect(astral.actor).toBe('actor astral \u{1F600} and \u{10FFFF}');
  });

  it('publishes the signed head with an Ed25519 public key, listed in /openapi.json', async () => {
    const made = await checkpoint();
    expect(made).toMatchObject({ algorithm: 'ed25519', key_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const head = await exportHead();
    expect(head.checkpoint).toEqual(made);
    expect(head.public_key).toMatchObject({ algorithm: 'ed25519', key_id: made.key_id });
    expect(head.public_key.public_key_pem).toContain('BEGIN PUBLIC KEY');
    expect(await verify({ head })).toMatchObject({ ok: true, head: { id: made.id, signature_valid: true, matches_chain: true, stored: true } });
    const openapi = await json(ctx.gateway.request('/openapi.json', { token: null }));
    expect(openapi.paths['/api/audit/head'].get.responses['200']).toBeDefined();
    clean = await snapshot(ctx.gateway);
  });

  it('fails naming a checkpoint whose row was deleted while its entry names it', async () => {
    const made = await checkpoint();
    clean = await snapshot(ctx.gateway);
    await ctx.gateway.store.db.deleteFrom('audit_checkpoints').where('id', '=', made.id).execute();
    const result = await verify();
    expect(result.ok).toBe(false);
    expect(result.first_bad).toBeNull();
    expect(result.missing_checkpoints).toEqual([{ id: made.id, seq: made.seq }]);
  });

  it('fails the signature of a checkpoint altered in the database', async () => {
    const made = await checkpoint();
    clean = await snapshot(ctx.gateway);
    await ctx.gateway.store.db.updateTable('audit_checkpoints').set({ at: '2020-01-01T00:00:00.000Z' }).where('id', '=', made.id).execute();
    const result = await verify();
    expect(result.ok).toBe(false);
    expect(result.checkpoints.find((item: { id: string }) => item.id === made.id)).toMatchObject({ signature_valid: false, matches_chain: true });
  });

  it('fails a checkpoint forged with another key, and one moved onto another entry', async () => {
    const made = await checkpoint();
    clean = await snapshot(ctx.gateway);
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const forgedKey = { keyId: publicKeyId(publicKey), privateKey, info: { algorithm: 'ed25519' as const, key_id: publicKeyId(publicKey), public_key_pem: '' } };
    const unsigned = { id: made.id, seq: made.seq, hash: made.hash, at: made.at, key_id: forgedKey.keyId };
    await ctx.gateway.store.db
      .updateTable('audit_checkpoints')
      .set({ key_id: forgedKey.keyId, signature: signCheckpoint(forgedKey, unsigned) })
      .where('id', '=', made.id)
      .execute();
    const forged = await verify();
    expect(forged.ok).toBe(false);
    expect(forged.checkpoints.find((item: { id: string }) => item.id === made.id)).toMatchObject({ signature_valid: false });

    // A valid signature over another entry's seq and hash does not pass for this checkpoint either.
    await restore(ctx.gateway, clean);
    const other = await ctx.gateway.store.db.selectFrom('audit_entries').select(['seq', 'hash']).where('seq', '=', made.seq - 1).executeTakeFirstOrThrow();
    await ctx.gateway.store.db.updateTable('audit_checkpoints').set({ seq: other.seq, hash: other.hash }).where('id', '=', made.id).execute();
    const moved = await verify();
    expect(moved.ok).toBe(false);
    expect(moved.missing_checkpoints).toEqual([{ id: made.id, seq: made.seq }]);
  });

  it('fails when an entry is rewritten and the rest re-hashed: the signed checkpoint hash disagrees', async () => {
    await ctx.gateway.app.services.audit.append({ actor: 'ops', action: 'policy.mode', target: 'baseline', detail: { mode: 'enforce' } });
    const made = await checkpoint();
    clean = await snapshot(ctx.gateway);
    const victim = await ctx.gateway.store.db.selectFrom('audit_entries').select('seq').where('action', '=', 'policy.mode').orderBy('seq', 'desc').executeTakeFirstOrThrow();
    await ctx.gateway.store.db.updateTable('audit_entries').set({ detail: '{"mode":"monitor"}' }).where('seq', '=', victim.seq).execute();
    await rehashFrom(ctx.gateway, Number(victim.seq));
    const result = await verify();
    expect(result.first_bad).toBeNull();
    expect(result.ok).toBe(false);
    expect(result.checkpoints.find((item: { id: string }) => item.id === made.id)).toMatchObject({ signature_valid: true, matches_chain: false });
  });

  it('detects a full cover-up (rewrite, re-hash, checkpoint rows and their entries removed) with a head exported before', async () => {
    await ctx.gateway.app.services.audit.append({ actor: 'ops', action: 'policy.mode', target: 'baseline', detail: { mode: 'enforce' } });
    await checkpoint();
    const head = await exportHead();
    clean = await snapshot(ctx.gateway);

    const db = ctx.gateway.store.db;
    const victim = await db.selectFrom('audit_entries').select('seq').where('action', '=', 'policy.mode').orderBy('seq', 'desc').executeTakeFirstOrThrow();
    await db.updateTable('audit_entries').set({ detail: '{"mode":"monitor"}' }).where('seq', '=', victim.seq).execute();
    // Every trace of the checkpoints goes: their rows, and their entries turned into something else.
    await db.deleteFrom('audit_checkpoints').execute();
    await db.updateTable('audit_entries').set({ action: 'tool.register', target: 'noise', detail: '{}' }).where('action', '=', 'audit.checkpoint').execute();
    await rehashFrom(ctx.gateway, 1);

    // What the database alone says: this is why the head is worth keeping elsewhere.
    expect((await verify()).ok).toBe(true);
    const withHead = await verify({ head });
    expect(withHead.ok).toBe(false);
    expect(withHead.head).toMatchObject({ id: head.checkpoint.id, signature_valid: true, matches_chain: false, stored: false });

    // A head whose signature was made up does not pass either.
    await restore(ctx.gateway, clean);
    const madeUp = { ...head, checkpoint: { ...head.checkpoint, seq: head.checkpoint.seq - 1 } };
    expect(await verify({ head: madeUp })).toMatchObject({ ok: false, head: { signature_valid: false } });
    expect(await verify({ head })).toMatchObject({ ok: true });
  });

  it('refuses a malformed head with a 400 problem, and answers a made-up one without a 500', async () => {
    const response = await ctx.gateway.request('/api/audit/verify', { method: 'POST', json: { head: { checkpoint: { id: 'x' } } } });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    const head = await exportHead();
    const strange = { ...head, checkpoint: { ...head.checkpoint, id: 'chk_\u0000\ud800', signature: '\u0000', key_id: 'zz', algorithm: 'hmac-sha256' } };
    const answered = await ctx.gateway.request('/api/audit/verify', { method: 'POST', json: { head: strange } });
    expect(answered.status).toBe(200);
    expect(await json(answered)).toMatchObject({ ok: false, head: { signature_valid: false, stored: false } });
  });

  it('still checks an entry of the chain rewritten through the audit entry of a checkpoint', async () => {
    const made = await checkpoint();
    clean = await snapshot(ctx.gateway);
    const entry = await entryOfCheckpoint(made.id);
    await ctx.gateway.store.db.updateTable('audit_entries').set({ target: 'chk_somethingelse' }).where('id', '=', entry.id).execute();
    await rehashFrom(ctx.gateway, Number(entry.seq));
    const result = await verify();
    expect(result.ok).toBe(false);
    expect(result.missing_checkpoints).toEqual([{ id: 'chk_somethingelse', seq: Number(entry.seq) }]);
  });
});

describe.each(DIALECTS)('checkpoints made before Ed25519 (%s)', (dialect) => {
  it('still verify after the migration that adds the algorithm column', async () => {
    const secret = 'legacy-checkpoint-secret-0123456789abcdef';
    const dataDir = mkdtempSync(path.join(tmpdir(), 'parapet-legacy-audit-'));
    const database = dialect === 'postgres' ? await createTestDatabase() : undefined;
    const store = Store.open({ databaseUrl: database?.url ?? null, dataDir, poolSize: 2 });
    let gateway: TestGateway | undefined;
    try {
      // The schema as it was, with one checkpoint signed the old way (HMAC-SHA256 over {seq, hash, at}).
      const migrated = await new Migrator({ db: store.db, provider: { getMigrations: async () => migrations } }).migrateTo('2026-11-21-08-policy-code');
      expect(migrated.error).toBeUndefined();
      const at = '2026-11-20T10:00:00.000Z';
      const entry = { seq: 1, id: 'aud_legacy', at, actor: 'ops', action: 'audit.checkpoint', target: 'chk_legacy', detail: { key_id: '' } };
      const key = Buffer.from(hkdfSync('sha256', createHash('sha256').update(secret).digest(), Buffer.alloc(0), Buffer.from(CHECKPOINT_KEY_PURPOSE), 32));
      const keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
      entry.detail.key_id = keyId;
      const hash = entryHash(GENESIS_HASH, entry);
      await store.db.insertInto('audit_entries').values({ ...entry, detail: JSON.stringify(entry.detail), prev_hash: GENESIS_HASH, hash }).execute();
      const signature = createHmac('sha256', key).update(`{"at":"${at}","hash":"${hash}","seq":1}`).digest('hex');
      await store.db
        .insertInto('audit_checkpoints')
        .values({ id: 'chk_legacy', seq: 1, hash, at, key_id: keyId, signature, created_by: 'ops' })
        .execute();
      await store.close();

      gateway = await startGateway({ dialect, ...(database === undefined ? {} : { databaseUrl: database.url }), overrides: { data_dir: dataDir, secret_key: secret } });
      const result = await json(gateway.request('/api/audit/verify', { method: 'POST', json: {} }));
      expect(result).toMatchObject({ ok: true, missing_checkpoints: [], checkpoints: [{ id: 'chk_legacy', signature_valid: true, matches_chain: true }] });
      const row = await gateway.store.db.selectFrom('audit_checkpoints').selectAll().where('id', '=', 'chk_legacy').executeTakeFirstOrThrow();
      expect(row.algorithm).toBe('hmac-sha256');
      // New checkpoints on the same chain are Ed25519.
      const made = await json(gateway.request('/api/audit/checkpoint', { method: 'POST', json: {} }));
      expect(made.algorithm).toBe('ed25519');
      expect((await json(gateway.request('/api/audit/verify', { method: 'POST', json: {} }))).ok).toBe(true);
    } finally {
      await gateway?.close();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
