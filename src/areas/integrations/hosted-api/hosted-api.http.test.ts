// POST /api/integrations/hosted-api/scan over HTTP on both dialects against a fake hosted API on
// 127.0.0.1 (test/helpers/fake-openapi-host.ts): JSON, YAML and Swagger 2.0 documents read and
// summarised; oversized, redirected-away, garbage, alias-bomb and too-deep documents recorded as
// failed; URLs the outbound policy forbids refused with 422 and not recorded; readDocument for
// monitors; roles; hostile input.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditOf } from '../../../../test/helpers/audit.js';
import { CHAT_API_DOCUMENT, startFakeOpenApiHost, type FakeOpenApiHost } from '../../../../test/helpers/fake-openapi-host.js';
import { hostileRequestFailures } from '../../../../test/helpers/fuzz-area.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../../test/helpers/gateway.js';

const PATH = '/api/integrations/hosted-api/scan';

let host: FakeOpenApiHost;
beforeAll(async () => {
  host = await startFakeOpenApiHost();
});
afterAll(async () => {
  await host.close();
});

async function scan(gateway: TestGateway, body: Record<string, unknown>, token?: string | null) {
  return gateway.request(PATH, { method: 'POST', json: body, ...(token === undefined ? {} : { token }) });
}

async function scanCount(gateway: TestGateway): Promise<number> {
  return Number((await gateway.store.db.selectFrom('hosted_api_scans').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

describe.each(DIALECTS)('hosted-API scan on %s', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { outbound_allow_private: true } });
  let viewer: string;
  let operator: string;

  beforeAll(async () => {
    viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer' } }))).token;
    operator = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'ops', role: 'operator' } }))).token;
  });

  it('reads <endpoint_url>/openapi.json and finds the chat operation, bearer auth and the email and card number it answers', async () => {
    const { gateway } = ctx;
    const response = await scan(gateway, { endpoint_url: host.url, docs_url: `${host.url}/docs`, purpose: 'support assistant' }, operator);
    expect(response.status).toBe(201);
    const body = await json(response);
    const expectedSha = createHash('sha256').update(JSON.stringify(CHAT_API_DOCUMENT)).digest('hex');
    expect(body).toMatchObject({
      status: 'completed',
      endpoint_url: host.url,
      docs_url: `${host.url}/docs`,
      openapi_spec_url: null,
      purpose: 'support assistant',
      document_url: `${host.url}/openapi.json`,
      document_sha256: expectedSha,
      error: null,
    });
    const result = body.result;
    expect(result).toMatchObject({ format: 'json', spec_version: '3.0.3', title: 'Acme Model API', api_version: '1.4.0', operations_count: 3, truncated: false });
    expect(result.operations).toEqual(['GET /health', 'GET /v1/models', 'POST /v1/chat/completions']);
    expect(result.model_serving).toEqual([
      { operation: 'POST /v1/chat/completions', kind: 'chat_completions', signals: ['path:chat_completions', 'operation:chat_completions', 'request:max_tokens', 'request:messages', 'request:temperature'] },
    ]);
    expect(result.auth.schemes).toEqual([{ name: 'bearerAuth', type: 'http', descriptor: 'http:bearer' }]);
    expect(result.auth.summary).toEqual(['http:bearer', 'none']);
    expect(result.auth.unauthenticated_operations).toBe(1);
    expect(result.auth.risks).toEqual([{ code: 'unauthenticated_operations', detail: '1 operation(s) require no credential', operations: ['GET /health'] }]);
    expect(result.exposed_data).toEqual([
      { class: 'financial', field: 'card_number', in_request: false, in_response: true, operations: ['POST /v1/chat/completions'] },
      { class: 'personal', field: 'email', in_request: false, in_response: true, operations: ['POST /v1/chat/completions'] },
    ]);
    expect(result.data_classes).toEqual(['financial', 'personal']);

    const row = await gateway.store.db.selectFrom('hosted_api_scans').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'completed', document_sha256: expectedSha, error: null, purpose: 'support assistant' });
    expect(JSON.parse(row.result as string)).toEqual(result);
    const [entry] = await auditOf(gateway, body.id);
    expect(entry).toMatchObject({ action: 'hosted_api.scanned', detail: { status: 'completed', document_url: `${host.url}/openapi.json`, model_serving: 1, data_classes: ['financial', 'personal'] } });
  });

  it('reads a YAML OpenAPI 3.1 document (aliases within the budget) and a Swagger 2.0 one', async () => {
    const yaml = await json(scan(ctx.gateway, { endpoint_url: `${host.url}/v1`, openapi_spec_url: `${host.url}/specs/chat.yaml` }));
    expect(yaml).toMatchObject({ status: 'completed', document_url: `${host.url}/specs/chat.yaml`, result: { format: 'yaml', spec_version: '3.1.0', operations: ['POST /v1/chat/completions'] } });
    expect(yaml.result.model_serving[0]).toMatchObject({ operation: 'POST /v1/chat/completions', kind: 'chat_completions' });
    expect(yaml.result.model_serving[0].signals).toEqual(expect.arrayContaining(['request:messages', 'request:prompt']));
    expect(yaml.result.auth.summary).toEqual(['http:bearer']);
    expect(yaml.result.exposed_data.map((field: { class: string; field: string }) => `${field.class}:${field.field}`)).toEqual(['financial:cardNumber', 'personal:email']);

    const swagger = await json(scan(ctx.gateway, { endpoint_url: host.url, openapi_spec_url: `${host.url}/specs/swagger.json` }));
    expect(swagger).toMatchObject({ status: 'completed', result: { spec_version: '2.0', operations: ['GET /users/{id}', 'POST /embeddings'] } });
    expect(swagger.result.model_serving).toEqual([{ operation: 'POST /embeddings', kind: 'embeddings', signals: ['path:embeddings'] }]);
    expect(swagger.result.auth.risks.map((risk: { code: string }) => risk.code)).toEqual(['unauthenticated_operations', 'unauthenticated_model_serving', 'api_key_in_query']);
    expect(swagger.result.auth.summary).toEqual(['apiKey:query:api_key', 'none']);
    expect(swagger.result.exposed_data.map((field: { class: string; field: string }) => `${field.class}:${field.field}`)).toEqual([
      'credentials:password',
      'health:patient_id',
      'personal:date_of_birth',
    ]);
  });

  it('follows a same-origin redirect and takes <endpoint_url>/openapi.json under a base path', async () => {
    const moved = await json(scan(ctx.gateway, { endpoint_url: host.url, openapi_spec_url: `${host.url}/moved.json` }));
    expect(moved).toMatchObject({ status: 'completed', result: { document_url: `${host.url}/openapi.json` } });
    const based = await json(scan(ctx.gateway, { endpoint_url: `${host.url}/v1/?key=ignored` }));
    expect(based).toMatchObject({ status: 'completed', document_url: `${host.url}/v1/openapi.json` });
  });

  it('records documents it cannot read as failed with the reason: too large, redirected away, garbage, alias bomb, too deep, not OpenAPI, 404, refused connection', async () => {
    const { gateway } = ctx;
    const cases: Array<[string, RegExp]> = [
      ['/huge.json', /larger than 5 MiB/],
      ['/elsewhere.json', /another origin/],
      ['/garbage', /not an object/],
      ['/broken.json', /not valid JSON/],
      ['/bomb.yaml', /aliases expand too far/],
      ['/deep.json', /nests deeper than 64/],
      ['/not-a-spec.json', /not an OpenAPI 3\.x or Swagger 2\.0 document/],
      ['/missing.json', /HTTP 404/],
    ];
    for (const [path, reason] of cases) {
      const started = Date.now();
      const response = await scan(gateway, { endpoint_url: host.url, openapi_spec_url: `${host.url}${path}` });
      expect(response.status, path).toBe(201);
      const body = await json(response);
      expect(body, path).toMatchObject({ status: 'failed', result: null });
      expect(body.error, path).toMatch(reason);
      expect(Date.now() - started, path).toBeLessThan(5000);
      const row = await gateway.store.db.selectFrom('hosted_api_scans').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'failed', result: null, error: body.error });
    }
    expect(host.requests.filter((path) => path === '/openapi.json').length).toBeGreaterThan(0);
    // Nothing listens on port 1.
    const refused = await json(scan(gateway, { endpoint_url: 'http://127.0.0.1:1' }));
    expect(refused).toMatchObject({ status: 'failed', document_sha256: null });
    expect(refused.error).toMatch(/ECONNREFUSED/);
  });

  it('refuses a URL no policy allows (scheme, credentials) with 422 naming the field, and records nothing', async () => {
    const { gateway } = ctx;
    const before = await scanCount(gateway);
    const ftp = await scan(gateway, { endpoint_url: 'ftp://127.0.0.1/api' });
    expect(ftp.status).toBe(422);
    expect(ftp.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await json(ftp)).errors).toEqual([{ field: '/body/endpoint_url', message: 'scheme ftp: is not http(s)' }]);
    const credentials = await json(scan(gateway, { endpoint_url: host.url, openapi_spec_url: `http://user:pw@127.0.0.1:${host.port}/openapi.json` }));
    expect(credentials).toMatchObject({ status: 422, errors: [{ field: '/body/openapi_spec_url' }] });
    const notUrl = await json(scan(gateway, { endpoint_url: host.url, docs_url: 'not a url' }));
    expect(notUrl).toMatchObject({ status: 422, errors: [{ field: '/body/docs_url', message: 'not a URL' }] });
    expect(await scanCount(gateway)).toBe(before);
  });

  it('reads a document for monitors (readDocument): digest, operations, model-serving operations and auth; a failure throws the reason', async () => {
    const { hostedApi } = ctx.gateway.app.services;
    const document = await hostedApi.readDocument(`${host.url}/openapi.json`);
    expect(document).toEqual({
      url: `${host.url}/openapi.json`,
      sha256: createHash('sha256').update(JSON.stringify(CHAT_API_DOCUMENT)).digest('hex'),
      operations: ['GET /health', 'GET /v1/models', 'POST /v1/chat/completions'],
      model_serving: ['POST /v1/chat/completions'],
      auth: ['http:bearer', 'none'],
    });
    await expect(hostedApi.readDocument(`${host.url}/bomb.yaml`)).rejects.toThrow(/aliases expand too far/);
    await expect(hostedApi.readDocument('ftp://127.0.0.1/x')).rejects.toThrow(/not http\(s\)/);
  });

  it('needs an operator token', async () => {
    const { gateway } = ctx;
    const before = await scanCount(gateway);
    expect((await scan(gateway, { endpoint_url: host.url }, null)).status).toBe(401);
    expect((await scan(gateway, { endpoint_url: host.url }, viewer)).status).toBe(403);
    expect(await scanCount(gateway)).toBe(before);
  });

  it('refuses malformed bodies with 400 and stores NUL and lone surrogates in purpose as U+FFFD', async () => {
    const { gateway } = ctx;
    for (const body of [{}, { endpoint_url: '' }, { endpoint_url: host.url, purpose: 'x'.repeat(501) }, { endpoint_url: host.url, extra: 1 }, { endpoint_url: `${host.url}/\u0000` }]) {
      const response = await scan(gateway, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    const odd = await json(scan(gateway, { endpoint_url: host.url, purpose: 'a\u0000b\ud800c' }));
    expect(odd).toMatchObject({ status: 'completed', purpose: 'a\uFFFDb\uFFFDc' });
  });

  it('answers hostile input with a 4xx problem or a success, never a 5xx', async () => {
    const { failures, operations, sent } = await hostileRequestFailures(ctx.gateway, [PATH]);
    expect(operations).toEqual([`POST ${PATH}`]);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(5);
  }, 120_000);
});

