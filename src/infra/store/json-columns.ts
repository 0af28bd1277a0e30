// JSON columns (TEXT on SQLite, text/jsonb read back as text on PostgreSQL): one way to read and
// write them everywhere. A column that holds something unexpected (an older shape, a hand edit)
// reads as the fallback instead of failing the request that happened to touch it.

/** A JSON column as stored: the caller's value serialised. */
export function writeJson(value: unknown): string {
  return JSON.stringify(value);
}

/** A JSON column read back, or `fallback` when it is missing or not JSON. */
export function readJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** A JSON column that holds a list of strings; anything else reads as an empty list. */
export function readJsonStrings(text: string | null | undefined): string[] {
  const value = readJson<unknown>(text, []);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** A JSON column that holds an object; anything else reads as an empty object. */
export function readJsonObject(text: string | null | undefined): Record<string, unknown> {
  const value = readJson<unknown>(text, {});
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
