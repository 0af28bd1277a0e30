// The JSON a route answers on success, read from the generated route types (openapi.ts), so that a
// client written against the gateway (the CLI, the console) follows its schemas instead of keeping
// hand-written copies of them.
import type { paths } from './openapi.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;

/**
 * The body of the first success status (200, 201, 202) of `method` on `path`.
 * @example type Verification = ApiAnswer<'/api/audit/verify', 'post'>;
 */
export type ApiAnswer<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer A }
    ? JsonOf<A>
    : R extends { 201: infer A }
      ? JsonOf<A>
      : R extends { 202: infer A }
        ? JsonOf<A>
        : never
  : never;

/** One item of a paged list answer (`{ items: [...] }`). */
export type ApiItem<P extends keyof paths> = ApiAnswer<P, 'get'> extends { items: Array<infer T> } ? T : never;
