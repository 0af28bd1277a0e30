// Hot path: no I/O here (the detectors); these tests pin the registered-but-unavailable opt-in
// detectors of spec 01 §2.4.
import { describe, expect, it } from 'vitest';
import { optionalDetectors } from './optional.js';
import { SURFACES } from './types.js';

const KEYS = [
  'safety.vendor_classifier',
  'safety.restricted',
  'rails.config_engine',
];

const byKey = new Map(optionalDetectors.map((detector) => [detector.key, detector]));

describe('optional detectors', () => {
  it('registers exactly the opt-in placeholders that need a package or model not shipped, once each', () => {
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
    expect(detector.costRank).toBeGreaterThanOrEqual(50);
    expect(() => detector.detect('text', { surface: 'input', settings: { pii_packs: [] } })).toThrow(/not available/);
  });

  it.each([
    ['safety.vendor_classifier', ['SAFETY.HARM']],
    ['safety.restricted', ['SAFETY.HARM']],
    ['rails.config_engine', ['RAILS.BLOCKED']],
  ])('%s reports the entity types of spec 01 §2.5', (key, entityTypes) => {
    expect(byKey.get(key)?.entityTypes).toEqual(entityTypes);
  });

  it.each([
    ['rails.config_engine', undefined],
  ])('%s declares its own timeout (%s ms) per spec 01 §8', (key, timeoutMs) => {
    expect(byKey.get(key)?.timeoutMs).toBe(timeoutMs);
  });

  it('says what a model detector needs in the reason', () => {
    expect(byKey.get('safety.vendor_classifier')?.available().reason).toMatch(/weights/);
  });

  it('marks only safety.restricted as carrying a restricted model licence', () => {
    expect(optionalDetectors.filter((detector) => detector.restrictedLicence === true).map((detector) => detector.key)).toEqual(['safety.restricted']);
  });
});
