// pii.ner through POST /v1/guard/input with it enabled: named people, places, dates and wallets are
// reported with their detector, the baseline pack tokenizes them on input, text without personal
// data passes untouched, and the detector is listed as available and opt-in.
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway } from '../../../../test/helpers/gateway.js';

describe.each(DIALECTS)('pii.ner over HTTP (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { enabled_detectors: ['pii.ner'] } });
  const check = async (content: string) =>
    json(ctx.gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'ner-agent', content } }));

  it('is listed as an available, enabled opt-in detector', async () => {
    const listed = await json(ctx.gateway.request('/api/detectors'));
    const item = listed.items.find((entry: { key: string }) => entry.key === 'pii.ner');
    expect(item).toMatchObject({ available: true, enabled: true, opt_in: true, reason: null });
  });

  it('reports a person, a place and a date, and the baseline pack tokenizes them on input', async () => {
    const decision = await check('My name is Tereza Vondráčková, I live in Portugal and was admitted on 3/17/1988.');
    expect([...decision.entities].sort()).toEqual(['PII.DATE_TIME', 'PII.LOCATION', 'PII.PERSON']);
    expect(decision.explanation.detectors).toEqual([{ key: 'pii.ner', status: 'ok', matched: true, ms: expect.any(Number) }]);
    const rule = decision.rules_fired.find((fired: { entity?: string }) => fired.entity === 'PII.PERSON');
    expect(rule).toMatchObject({ detector: 'pii.ner', score: expect.any(Number) });
    // The baseline pack starts in observe; in enforce it replaces each value by a token.
    const setMode = (mode: string) => ctx.gateway.request('/api/policies/baseline/mode', { method: 'POST', json: { mode } });
    expect((await setMode('enforce')).status).toBe(200);
    try {
      const enforced = await check('My name is Tereza Vondráčková, I live in Portugal and was admitted on 3/17/1988.');
      expect(enforced.transformed_content).toMatch(
        /^My name is <PII\.PERSON:[0-9a-f]{12}>, I live in <PII\.LOCATION:[0-9a-f]{12}> and was admitted on <PII\.DATE_TIME:[0-9a-f]{12}>\.$/,
      );
    } finally {
      expect((await setMode('observe')).status).toBe(200);
    }
  });

  it('reports a checksummed wallet and a labelled medical licence', async () => {
    const decision = await check('Send the fee to 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed; prescriber DEA number AB1234563.');
    expect([...decision.entities].sort()).toEqual(['PII.CRYPTO_WALLET', 'PII.MEDICAL_LICENSE']);
  });

  it('lets text without personal data through untouched', async () => {
    const decision = await check('Please summarise the attached report in three bullet points.');
    expect(decision.entities).toEqual([]);
    expect(decision.verdict).toBe('allow');
    expect(decision.explanation.detectors).toEqual([{ key: 'pii.ner', status: 'ok', matched: false, ms: expect.any(Number) }]);
  });
});
