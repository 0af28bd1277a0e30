// Every route in /openapi.json, sent malformed input, answers 4xx problem+json, never 5xx, and
// changes nothing (no audit entry appears).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, startGateway, type TestGateway } from './helpers/gateway.js';
import { casesFor, operations, type OpenApiDocument } from './helpers/openapi-fuzz.js';

describe.each(DIALECTS)('OpenAPI fuzz walk (%s)', (dialect) => {
  let gateway: TestGateway;
  let trafficToken: string;

  beforeAll(async () => {
    gateway = await startGateway({ dialect, overrides: { body_limit_bytes: 64 * 1024 } });
    trafficToken = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'fuzz', role: 'traffic' } }))).token;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('answers every bad request to every documented route with a 4xx problem and changes nothing', async () => {
    const document = (await json(fetch(`${gateway.url}/openapi.json`))) as OpenApiDocument;
    const auditCount = async () =>
      Number((await gateway.store.db.selectFrom('audit_entries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const auditBefore = await auditCount();

    const failures: string[] = [];
    let sent = 0;
    for (const { method, path, operation } of operations(document)) {
      const credential = path.startsWith('/v1') ? trafficToken : gateway.adminToken;
      for (const fuzz of casesFor(document, method, path, operation, { credential, bodyLimit: gateway.config.body_limit_bytes })) {
        const response = await fetch(gateway.url + fuzz.path, { method: fuzz.method, headers: fuzz.headers, body: fuzz.body });
        sent += 1;
        const text = await response.text();
        const label = `${fuzz.route} [${fuzz.name}] → ${response.status}`;
        if (!fuzz.expect.includes(response.status)) failures.push(`${label}, expected ${fuzz.expect.join('|')}: ${text.slice(0, 200)}`);
        if (response.status >= 400) {
          if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json')) {
            failures.push(`${label}: content-type ${response.headers.get('content-type')}`);
            continue;
          }
          const problem = JSON.parse(text) as Record<string, unknown>;
          for (const field of ['type', 'title', 'status', 'detail']) {
            if (problem[field] === undefined) failures.push(`${label}: problem without ${field}`);
          }
          if (problem.status !== response.status) failures.push(`${label}: problem status ${String(problem.status)}`);
          if (response.status === 400 && fuzz.name.startsWith('wrong type') && !Array.isArray(problem.errors)) {
            failures.push(`${label}: invalid-body problem without errors`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(operations(document).length * 2);
    expect(await auditCount()).toBe(auditBefore);
    expect((await gateway.request('/api/me')).status).toBe(200);
  });
});
