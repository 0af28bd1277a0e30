import { describe, expect, it } from 'vitest';
import { DIALECTS, withGateway } from '../../test/helpers/gateway.js';
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
});
