import { describe, expect, it } from 'vitest';
import type { DetectContext, Surface } from '../types.js';
import { bracketDepth, checkSql, validSql } from './sql.js';

const on = (surface: Surface): DetectContext => ({ surface, settings: { pii_packs: [] } });
const args = (value: unknown): string => JSON.stringify(value);

describe('rails.catalog.valid_sql', () => {
  it('is available: node-sql-parser is installed here', () => {
    validSql.warmUp?.({ banned_terms: [], validators: [] });
    expect(validSql.available({ banned_terms: [], validators: [] })).toEqual({ available: true });
  });

  it.each([
    { query: 'SELECT * FORM users' },
    { sql: 'SELECT * FROM users WHERE' },
    { statement: 'INSERT INTO t (a, b) VALUES (1, 2' },
    { note: 'DELETE FROM orders WHERE id = ;' },
  ])('flags SQL arguments that do not parse: %j', (value) => {
    const text = args(value);
    const found = checkSql(text, on('tool_args'));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ entity: 'SCHEMA.SQL_INVALID' });
    const sql = Object.values(value)[0]!;
    expect(text.slice(found[0]!.start, found[0]!.end)).toBe(sql);
  });

  it.each([
    { query: 'SELECT id, name FROM users WHERE id = 42' },
    { query: 'UPDATE orders SET status = $1 WHERE id = $2 RETURNING id' },
    { sql: "INSERT INTO t (a) VALUES ('x');" },
    { text: 'Select the best option from the list' },
    { message: 'Update the table with the new values' },
    { query: 'how many users signed up last week?' },
  ])('leaves valid SQL and prose alone: %j', (value) => {
    expect(checkSql(args(value), on('tool_args'))).toEqual([]);
  });

  it('reads ```sql blocks in output, not prose that starts with a keyword', () => {
    const text = 'Select a table first.\n```sql\nSELECT * FROM users\n```\n```sql\nSELECT * FROMM users WHERE\n```\n';
    const found = checkSql(text, on('output'));
    expect(found).toHaveLength(1);
    expect(text.slice(found[0]!.start, found[0]!.end)).toBe('SELECT * FROMM users WHERE');
  });

  it('reads deeply bracketed statements with the MySQL grammar only (the PostgreSQL one is exponential there)', () => {
    expect(bracketDepth("SELECT ((a)) FROM t WHERE b = '((((('")).toBe(2);
    expect(bracketDepth('SELECT 1 -- ((((((\n')).toBe(0);
    const text = args({ query: `SELECT ${'('.repeat(24)};${')'.repeat(24)}` });
    const started = performance.now();
    const found = checkSql(text, on('tool_args'));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(found[0]).toMatchObject({ entity: 'SCHEMA.SQL_INVALID', validator: 'node-sql-parser (MySQL): failed' });
  });

  it('ignores arguments that are not JSON (valid_json reports those)', () => {
    expect(checkSql('query=SELEC', on('tool_args'))).toEqual([]);
  });

  it('does not parse statements over the size cap, and stays bounded on 1 MB inputs', () => {
    const big = args({ query: `SELECT ${'a,'.repeat(500_000)} FROM t` });
    let started = performance.now();
    expect(checkSql(big, on('tool_args'))).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
    const many = args({ rows: Array.from({ length: 20_000 }, () => 'SELECT ((((((;') });
    started = performance.now();
    checkSql(many, on('tool_args'));
    expect(performance.now() - started).toBeLessThan(1000);
    started = performance.now();
    checkSql('```sql\n'.repeat(150_000), on('output'));
    expect(performance.now() - started).toBeLessThan(3000);
  });
});
