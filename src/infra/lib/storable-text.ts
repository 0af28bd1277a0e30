// What text the gateway stores. PostgreSQL refuses U+0000 in text and both drivers turn a lone
// UTF-16 surrogate into U+FFFD on the way to UTF-8, so a value read back would differ from the one
// written (and from any hash taken over it). Every string that reaches storage or a hash is first
// made storable the same way on both databases: NUL and lone surrogates become U+FFFD. Detectors
// see the content as it was sent; only the record is normalised.

const REPLACEMENT = '\uFFFD';

/** The text as it will be stored: well-formed UTF-16 without NUL. Returns the same string when nothing changes. */
export function storableText(text: string): string {
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return wellFormed.includes('\u0000') ? wellFormed.replaceAll('\u0000', REPLACEMENT) : wellFormed;
}

/** True when storableText would change the text. */
export function needsStorableText(text: string): boolean {
  return !text.isWellFormed() || text.includes('\u0000');
}

/** A JSON-like value with every string (keys included) made storable; returns the same value when nothing changes. */
export function storableValue<T>(value: T): T {
  return normalise(value, 0) as T;
}

function normalise(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return storableText(value);
  // Deeper values are refused at the HTTP edge; past this depth they are left as they are.
  if (value === null || typeof value !== 'object' || depth > 256) return value;
  if (Array.isArray(value)) {
    let changed: unknown[] | undefined;
    value.forEach((item, index) => {
      const next = normalise(item, depth + 1);
      if (next !== item) (changed ??= [...value])[index] = next;
    });
    return changed ?? value;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  let changed: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const nextKey = storableText(key);
    const next = normalise(item, depth + 1);
    if (nextKey !== key || next !== item) changed = changed ?? {};
  }
  if (changed === undefined) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) result[storableText(key)] = normalise(item, depth + 1);
  return result;
}
