// One area's routes on the real gateway fuzzed with malformed requests (test/fuzz.http.test.ts walks
// every route; an area's own test walks only its paths, to stay fast and focused).
import type { TestGateway } from './gateway.js';
import { casesFor, operations, type OpenApiDocument } from './openapi-fuzz.js';

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
