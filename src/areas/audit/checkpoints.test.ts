// The checkpoint format, pinned so that anyone holding the public key can check a checkpoint with
// nothing but Ed25519: seed = HKDF-SHA256(sha256(secret_key), salt empty, info 'parapet audit
// checkpoint ed25519 v2'), signature = Ed25519 over the canonical JSON of {format, id, seq, hash,
// at, key_id}. Older checkpoints: HMAC-SHA256(HKDF(…, 'parapet audit checkpoint v1'), {seq, hash, at}).
import { createHash, createHmac, createPrivateKey, createPublicKey, hkdfSync, verify } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withGateway } from '../../../test/helpers/gateway.js';
import { Sealer } from '../../infra/lib/sealed.js';
import { AuditCheckpoints, CHECKPOINT_KEY_PURPOSE, SIGNING_KEY_PURPOSE } from './checkpoints.js';

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

  it('signs the canonical JSON of {format, id, seq, hash, at, key_id} with Ed25519 from a seed derived by HKDF', async () => {
    const { auditCheckpoints } = ctx.gateway.app.services;
    const checkpoint = await auditCheckpoints.create('tester');
    const seed = Buffer.from(hkdfSync('sha256', createHash('sha256').update(SECRET).digest(), Buffer.alloc(0), Buffer.from(SIGNING_KEY_PURPOSE), 32));
    const privateKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
    const publicKey = createPublicKey(privateKey);
    const rawPublic = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
    expect(checkpoint.key_id).toBe(createHash('sha256').update(rawPublic).digest('hex').slice(0, 16));
    const message = `{"at":"${checkpoint.at}","format":"parapet.audit-checkpoint/2","hash":"${checkpoint.hash}","id":"${checkpoint.id}","key_id":"${checkpoint.key_id}","seq":${checkpoint.seq}}`;
    expect(verify(null, Buffer.from(message), publicKey, Buffer.from(checkpoint.signature, 'base64url'))).toBe(true);
    expect(checkpoint).toMatchObject({ algorithm: 'ed25519', created_by: 'tester' });
    // The published key is the one that checks it.
    expect(auditCheckpoints.publicKey()).toEqual({ algorithm: 'ed25519', key_id: checkpoint.key_id, public_key_pem: publicKey.export({ format: 'pem', type: 'spki' }) });
    const stored = await ctx.gateway.store.db.selectFrom('audit_checkpoints').selectAll().where('id', '=', checkpoint.id).executeTakeFirstOrThrow();
    expect({ ...stored, seq: Number(stored.seq) }).toEqual(checkpoint);
    // The database does not hold the private key: the seed appears in no column.
    expect(JSON.stringify(stored)).not.toContain(seed.toString('hex'));
    expect(JSON.stringify(stored)).not.toContain(seed.toString('base64url'));
  });

  it('still checks a checkpoint signed with HMAC-SHA256 before Ed25519', async () => {
    const { auditCheckpoints } = ctx.gateway.app.services;
    const made = await auditCheckpoints.create('tester');
    const key = Buffer.from(hkdfSync('sha256', createHash('sha256').update(SECRET).digest(), Buffer.alloc(0), Buffer.from(CHECKPOINT_KEY_PURPOSE), 32));
    const legacy = {
      ...made,
      algorithm: 'hmac-sha256',
      key_id: createHash('sha256').update(key).digest('hex').slice(0, 16),
      signature: createHmac('sha256', key).update(`{"at":"${made.at}","hash":"${made.hash}","seq":${made.seq}}`).digest('hex'),
    };
    expect(auditCheckpoints.verifySignature(legacy)).toBe(true);
    expect(auditCheckpoints.verifySignature({ ...legacy, at: '2020-01-01T00:00:00.000Z' })).toBe(false);
    // An Ed25519 signature relabelled as HMAC, or the reverse, does not pass.
    expect(auditCheckpoints.verifySignature({ ...made, algorithm: 'hmac-sha256' })).toBe(false);
    expect(auditCheckpoints.verifySignature({ ...legacy, algorithm: 'ed25519' })).toBe(false);
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
