import { describe, expect, it } from 'vitest';
import { ALL_DETECTORS } from '../index.js';
import { SURFACES, type DetectContext, type Detector } from '../types.js';
import { bindRailsSettings, createRailsDetectors, RAILS_CATALOG, railsDetectors } from './index.js';

const context: DetectContext = { surface: 'input', settings: { pii_packs: [] } };
const byKey = (list: readonly Detector[]) => new Map(list.map((d) => [d.key, d]));

describe('rails detectors', () => {
  it('registers one opt-in detector per catalogued validator, one entity type each, plus the validator set', () => {
    const keys = railsDetectors.map((d) => d.key);
    expect(keys).toEqual([...RAILS_CATALOG.map((v) => `rails.catalog.${v.name}`), 'rails.validator_set']);
    for (const detector of railsDetectors) {
      expect(detector.optIn).toBe(true);
      expect(detector.entityTypes).toHaveLength(1);
      for (const surface of detector.surfaces) expect(SURFACES).toContain(surface);
    }
    expect(Object.fromEntries(railsDetectors.map((d) => [d.key, d.entityTypes[0]]))).toEqual({
      'rails.catalog.valid_json': 'SCHEMA.JSON_INVALID',
      'rails.catalog.valid_sql': 'SCHEMA.SQL_INVALID',
      'rails.catalog.profanity': 'SAFETY.PROFANITY',
      'rails.catalog.banned_terms': 'SAFETY.BANNED_TERM',
      'rails.catalog.toxic_language': 'SAFETY.TOXIC',
      'rails.catalog.drugs': 'SAFETY.DRUGS',
      'rails.catalog.prompt_injection': 'INJECTION.UNUSUAL',
      'rails.validator_set': 'RAILS.BLOCKED',
    });
    for (const key of keys) expect(ALL_DETECTORS.filter((d) => d.key === key)).toHaveLength(1);
  });

  it('keeps the validators that need settings unavailable, with the reason, until they are bound', () => {
    const unbound = byKey(railsDetectors);
    expect(unbound.get('rails.catalog.banned_terms')?.available()).toEqual({ available: false, reason: expect.stringContaining('rails_banned_terms') });
    expect(unbound.get('rails.validator_set')?.available()).toEqual({ available: false, reason: expect.stringMatching(/^needs .*rails_validators/) });
    expect(unbound.get('rails.catalog.profanity')?.available()).toEqual({ available: true });
  });

  it('bindRailsSettings rebuilds only the rails detectors made here', () => {
    const own: Detector = { ...railsDetectors[0]!, detect: () => [] };
    const list = [ALL_DETECTORS[0]!, ...railsDetectors, own];
    const bound = bindRailsSettings(list, { banned_terms: ['falcon'], validators: ['banned_terms'] });
    expect(bound[0]).toBe(ALL_DETECTORS[0]);
    expect(bound.at(-1)).toBe(own);
    const map = byKey(bound.slice(0, -1));
    expect(map.get('rails.catalog.banned_terms')?.available()).toEqual({ available: true });
    expect(map.get('rails.validator_set')?.available()).toEqual({ available: true });
  });

  it('runs the named validators as one guard reporting RAILS.BLOCKED and which validator fired', async () => {
    const set = byKey(createRailsDetectors({ banned_terms: ['falcon'], validators: ['banned_terms', 'profanity'] })).get('rails.validator_set')!;
    const found = await set.detect('the Falcon launch is a fucking mess', context);
    expect(found.map((d) => [d.entity, d.pattern?.split(':')[0]])).toEqual([
      ['RAILS.BLOCKED', 'banned_terms'],
      ['RAILS.BLOCKED', 'profanity'],
    ]);
    expect(found[0]!.explanation).toMatch(/^rails validator banned_terms fired \(SAFETY.BANNED_TERM\)/);
    expect(await set.detect('a clean sentence', context)).toEqual([]);
  });

  it('serves the union of its validators surfaces and runs each only on its own', async () => {
    const set = byKey(createRailsDetectors({ banned_terms: [], validators: ['valid_json', 'toxic_language'] })).get('rails.validator_set')!;
    expect(set.surfaces).toContain('tool_args');
    expect(set.wholeText).toBe(true);
    expect(await set.detect('{"a": ', { ...context, surface: 'tool_args' })).toHaveLength(1);
    expect(await set.detect('{"a": ', context)).toEqual([]); // valid_json does not serve input
  });

  it('is unavailable when a name is unknown or a validator cannot run, saying which', () => {
    const unknown = byKey(createRailsDetectors({ banned_terms: [], validators: ['profanity', 'no_such', 'gibberish'] })).get('rails.validator_set')!;
    expect(unknown.available()).toEqual({ available: false, reason: expect.stringContaining('no_such, gibberish are not in the catalogue') });
    const empty = byKey(createRailsDetectors({ banned_terms: [], validators: ['banned_terms'] })).get('rails.validator_set')!;
    expect(empty.available()).toEqual({ available: false, reason: expect.stringContaining('validator banned_terms: needs words') });
  });
});
