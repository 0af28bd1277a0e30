import { describe, expect, it } from 'vitest';
import { DEFAULT_DETECTORS } from '../../infra/config/schema.js';
import { DIALECTS, json, startGateway, withGateway } from '../../../test/helpers/gateway.js';

describe.each(DIALECTS)('detectors API (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('lists every registered detector with availability, reason, enabled and statistics', async () => {
    const listed = await json(ctx.gateway.request('/api/detectors'));
    const byKey = new Map(listed.items.map((item: { key: string }) => [item.key, item]));
    for (const key of DEFAULT_DETECTORS) expect(byKey.get(key)).toMatchObject({ available: true, enabled: true, reason: null });
    for (const key of ['safety.vendor_classifier', 'safety.restricted', 'rails.config_engine', 'rails.validator_set', 'injection.judgment', 'pii.judgment']) {
      expect(byKey.get(key)).toMatchObject({ available: false, enabled: false, opt_in: true, reason: expect.any(String) });
    }
  });

  it('refuses to switch on a detector that is not installed (422)', async () => {
    const response = await ctx.gateway.request('/api/detectors/safety.vendor_classifier', { method: 'POST', json: { enabled: true } });
    expect(response.status).toBe(422);
    expect((await json(response)).detail).toContain('not installed');
    expect((await ctx.gateway.request('/api/detectors/no.such', { method: 'POST', json: { enabled: true } })).status).toBe(404);
  });

  it('refuses a restricted-licence detector while accept_restricted_model_licences is false', async () => {
    const listed = await json(ctx.gateway.request('/api/detectors'));
    const restricted = listed.items.find((item: { key: string }) => item.key === 'safety.restricted');
    expect(restricted).toMatchObject({ available: false, reason: expect.stringContaining('accept_restricted_model_licences') });
    const response = await ctx.gateway.request('/api/detectors/safety.restricted', { method: 'POST', json: { enabled: true } });
    expect(response.status).toBe(422);
    expect((await json(response)).detail).toContain('accept_restricted_model_licences');
    // Other model detectors carry no such licence: their reason is only the missing package.
    const classifier = listed.items.find((item: { key: string }) => item.key === 'safety.vendor_classifier');
    expect(classifier.reason).not.toContain('licence');
  });

  it('once restricted licences are accepted, a restricted detector is refused only for what is not installed', async () => {
    const accepting = await startGateway({ dialect, overrides: { accept_restricted_model_licences: true } });
    try {
      const listed = await json(accepting.request('/api/detectors'));
      const restricted = listed.items.find((item: { key: string }) => item.key === 'safety.restricted');
      expect(restricted.reason).toContain('not installed');
      expect(restricted.reason).not.toContain('accept_restricted_model_licences');
      const response = await accepting.request('/api/detectors/safety.restricted', { method: 'POST', json: { enabled: true } });
      expect(response.status).toBe(422);
      const detail = (await json(response)).detail as string;
      expect(detail).toContain('not installed');
      expect(detail).not.toContain('accept_restricted_model_licences');
    } finally {
      await accepting.close();
    }
  });

  it('switches a detector off and on, audited, and the pipeline follows', async () => {
    const guard = () =>
      json(ctx.gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'a', content: 'mail jane.doe@example.com' } }));
    expect((await guard()).entities).toContain('PII.EMAIL');
    const off = await ctx.gateway.request('/api/detectors/pii.native', { method: 'POST', json: { enabled: false, reason: 'noisy' } });
    expect(off.status).toBe(200);
    expect((await json(off)).enabled).toBe(false);
    try {
      expect((await guard()).entities).not.toContain('PII.EMAIL');
    } finally {
      await ctx.gateway.request('/api/detectors/pii.native', { method: 'POST', json: { enabled: true } });
    }
    expect((await guard()).entities).toContain('PII.EMAIL');
    const audit = await ctx.gateway.store.db.selectFrom('audit_entries').select('action').where('action', '=', 'detector.switch').execute();
    expect(audit).toHaveLength(2);
  });

  it('needs the operator role to switch detectors', async () => {
    const viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { role: 'viewer' } }))).token;
    expect((await ctx.gateway.request('/api/detectors/pii.native', { method: 'POST', token: viewer, json: { enabled: false } })).status).toBe(403);
  });
});
