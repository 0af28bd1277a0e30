// Identifiers: a type prefix plus a lower-case ULID, so ids sort by creation time (lists are
// newest first and page by id).
import { monotonicFactory } from 'ulid';

const nextUlid = monotonicFactory();

export function newId(prefix: string): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}
