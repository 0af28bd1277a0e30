// A throwaway PostgreSQL database per gateway under test, on the server at PARAPET_TEST_PG_URL
// (default: 127.0.0.1:5432, trust auth, database `test`).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_ADMIN_URL = process.env.PARAPET_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `parapet_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
