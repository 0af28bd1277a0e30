// Opens the one database the gateway uses: embedded SQLite (WAL) by default, PostgreSQL when
// DATABASE_URL is set. Every module reaches storage through this Store; no raw driver calls elsewhere.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  sql,
  CompiledQuery,
  type DatabaseConnection,
  type Dialect as KyselyDialect,
  type Driver,
  type QueryResult,
  type Transaction,
  type TransactionSettings,
} from 'kysely';
import pg from 'pg';
import { needsStorableText, storableValue } from '../lib/storable-text.js';
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
    /** PostgreSQL: the URL, for the recorder's own connection in a worker thread. */
    readonly databaseUrl?: string,
  ) {}

  static open(options: StoreOptions): Store {
    if (options.databaseUrl) {
      const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
      // An idle client that loses its server must not crash the process; the next query reconnects.
      pool.on('error', () => undefined);
      // A client checked out between two queries (a transaction awaiting other work) hears the
      // server going away as an 'error' event of its own, which the pool does not catch while the
      // client is out: unheard, it would end the process. Its next query fails and is answered.
      pool.on('connect', (client) => client.on('error', () => undefined));
      return new Store(new Kysely<Database>({ dialect: storableTextDialect(new PostgresDialect({ pool })) }), 'postgres', undefined, options.databaseUrl);
    }
    mkdirSync(options.dataDir, { recursive: true });
    const location = path.join(options.dataDir, 'parapet.db');
    const file = new SQLite(location);
    file.pragma('journal_mode = WAL');
    file.pragma('busy_timeout = 5000');
    file.pragma('synchronous = NORMAL');
    file.pragma('foreign_keys = ON');
    return new Store(new Kysely<Database>({ dialect: storableTextDialect(new SqliteDialect({ database: file }), { immediateTransactions: true }) }), 'sqlite', location);
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

/**
 * The dialect with every query parameter made storable (src/lib/storable-text.ts) before it reaches
 * the driver: one place for every area, so no value an agent or operator sends can make PostgreSQL
 * refuse a statement (NUL) or come back different from what was written (lone surrogates), and a
 * lookup by such a value finds what was stored for it.
 */
export function storableTextDialect(inner: KyselyDialect, options: { immediateTransactions?: boolean } = {}): KyselyDialect {
  return {
    createAdapter: () => inner.createAdapter(),
    createIntrospector: (db) => inner.createIntrospector(db),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createDriver: () => new StorableTextDriver(inner.createDriver(), options.immediateTransactions === true),
  };
}

/** The query with storable parameters; the same object when none needs a change (the common case). */
function storableQuery<R>(query: CompiledQuery<R>): CompiledQuery<R> {
  let changed = false;
  for (const parameter of query.parameters) {
    if (typeof parameter === 'string' ? needsStorableText(parameter) : typeof parameter === 'object' && parameter !== null) {
      changed = true;
      break;
    }
  }
  if (!changed) return query;
  const parameters = query.parameters.map((parameter) => storableValue(parameter));
  return parameters.every((parameter, index) => parameter === query.parameters[index]) ? query : { ...query, parameters };
}

class StorableTextConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.inner.executeQuery<R>(storableQuery(query));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(storableQuery(query), chunkSize);
  }
}

/** Hands out wrapped connections; the inner driver always gets its own connection objects back. */
class StorableTextDriver implements Driver {
  private readonly wrapped = new WeakMap<DatabaseConnection, StorableTextConnection>();

  constructor(
    private readonly inner: Driver,
    /**
     * SQLite: BEGIN IMMEDIATE. A deferred transaction that reads and then writes fails at once with
     * SQLITE_BUSY_SNAPSHOT (no busy wait) when another connection — the recording worker — committed
     * in between; taking the write lock first makes it wait its turn instead.
     */
    private readonly immediate = false,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapper = this.wrapped.get(connection);
    if (wrapper === undefined) {
      wrapper = new StorableTextConnection(connection);
      this.wrapped.set(connection, wrapper);
    }
    return wrapper;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (this.immediate) await unwrap(connection).executeQuery(CompiledQuery.raw('begin immediate'));
    else await this.inner.beginTransaction(unwrap(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(unwrap(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(unwrap(connection));
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    if (this.inner.savepoint === undefined) throw new Error('savepoints are not supported by this dialect');
    await this.inner.savepoint(unwrap(connection), name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    if (this.inner.rollbackToSavepoint === undefined) throw new Error('savepoints are not supported by this dialect');
    await this.inner.rollbackToSavepoint(unwrap(connection), name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    if (this.inner.releaseSavepoint === undefined) throw new Error('savepoints are not supported by this dialect');
    await this.inner.releaseSavepoint(unwrap(connection), name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

const unwrap = (connection: DatabaseConnection): DatabaseConnection =>
  connection instanceof StorableTextConnection ? connection.inner : connection;
