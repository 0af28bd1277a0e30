// The checkpoint format, pinned so that someone holding the secret key can check a checkpoint
// with nothing but HKDF and HMAC: key = HKDF-SHA256(sha256(secret_key), salt empty, info
// 'parapet audit checkpoint v1'), signature = HMAC-SHA256(key, canonical JSON of {seq, hash, at}).
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withGateway } from '../../test/helpers/gateway.js';
import { Sealer } from '../lib/sealed.js';
import { AuditCheckpoints, CHECKPOINT_KEY_PURPOSE } from './checkpoints.js';

const SECRET = 'checkpoint-test-secret-key-0123456789abcdef';

describe('audit checkpoints', () => {
  const ctx = withGateway({ overrides: { secret_key: SECRET } });

  it('derives a per-purpose key from the secret key with HKDF-SHA256', () => {
    const sealer = new Sealer({ secretKey: SECRET, dataDir: mkdtempSync(path.join(tmpdir(), 'parapet-key-')) });
    const master = createHash('sha256').update(SECRET, 'utf8').digest();
    const expected = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), Buffer.from(CHECKPOINT_KEY_PURPOSE), 32));
    expect(sealer.deriveKey(CHECKPOINT_KEY_PURPOSE).equals(expected)).toBe(true);
    expect(sealer.deriveKey('another purpose').equals(expected)).toBe(false);
    // The derived key is not the encryption key: sealed secrets still open, and the key differs from it.
    expect(sealer.unseal(sealer.seal('x'))).toBe('x');
    expect(expected.equals(master)).toBe(false);
  });

  it('signs {seq, hash, at} with HMAC-SHA256 under the derived key and names the key by its hash', async () => {
    const { auditCheckpoints } = ctx.gateway.app.services;
    const checkpoint = await auditCheckpoints.create('tester');
    const key = Buffer.from(hkdfSync('sha256', createHash('sha256').update(SECRET).digest(), Buffer.alloc(0), Buffer.from('parapet audit checkpoint v1'), 32));
    const message = `{"at":"${checkpoint.at}","hash":"${checkpoint.hash}","seq":${checkpoint.seq}}`;
    expect(checkpoint.signature).toBe(createHmac('sha256', key).update(message).digest('hex'));
    expect(checkpoint.key_id).toBe(createHash('sha256').update(key).digest('hex').slice(0, 16));
    expect(checkpoint.created_by).toBe('tester');
    const stored = await ctx.gateway.store.db.selectFrom('audit_checkpoints').selectAll().where('id', '=', checkpoint.id).executeTakeFirstOrThrow();
    expect({ ...stored, seq: Number(stored.seq) }).toEqual(checkpoint);
    // The database does not hold the key: neither the secret nor the derived key appears in any column.
    expect(JSON.stringify(stored)).not.toContain(key.toString('hex'));
  });

  it('seals the head including its own entry even while other appends race it', async () => {
    const { audit, auditCheckpoints } = ctx.gateway.app.services;
    const [checkpoint] = await Promise.all([
      auditCheckpoints.create('tester'),
      ...Array.from({ length: 10 }, (_, index) => audit.append({ actor: 'racer', action: 'test.race', detail: { index } })),
    ]);
    const entry = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('seq', '=', checkpoint.seq).executeTakeFirstOrThrow();
    expect(entry).toMatchObject({ action: 'audit.checkpoint', target: checkpoint.id, hash: checkpoint.hash });
    expect(await auditCheckpoints.latest()).toEqual(checkpoint);
  });

  it('answers null for the latest checkpoint when there is none, and verifies nothing made under another key', async () => {
    const { store, app } = ctx.gateway;
    await store.db.deleteFrom('audit_checkpoints').execute();
    expect(await app.services.auditCheckpoints.latest()).toBeNull();
    const other = new AuditCheckpoints(store, app.services.audit, new Sealer({ secretKey: `${SECRET}-other`, dataDir: '.' }), app.services.clock);
    expect(app.services.auditCheckpoints.verifySignature(await other.create('tester'))).toBe(false);
  });
});
