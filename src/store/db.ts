// Opens the one database the gateway uses: embedded SQLite (WAL) by default, PostgreSQL when
// DATABASE_URL is set. Every module reaches storage through this Store; no raw driver calls elsewhere.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { migrations } from './migrations/index.js';
import type { Database } from './tables.js';

export type Dialect = 'sqlite' | 'postgres';

export interface StoreOptions {
  /** A postgres:// URL, or null for SQLite in `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  /** Pool size on PostgreSQL. */
  poolSize?: number;
}

// int8 (bigint) arrives from pg as text; the counters and sequence numbers stored here fit a double.
pg.types.setTypeParser(20, (value) => Number(value));

export class Store {
  private constructor(
    readonly db: Kysely<Database>,
    readonly dialect: Dialect,
    /** SQLite: the database file, for a second connection in a worker thread (the recorder's writer). */
    readonly sqliteFile?: string,
  ) {}

  static open(options: StoreOptions): Store {
    if (options.databaseUrl) {
      const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
      // An idle client that loses its server must not crash the process; the next query reconnects.
      pool.on('error', () => undefined);
      return new Store(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), 'postgres');
    }
    mkdirSync(options.dataDir, { recursive: true });
    const location = path.join(options.dataDir, 'parapet.db');
    const file = new SQLite(location);
    file.pragma('journal_mode = WAL');
    file.pragma('busy_timeout = 5000');
    file.pragma('synchronous = NORMAL');
    file.pragma('foreign_keys = ON');
    return new Store(new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) }), 'sqlite', location);
  }

  /** Applies every pending migration; returns the name of the latest one applied. */
  async migrate(): Promise<string> {
    const migrator = new Migrator({
      db: this.db,
      provider: { getMigrations: async () => migrations },
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
      throw new Error(`migration ${failed} failed: ${(error as Error).message ?? String(error)}`);
    }
    return this.latestMigration();
  }

  async latestMigration(): Promise<string> {
    const migrator = new Migrator({ db: this.db, provider: { getMigrations: async () => migrations } });
    const applied = (await migrator.getMigrations()).filter((migration) => migration.executedAt !== undefined);
    return applied.at(-1)?.name ?? 'none';
  }

  /**
   * Runs `work` in a transaction that no other process holding the same lock name can enter at
   * the same time (PostgreSQL advisory lock; SQLite serialises writers by itself).
   */
  async withLock<T>(name: string, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      if (this.dialect === 'postgres') {
        await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(trx);
      }
      return work(trx);
    });
  }

  /** Round-trip time of a trivial query in milliseconds; throws when the database is unreachable. */
  async ping(): Promise<number> {
    const started = performance.now();
    await sql`select 1`.execute(this.db);
    return performance.now() - started;
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}
