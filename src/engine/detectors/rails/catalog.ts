// Hot path: no I/O here. The rails catalogue of spec 01 §2.4: small validators, each reporting one
// entity type of spec 01 §2.5. Each becomes its own opt-in detector `rails.catalog.<name>`, and
// `rails.validator_set` runs the ones named in `rails_validators` as one guard (index.ts).
import type { Availability, Detection, DetectContext, Surface } from '../types.js';

/** The settings the catalogue reads (from the configuration, bound at gateway start). */
export interface RailsSettings {
  /** `rails_banned_terms`: words and phrases the banned_terms validator reports. */
  banned_terms: readonly string[];
  /** `rails_validators`: catalogue names rails.validator_set runs. */
  validators: readonly string[];
}

export const NO_RAILS_SETTINGS: RailsSettings = { banned_terms: [], validators: [] };

export interface CatalogValidator {
  /** The catalogue name: the detector key is `rails.catalog.<name>`. */
  name: string;
  /** The one entity type it reports. */
  entity: string;
  surfaces: readonly Surface[];
  costRank: number;
  /** It must see the whole text (a parser); otherwise the runner may scan it in pieces. */
  wholeText?: boolean;
  available(settings: RailsSettings): Availability;
  /** Loads what the first check would otherwise load (a parser package, a compiled list). */
  warmUp?(settings: RailsSettings): void;
  check(text: string, context: DetectContext, settings: RailsSettings): Detection[];
}

/** Detections one validator reports per text; past it the rest add nothing a policy needs. */
export const MAX_DETECTIONS = 50;

/** A letter or digit in any script: the edge of a word. */
const WORD_UNIT = /[\p{L}\p{N}_]/u;

function isWordUnit(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code < 0x80) return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
  return WORD_UNIT.test(text[at] ?? '');
}

/** Whether text[start, end) stands as a whole word (or the term itself begins/ends with a non-word). */
export function atWordEdges(text: string, start: number, end: number): boolean {
  if (start > 0 && isWordUnit(text, start - 1) && isWordUnit(text, start)) return false;
  return !(end < text.length && isWordUnit(text, end) && isWordUnit(text, end - 1));
}
