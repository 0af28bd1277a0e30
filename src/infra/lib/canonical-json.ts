// RFC 8785 canonical JSON (the `canonicalize` package), used wherever a hash covers JSON.
import canonicalizeModule from 'canonicalize';

// The package is CommonJS whose typings describe an ES default export; at run time the default
// import is the function itself.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

export function canonicalJson(value: unknown): string {
  return canonicalize(value) ?? 'null';
}