describe.each(DIALECTS)('hosted-API scan under the default outbound policy on %s', (dialect) => {
  const ctx = withGateway({ dialect });

  it('refuses http, loopback and local names with 422 naming each field, calls nothing and records nothing', async () => {
    const { gateway } = ctx;
    const requestsBefore = host.requests.length;
    const plain = await json(scan(gateway, { endpoint_url: host.url }));
    expect(plain).toMatchObject({ status: 422, errors: [{ field: '/body/endpoint_url', message: expect.stringMatching(/only https/) }] });
    const loopback = await json(scan(gateway, { endpoint_url: 'https://127.0.0.1/api', docs_url: 'https://localhost/docs', openapi_spec_url: 'https://10.1.2.3/openapi.json' }));
    expect(loopback.status).toBe(422);
    expect(loopback.errors.map((error: { field: string }) => error.field)).toEqual(['/body/endpoint_url', '/body/docs_url', '/body/openapi_spec_url']);
    const metadata = await json(scan(gateway, { endpoint_url: 'https://169.254.169.254/latest' }));
    expect(metadata).toMatchObject({ status: 422, errors: [{ field: '/body/endpoint_url' }] });
    expect(host.requests.length).toBe(requestsBefore);
    expect(await scanCount(gateway)).toBe(0);
    await expect(gateway.app.services.hostedApi.readDocument(`${host.url}/openapi.json`)).rejects.toThrow(/only https/);
  });
});
