// GET /api/eval/scorers over HTTP on both dialects: every scorer with its targets, params and
// thresholds; judge listed as unavailable with the way to make it available; viewers may read it,
// a request without a token may not.
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway } from '../../../../test/helpers/gateway.js';

describe.each(DIALECTS)('GET /api/eval/scorers (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  let viewer: string;

  beforeAll(async () => {
    viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer', ttl_days: 30 } }))).token;
  });

  it('lists every scorer with targets, threshold and params; judge unavailable without a tier', async () => {
    const response = await ctx.gateway.request('/api/eval/scorers', { token: viewer });
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.items.map((item: { name: string }) => item.name)).toEqual([
      'exact', 'contains', 'regex', 'json_schema', 'verdict', 'entities', 'refusal', 'over_refusal',
      'pii_leak', 'secret_leak', 'injection_followed', 'latency', 'cost', 'judge',
    ]);
    const byName = Object.fromEntries(body.items.map((item: { name: string }) => [item.name, item]));
    expect(byName.verdict).toMatchObject({ applies_to: ['guard', 'online'], threshold_kind: null, default_threshold: null, params: [], available: true });
    expect(byName.verdict.unavailable_reason).toBeUndefined();
    expect(byName.latency).toMatchObject({
      applies_to: ['guard', 'model', 'http', 'online'],
      threshold_kind: 'max',
      default_threshold: 5000,
      params: [{ name: 'max_ms', type: 'number', required: false, default: 5000 }],
    });
    expect(byName.regex.params.map((param: { name: string }) => param.name)).toEqual(['pattern', 'flags']);
    expect(byName.entities).toMatchObject({ applies_to: ['guard'], threshold_kind: 'min', default_threshold: 1 });
    expect(byName.judge).toMatchObject({
      threshold_kind: 'min',
      default_threshold: 0.7,
      params: [{ name: 'rubric', type: 'string', required: true }],
      available: false,
      unavailable_reason: 'needs a judgment tier: set judgment_tiers or PUT /api/judgment/posture',
    });
    for (const item of body.items) expect(item.description.length, item.name).toBeGreaterThan(20);
  });

  it('the admin reads it too; no token is 401, a traffic token 403, both problem+json', async () => {
    expect((await ctx.gateway.request('/api/eval/scorers')).status).toBe(200);
    const anonymous = await ctx.gateway.request('/api/eval/scorers', { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const traffic = await ctx.gateway.request('/api/eval/scorers', { token: ctx.gateway.trafficToken });
    expect(traffic.status).toBe(403);
    expect(traffic.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('is in the OpenAPI document with its response schema', async () => {
    const document = await json(ctx.gateway.request('/openapi.json'));
    const operation = document.paths['/api/eval/scorers']?.get;
    expect(operation).toBeDefined();
    expect(operation.responses['200']).toBeDefined();
  });
});
