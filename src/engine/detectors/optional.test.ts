// Hot path: no I/O here (the detectors); these tests pin the registered-but-unavailable opt-in
// detectors of spec 01 §2.4.
import { describe, expect, it } from 'vitest';
import { optionalDetectors } from './optional.js';
import { SURFACES } from './types.js';

const KEYS = [
  'pii.ner',
  'injection.classifier',
  'injection.similarity',
  'safety.vendor_classifier',
  'safety.restricted',
  'rails.config_engine',
  'rails.validator_set',
  'injection.judgment',
  'pii.judgment',
];

const byKey = new Map(optionalDetectors.map((detector) => [detector.key, detector]));

describe('optional detectors', () => {
  it('registers exactly the nine opt-in keys, once each', () => {
    expect(optionalDetectors.map((detector) => detector.key).sort()).toEqual([...KEYS].sort());
  });

  it.each(KEYS)('%s is opt-in, unavailable with a reason, and refuses to run', (key) => {
    const detector = byKey.get(key);
    expect(detector).toBeDefined();
    if (detector === undefined) return;
    expect(detector.optIn).toBe(true);
    const availability = detector.available();
    expect(availability.available).toBe(false);
    expect(availability.reason).toMatch(/needs .{10,}/);
    expect(detector.entityTypes.length).toBeGreaterThan(0);
    expect(detector.surfaces.length).toBeGreaterThan(0);
    for (const surface of detector.surfaces) expect(SURFACES).toContain(surface);
    expect(detector.costRank).toBeGreaterThanOrEqual(key.endsWith('.judgment') ? 100 : 50);
    expect(() => detector.detect('text', { surface: 'input', settings: { pii_packs: [] } })).toThrow(/not available/);
  });

  it.each([
    ['pii.ner', ['PII.PERSON', 'PII.LOCATION', 'PII.DATE_TIME', 'PII.US_DRIVER_LICENSE', 'PII.MEDICAL_LICENSE', 'PII.CRYPTO_WALLET']],
    ['injection.classifier', ['INJECTION.JAILBREAK']],
    ['injection.similarity', ['INJECTION.SEMANTIC_SIMILARITY']],
    ['safety.vendor_classifier', ['SAFETY.HARM']],
    ['safety.restricted', ['SAFETY.HARM']],
    ['rails.config_engine', ['RAILS.BLOCKED']],
    ['rails.validator_set', ['RAILS.BLOCKED']],
    ['injection.judgment', ['INJECTION.INSTRUCTION_OVERRIDE']],
    ['pii.judgment', ['PII.PRESENT_UNLOCATED']],
  ])('%s reports the entity types of spec 01 §2.5', (key, entityTypes) => {
    expect(byKey.get(key)?.entityTypes).toEqual(entityTypes);
  });

  it.each([
    ['injection.classifier', 250],
    ['injection.similarity', 150],
    ['injection.judgment', 2000],
    ['pii.judgment', 2000],
    ['pii.ner', undefined],
    ['rails.config_engine', undefined],
  ])('%s declares its own timeout (%s ms) per spec 01 §8', (key, timeoutMs) => {
    expect(byKey.get(key)?.timeoutMs).toBe(timeoutMs);
  });

  it('tells judgment detectors apart from model detectors in the reason', () => {
    expect(byKey.get('injection.judgment')?.available().reason).toMatch(/judgment_tiers.*allow_egress/);
    expect(byKey.get('injection.classifier')?.available().reason).toMatch(/weights/);
  });

  it('marks only safety.restricted as carrying a restricted model licence', () => {
    expect(optionalDetectors.filter((detector) => detector.restrictedLicence === true).map((detector) => detector.key)).toEqual(['safety.restricted']);
  });
});
