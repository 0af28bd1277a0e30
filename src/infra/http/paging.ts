// Cursor paging over ids that sort by creation time: the cursor is the last id of the page.
import { problem } from './problems.js';

export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[a-z]+_[0-9a-z]{26}$/.test(id)) {
    throw problem('invalid-request', 'cursor is not one this gateway issued', [
      { field: '/querystring/cursor', message: 'unknown cursor' },
    ]);
  }
  return id;
}

/** Given rows fetched with limit + 1, returns the page and the cursor of the next one. */
export function pageOf<T extends { id: string }>(rows: T[], limit: number): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, next_cursor: rows.length > limit && last !== undefined ? encodeCursor(last.id) : null };
}
