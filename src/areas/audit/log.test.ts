import { describe, expect, it } from 'vitest';
import { DIALECTS, withGateway } from '../../../test/helpers/gateway.js';
import { GENESIS_HASH, entryHash } from './log.js';

describe.each(DIALECTS)('audit chain (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('appends concurrent entries gap-free, each hash covering the previous one', async () => {
    const { audit } = ctx.gateway.app.services;
    await Promise.all(
      Array.from({ length: 25 }, (_, index) => audit.append({ actor: 'test', action: 'test.append', detail: { index } })),
    );
    const rows = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().orderBy('seq').execute();
    expect(rows.map((row) => row.seq)).toEqual(rows.map((_, index) => index + 1));
    let previous = GENESIS_HASH;
    for (const row of rows) {
      expect(row.prev_hash).toBe(previous);
      const { hash, prev_hash: _prev, ...entry } = row;
      expect(hash).toBe(entryHash(previous, { ...entry, seq: Number(entry.seq), detail: JSON.parse(entry.detail) }));
      previous = hash;
    }
  });

  it('writes appends made together in call order and answers each with its own seq and hash', async () => {
    const { audit } = ctx.gateway.app.services;
    const written = await Promise.all(Array.from({ length: 10 }, (_, index) => audit.append({ actor: 'test', action: 'test.order', detail: { index } })));
    const seqs = written.map((entry) => entry.seq);
    expect(seqs).toEqual(seqs.map((_, index) => (seqs[0] as number) + index));
    const rows = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'test.order').orderBy('seq').execute();
    expect(rows.map((row) => JSON.parse(row.detail).index)).toEqual([...Array(10).keys()]);
    expect(rows.map((row) => ({ seq: Number(row.seq), id: row.id, at: row.at, hash: row.hash }))).toEqual(written);
  });

  it('keeps no audit entry for a change that fails in the same transaction', async () => {
    const before = await ctx.gateway.store.db.selectFrom('api_tokens').select('id').execute();
    await expect(
      ctx.gateway.app.services.audit.transact(async (trx, append) => {
        await append({ actor: 'test', action: 'test.rollback' });
        await trx.insertInto('api_tokens').values({ id: before[0]?.id ?? 'dup' } as never).execute();
      }),
    ).rejects.toThrow();
    const entries = await ctx.gateway.store.db.selectFrom('audit_entries').select('action').where('action', '=', 'test.rollback').execute();
    expect(entries).toEqual([]);
  });

  it('fails only the append that cannot be written when appends are written together', async () => {
    const { audit } = ctx.gateway.app.services;
    // A BigInt has no JSON form: the middle entry of the batch cannot be hashed.
    const outcomes = await Promise.allSettled([
      audit.append({ actor: 'test', action: 'test.batch', detail: { index: 0 } }),
      audit.append({ actor: 'test', action: 'test.batch', detail: { index: 1, n: 1n } }),
      audit.append({ actor: 'test', action: 'test.batch', detail: { index: 2 } }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const rows = await ctx.gateway.store.db.selectFrom('audit_entries').select(['seq', 'detail']).where('action', '=', 'test.batch').orderBy('seq').execute();
    expect(rows.map((row) => JSON.parse(row.detail).index)).toEqual([0, 2]);
    const all = await ctx.gateway.store.db.selectFrom('audit_entries').select('seq').orderBy('seq').execute();
    expect(all.map((row) => Number(row.seq))).toEqual(all.map((_, index) => index + 1));
  });
});
