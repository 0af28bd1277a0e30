// GET /api/providers on both engines: configured upstreams, a hosted judgment tier shown as hosted
// and remote, the egress posture, and no key or token anywhere in the answer; role checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, startGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { DEFAULT_DETECTORS } from '../../infra/config/schema.js';

const OPENAI_KEY = 'sk-openai-secret-0123456789abcdef';
const ANTHROPIC_KEY = 'sk-ant-secret-fedcba9876543210';
const SECRET_KEY = 'providers-test-secret-key-0123456789abcdef';
const JUDGE_ENV = 'PROVIDERS_TEST_JUDGE_KEY';
const JUDGE_KEY = 'judge-secret-value-55aa55aa55aa';

describe.each(DIALECTS)('providers (%s)', (dialect) => {
  let gateway: TestGateway;

  beforeAll(async () => {
    process.env[JUDGE_ENV] = JUDGE_KEY;
    gateway = await startGateway({
      dialect,
      overrides: {
        upstream_openai_api_key: OPENAI_KEY,
        upstream_anthropic_api_key: ANTHROPIC_KEY,
        upstream_anthropic_base_url: 'http://user:pw@127.0.0.1:9999/anthropic?token=abc',
        secret_key: SECRET_KEY,
        allow_egress: true,
        judgment_tiers: ['http://127.0.0.1:9/v1|small', `https://judge.example.com/v1|big|${JUDGE_ENV}`],
        enabled_detectors: [...DEFAULT_DETECTORS, 'injection.judgment', 'pii.judgment'],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    delete process.env[JUDGE_ENV];
  });

  it('shows every upstream, the judgment tiers with where they send payloads, the egress posture and where detectors run', async () => {
    const response = await gateway.request('/api/providers');
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.upstreams).toEqual([
      { api: 'chat-completions', route: '/v1/chat/completions', base_url: 'https://api.openai.com/v1', host: 'api.openai.com', where: 'hosted', key_setting: 'upstream_openai_api_key', key_set: true },
      { api: 'responses', route: '/v1/responses', base_url: 'https://api.openai.com/v1', host: 'api.openai.com', where: 'hosted', key_setting: 'upstream_openai_api_key', key_set: true },
      // User info and query are dropped: they may carry secrets.
      { api: 'messages', route: '/v1/messages', base_url: 'http://127.0.0.1:9999/anthropic', host: '127.0.0.1:9999', where: 'local', key_setting: 'upstream_anthropic_api_key', key_set: true },
    ]);
    expect(body.judgment.tiers).toEqual([
      { name: '127.0.0.1:9/small', kind: 'local', model: 'small', host: '127.0.0.1:9', key_env: null, key_set: null, used: true, why_not: null },
      { name: 'judge.example.com/big', kind: 'hosted', model: 'big', host: 'judge.example.com', key_env: JUDGE_ENV, key_set: true, used: true, why_not: null },
      { name: 'deterministic', kind: 'deterministic', model: null, host: null, key_env: null, key_set: null, used: true, why_not: null },
    ]);
    expect(body.judgment).toMatchObject({ backend: 'auto', source: 'settings', sends_off_machine: true });
    expect(body.egress).toEqual({ allow_egress: true, pii_egress: 'block', hosted_destinations: ['api.openai.com', 'judge.example.com'] });
    const placement = (key: string) => body.detectors.find((detector: { key: string }) => detector.key === key);
    expect(placement('injection.judgment')).toMatchObject({ runs: 'remote', sends_to: ['127.0.0.1:9', 'judge.example.com'] });
    expect(placement('pii.judgment')).toMatchObject({ runs: 'remote' });
    expect(placement('injection.heuristic')).toMatchObject({ runs: 'local', sends_to: [] });
    expect(body.detectors.filter((detector: { runs: string }) => detector.runs === 'remote').map((detector: { key: string }) => detector.key).sort()).toEqual(['injection.judgment', 'pii.judgment']);
    expect(body.exports.targets).toEqual([]);

    // Nothing secret: no key, token or URL credential.
    const text = JSON.stringify(body);
    for (const secret of [OPENAI_KEY, ANTHROPIC_KEY, SECRET_KEY, JUDGE_KEY, gateway.adminToken, gateway.trafficToken, 'user:pw', 'token=abc']) expect(text).not.toContain(secret);
  });

  it('shows judgment as local once the posture keeps payloads on the machine', async () => {
    const put = await gateway.request('/api/judgment/posture', { method: 'PUT', json: { backend: 'local', reason: 'keep payloads here' } });
    expect(put.status).toBe(200);
    const body = await json(gateway.request('/api/providers'));
    expect(body.judgment.tiers[1]).toMatchObject({ kind: 'hosted', used: false, why_not: 'hosted and the backend is local' });
    expect(body.egress.hosted_destinations).toEqual(['api.openai.com']);
    expect(body.detectors.find((detector: { key: string }) => detector.key === 'injection.judgment')).toMatchObject({ runs: 'local', sends_to: ['127.0.0.1:9'] });
  });

  it('lets a viewer read it and refuses without a credential', async () => {
    const viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer' } }))).token;
    expect((await gateway.request('/api/providers', { token: viewer })).status).toBe(200);
    expect((await gateway.request('/api/providers', { token: null })).status).toBe(401);
    expect((await gateway.request('/api/providers', { token: gateway.trafficToken })).status).toBe(403);
  });
});
