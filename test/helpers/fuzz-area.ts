// One area's routes on the real gateway fuzzed with malformed requests (test/fuzz.http.test.ts walks
// every route; an area's own test walks only its paths, to stay fast and focused).
import type { TestGateway } from './gateway.js';
import { casesFor, hostileCasesFor, NOT_5XX, operations, type OpenApiDocument } from './openapi-fuzz.js';

/** The gateway's OpenAPI document with only the paths under `prefix` (every component kept). */
export async function areaDocument(gateway: TestGateway, prefix: string): Promise<OpenApiDocument> {
  const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as OpenApiDocument;
  const paths = Object.fromEntries(Object.entries(document.paths).filter(([route]) => route === prefix || route.startsWith(`${prefix}/`)));
  return { ...document, paths };
}

/**
 * Every route under `prefix` (e.g. `/api/business`) fuzzed with malformed requests: what did not
 * answer with a 4xx problem, how many operations there were, and the area's part of the OpenAPI
 * document. Call with the audit count before and after to prove nothing changed.
 */
export async function malformedRequestFailures(gateway: TestGateway, prefix: string): Promise<{ failures: string[]; operations: number; document: OpenApiDocument }> {
  const document = await areaDocument(gateway, prefix);
  const failures: string[] = [];
  const found = operations(document);
  for (const { method, path: route, operation } of found) {
    for (const fuzz of casesFor(document, method, route, operation, { credential: gateway.adminToken, bodyLimit: gateway.config.body_limit_bytes })) {
      const response = await fetch(gateway.url + fuzz.path, { method: fuzz.method, headers: fuzz.headers, body: fuzz.body });
      if (!fuzz.expect.includes(response.status)) failures.push(`${fuzz.route} [${fuzz.name}] → ${response.status}: ${(await response.text()).slice(0, 200)}`);
      else if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json')) failures.push(`${fuzz.route} [${fuzz.name}]: not a problem`);
      else await response.arrayBuffer();
    }
  }
  return { failures, operations: found.length, document };
}

/**
 * The given paths fuzzed with malformed requests and with hostile values (padding, NUL, lone
 * surrogates, deep nesting) in valid shapes: a hostile case may succeed but never answers 5xx; any
 * 4xx is a problem body. Answers the failures, how many requests went out and the operations walked.
 */
export async function hostileRequestFailures(gateway: TestGateway, paths: readonly string[]): Promise<{ failures: string[]; sent: number; operations: string[] }> {
  const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as OpenApiDocument;
  const mine = operations(document).filter(({ path }) => paths.includes(path));
  const failures: string[] = [];
  let sent = 0;
  for (const { method, path, operation } of mine) {
    const cases = [
      ...casesFor(document, method, path, operation, { credential: gateway.adminToken, bodyLimit: gateway.config.body_limit_bytes }),
      ...hostileCasesFor(document, method, path, operation, { credential: gateway.adminToken, headers: {} }),
    ];
    for (const fuzz of cases) {
      const response = await fetch(gateway.url + fuzz.path, { method: fuzz.method, headers: fuzz.headers, body: fuzz.body });
      const text = await response.text();
      sent += 1;
      const fine = fuzz.expect === NOT_5XX ? response.status < 500 : fuzz.expect.includes(response.status);
      if (!fine) failures.push(`${fuzz.route} [${fuzz.name}] → ${response.status}: ${text.slice(0, 200)}`);
      if (response.status >= 400 && !(response.headers.get('content-type') ?? '').startsWith('application/problem+json')) {
        failures.push(`${fuzz.route} [${fuzz.name}] → ${response.status} without a problem body`);
      }
    }
  }
  return { failures, sent, operations: mine.map(({ method, path }) => `${method} ${path}`).sort() };
}
