// Hot path: no I/O here. The rails detectors: one opt-in detector `rails.catalog.<name>` per
// catalogued validator, and `rails.validator_set`, which runs the validators named in
// `rails_validators` as one guard reporting RAILS.BLOCKED (spec 01 §2.4). Validators that read
// settings (rails_banned_terms, rails_validators) see them through bindRailsSettings(), which the
// composition root applies to the registry's detector list at start; unbound, those settings are
// empty and the validators that need them say so.
import { SURFACES, type Availability, type Detection, type Detector, type Surface } from '../types.js';
import { NO_RAILS_SETTINGS, type CatalogValidator, type RailsSettings } from './catalog.js';
import { validJson } from './json.js';
import { drugs, toxicLanguage } from './lexicons.js';
import { profanity } from './profanity.js';
import { validSql } from './sql.js';
import { bannedTerms } from './terms.js';
import { promptInjection } from './unusual.js';

export type { RailsSettings } from './catalog.js';

/** The catalogue, by name. */
export const RAILS_CATALOG: readonly CatalogValidator[] = [validJson, validSql, profanity, bannedTerms, toxicLanguage, drugs, promptInjection];
const BY_NAME = new Map(RAILS_CATALOG.map((validator) => [validator.name, validator]));

export const CATALOG_PREFIX = 'rails.catalog.';
export const VALIDATOR_SET_KEY = 'rails.validator_set';

/** Detectors this module made, so that binding replaces only them. */
const made = new WeakSet<Detector>();

function catalogDetector(validator: CatalogValidator, settings: RailsSettings): Detector {
  const detector: Detector = {
    key: `${CATALOG_PREFIX}${validator.name}`,
    surfaces: validator.surfaces,
    entityTypes: [validator.entity],
    costRank: validator.costRank,
    optIn: true,
    available: () => validator.available(settings),
    detect: (text, context) => validator.check(text, context, settings),
  };
  if (validator.wholeText === true) detector.wholeText = true;
  const warmUp = validator.warmUp;
  if (warmUp !== undefined) detector.warmUp = () => warmUp(settings);
  made.add(detector);
  return detector;
}

/** The surfaces rails.validator_set serves when it has no validators (its placeholder's). */
const DEFAULT_SET_SURFACES: readonly Surface[] = SURFACES.filter((surface) => surface !== 'tool_args');

function validatorSet(settings: RailsSettings): Detector {
  const unknown = settings.validators.filter((name) => !BY_NAME.has(name));
  const members = [...new Set(settings.validators)].flatMap((name) => BY_NAME.get(name) ?? []);
  const surfaces = members.length === 0 ? DEFAULT_SET_SURFACES : SURFACES.filter((surface) => members.some((member) => member.surfaces.includes(surface)));
  const availability = (): Availability => {
    if (settings.validators.length === 0) {
      return { available: false, reason: 'needs validator names in the setting rails_validators; the list is empty' };
    }
    if (unknown.length > 0) {
      return {
        available: false,
        reason: `needs known validators in rails_validators: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in the catalogue (${RAILS_CATALOG.map((v) => v.name).join(', ')})`,
      };
    }
    for (const member of members) {
      const own = member.available(settings);
      if (!own.available) return { available: false, reason: `validator ${member.name}: ${own.reason ?? 'unavailable'}` };
    }
    return { available: true };
  };
  const detector: Detector = {
    key: VALIDATOR_SET_KEY,
    surfaces,
    entityTypes: ['RAILS.BLOCKED'],
    costRank: 71,
    optIn: true,
    available: availability,
    detect: (text, context) => {
      const found: Detection[] = [];
      for (const member of members) {
        if (!member.surfaces.includes(context.surface)) continue;
        for (const detection of member.check(text, context, settings)) {
          found.push({
            entity: 'RAILS.BLOCKED',
            score: detection.score,
            start: detection.start,
            end: detection.end,
            pattern: `${member.name}: ${detection.pattern ?? detection.entity}`,
            ...(detection.validator !== undefined ? { validator: detection.validator } : {}),
            explanation: `rails validator ${member.name} fired (${detection.entity}): ${detection.explanation}`,
          });
        }
      }
      return found;
    },
    warmUp: () => {
      for (const member of members) member.warmUp?.(settings);
    },
  };
  if (members.some((member) => member.wholeText === true)) detector.wholeText = true;
  made.add(detector);
  return detector;
}

/** Every rails detector: the catalogue's, then the validator set. */
export function createRailsDetectors(settings: RailsSettings = NO_RAILS_SETTINGS): Detector[] {
  return [...RAILS_CATALOG.map((validator) => catalogDetector(validator, settings)), validatorSet(settings)];
}

/**
 * The list with every rails detector made here rebuilt on these settings; other detectors (and
 * rails detectors a test made itself) stay as they are.
 */
export function bindRailsSettings(detectors: readonly Detector[], settings: RailsSettings): Detector[] {
  const bound = new Map(createRailsDetectors(settings).map((detector) => [detector.key, detector]));
  return detectors.map((detector) => (made.has(detector) ? (bound.get(detector.key) ?? detector) : detector));
}

export const railsDetectors: readonly Detector[] = createRailsDetectors();
