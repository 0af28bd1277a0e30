// Identifiers: a type prefix plus a lower-case ULID, so ids sort by creation time (lists are
// newest first and page by id).
import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

// ulid's default generator asks the operating system for one random byte per character; drawing
// from a pool filled 4 KiB at a time keeps the same cryptographic source at a fraction of the cost
// (every recorded decision takes an id on the hot path).
const pool = new Uint8Array(4096);
let next = pool.length;

function randomFraction(): number {
  if (next >= pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return (pool[next++] as number) / 256;
}

const nextUlid = monotonicFactory(randomFraction);

export function newId(prefix: string): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}
