// SQLite transactions take the write lock when they begin: a transaction that reads and then
// writes must not fail because another connection (the recording worker) committed in between.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from './db.js';

describe('SQLite transactions', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('read, another connection tries to write, then write: the transaction commits and the other waits its turn', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'parapet-trx-'));
    dirs.push(dir);
    const store = Store.open({ databaseUrl: null, dataDir: dir });
    const other = new SQLite(store.sqliteFile as string);
    try {
      await sql`create table notes (id integer primary key, author text not null)`.execute(store.db);
      // No busy wait on the other side: it either writes at once or is told the database is locked.
      other.pragma('busy_timeout = 0');
      let otherError: string | undefined;
      await store.db.transaction().execute(async (trx) => {
        await sql`select count(*) as n from notes`.execute(trx);
        try {
          other.prepare('insert into notes (author) values (?)').run('recording worker');
        } catch (error) {
          otherError = (error as { code?: string }).code;
        }
        // With a deferred BEGIN this failed with SQLITE_BUSY_SNAPSHOT after the other commit.
        await sql`insert into notes (author) values (${'operator'})`.execute(trx);
      });
      expect(otherError).toBe('SQLITE_BUSY');
      other.prepare('insert into notes (author) values (?)').run('recording worker');
      const authors = (await sql<{ author: string }>`select author from notes order by id`.execute(store.db)).rows.map((row) => row.author);
      expect(authors).toEqual(['operator', 'recording worker']);
    } finally {
      other.close();
      await store.close();
    }
  });
});
