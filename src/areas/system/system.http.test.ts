import { describe, expect, it } from 'vitest';
import { LATEST_MIGRATION } from '../../infra/store/migrations/index.js';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';

describe.each(DIALECTS)('platform routes (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { body_limit_bytes: 4096 } });

  it('answers liveness only on /health without a credential', async () => {
    const response = await fetch(`${ctx.gateway.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('refuses a bad credential on /health rather than ignoring it', async () => {
    expect((await ctx.gateway.request('/health', { token: 'ppt_op_nope' })).status).toBe(401);
  });

  it('reports what is unchecked on /api/health', async () => {
    const health = await json(ctx.gateway.request('/api/health'));
    expect(health.status).toBe('ok');
    expect(health.unchecked.map((gap: { what: string }) => gap.what)).toEqual(
      expect.arrayContaining(['degraded checks', 'chat-completions upstream', 'messages upstream']),
    );
  });

  it('reports every version taking part in a decision', async () => {
    const version = await json(ctx.gateway.request('/api/version'));
    expect(version).toMatchObject({ gateway: '0.1.0', schema_migration: LATEST_MIGRATION, node: process.version });
    expect(version.config_hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes the config hash when a decision setting changes, not when the port does', async () => {
    const { configHash } = await import('../../infra/config/load.js');
    const base = ctx.gateway.config;
    expect(configHash({ ...base, port: 1234 })).toBe(configHash(base));
    expect(configHash({ ...base, fail_mode: 'closed' })).not.toBe(configHash(base));
  });

  it('serves Prometheus metrics with requests by route template and status', async () => {
    await ctx.gateway.request('/api/tokens/tok_missing/revoke', { method: 'POST' });
    await ctx.gateway.request('/api/me');
    const response = await ctx.gateway.request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('parapet_process_cpu_user_seconds_total');
    expect(text).toMatch(/parapet_http_requests_total\{method="POST",route="\/api\/tokens\/:token_id\/revoke",status="404"\} \d+/);
    const bucket = (le: string) =>
      Number(new RegExp(`parapet_http_request_duration_seconds_bucket\\{method="GET",route="/api/me",le="${le.replace('+', '\\+')}"\\} (\\d+)`).exec(text)?.[1]);
    const count = Number(/parapet_http_request_duration_seconds_count\{method="GET",route="\/api\/me"\} (\d+)/.exec(text)?.[1]);
    expect(count).toBeGreaterThan(0);
    expect(bucket('+Inf')).toBe(count);
    expect(bucket('0.0005')).toBeLessThanOrEqual(bucket('5'));
    expect(text).toMatch(/# TYPE parapet_http_request_duration_seconds histogram/);
    expect((await fetch(`${ctx.gateway.url}/metrics`)).status).toBe(401);
  });

  it('sets X-Request-Id, keeping a well-formed one from the caller', async () => {
    const given = await ctx.gateway.request('/api/me', { headers: { 'x-request-id': 'trace-123.abc' } });
    expect(given.headers.get('x-request-id')).toBe('trace-123.abc');
    const generated = await ctx.gateway.request('/api/me', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await fetch(`${ctx.gateway.url}/api/me`);
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses bodies over the configured limit with 413', async () => {
    const response = await ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'x'.repeat(5000) } });
    expect(response.status).toBe(413);
    expect((await json(response)).type).toBe('urn:parapet:problem:body-too-large');
  });

  it('names each bad field of an invalid body', async () => {
    const response = await ctx.gateway.request('/api/tokens', { method: 'POST', json: { ttl_days: 'soon', colour: 'red' } });
    expect(response.status).toBe(400);
    const problem = await json(response);
    expect(problem.errors.map((error: { field: string }) => error.field)).toEqual(
      expect.arrayContaining(['/body/colour']),
    );
  });

  it('answers an unknown route with a 404 problem', async () => {
    const response = await fetch(`${ctx.gateway.url}/api/nothing-here`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  });
});
