// /openapi.json is a valid OpenAPI 3.1 document in which every route has request and response
// schemas; /docs serves the explorer; neither needs a credential.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startGateway, type TestGateway } from './helpers/gateway.js';
import { operations, resolve, type OpenApiDocument } from './helpers/openapi-fuzz.js';

describe('the API description', () => {
  let gateway: TestGateway;
  let document: OpenApiDocument;

  beforeAll(async () => {
    gateway = await startGateway();
    const response = await fetch(`${gateway.url}/openapi.json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as OpenApiDocument;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('is valid OpenAPI 3 according to a validator', async () => {
    const result = await new Validator().validate(structuredClone(document) as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toMatch(/^3\./);
  });

  it('describes the routes of the foundation', () => {
    const routes = operations(document).map(({ method, path }) => `${method} ${path}`);
    for (const route of [
      'GET /',
      'GET /health',
      'GET /api/health',
      'GET /api/me',
      'GET /api/version',
      'GET /api/tokens',
      'POST /api/tokens',
      'POST /api/tokens/{token_id}/revoke',
      'POST /api/auth/logout',
      'POST /api/credentials/{credential_id}/revoke',
      'GET /metrics',
    ]) {
      expect(routes).toContain(route);
    }
  });

  it('gives every route request and response schemas', () => {
    const missing: string[] = [];
    for (const { method, path, operation } of operations(document)) {
      const route = `${method} ${path}`;
      const success = Object.entries(operation.responses ?? {}).filter(([status]) => status.startsWith('2'));
      if (success.length === 0) missing.push(`${route}: no 2xx response`);
      for (const [status, response] of success) {
        const schemas = Object.values(response.content ?? {}).map((media) => media.schema);
        if (schemas.length === 0 || schemas.some((schema) => schema === undefined)) missing.push(`${route}: ${status} has no schema`);
      }
      const problem = operation.responses?.['4XX'] ?? operation.responses?.['4xx'];
      if (problem?.content?.['application/problem+json']?.schema === undefined) missing.push(`${route}: no problem schema`);
      const declared = new Set((operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name));
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        if (!declared.has(name ?? '')) missing.push(`${route}: path parameter ${name} has no schema`);
      }
      if (method !== 'GET' && method !== 'DELETE') {
        const body = resolve(document, operation.requestBody?.content?.['application/json']?.schema);
        if (body === undefined) missing.push(`${route}: no request body schema`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('marks credentials: none for public routes, optional for /health, bearer for the rest', () => {
    const security = (method: string, path: string) =>
      operations(document).find((entry) => entry.method === method && entry.path === path)?.operation.security;
    expect(security('GET', '/')).toEqual([]);
    expect(security('GET', '/health')).toEqual([{}, { bearer: [] }]);
    expect(security('GET', '/api/tokens')).toEqual([{ bearer: [] }]);
  });

  it('serves the explorer at /docs without a credential', async () => {
    const response = await fetch(`${gateway.url}/docs`, { redirect: 'follow' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(await response.text()).toContain('swagger');
    const root = await json(fetch(`${gateway.url}/`));
    expect(root.links).toMatchObject({ docs: '/docs', openapi: '/openapi.json' });
  });
});
