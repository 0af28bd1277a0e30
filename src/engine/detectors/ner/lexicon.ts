// The language data of pii.ner: first names, last names and place names from the lexicon that
// ships inside the `compromise` npm package (MIT), plus its lists of words that end organisation
// and place names. Loaded once, synchronously, at gateway start (warmUp) or on the first
// available(); never fetched from the network. Compromise's own tagger is not used on the hot
// path: it costs about 30 ms per KB here, far over the detector budget, so detection runs this
// module's rules over the lexicon instead (see entities.ts).
import { createRequire } from 'node:module';

export type PlaceKind = 'country' | 'region' | 'city' | 'place';

export interface NerLexicon {
  /** Lower-case given names (male, female and unisex). */
  firstNames: ReadonlySet<string>;
  lastNames: ReadonlySet<string>;
  /** Lower-case place names, single or several words ("new york", "burkina faso"). */
  places: ReadonlyMap<string, PlaceKind>;
  /** First words of the place names: a word not in here starts no place name. */
  placeStarts: ReadonlySet<string>;
  /** The longest place name in words. */
  maxPlaceWords: number;
  /** Lower-case words the lexicon knows as something other than a name or place (verbs, adjectives, …). */
  common: ReadonlySet<string>;
  /** Words that end an organisation's name ("bank", "orchestra") or a place's ("bay", "creek"). */
  orgWords: ReadonlySet<string>;
  placeWords: ReadonlySet<string>;
}

/** The package the lexicon comes from; the detector's unavailability reason names it. */
export const NER_PACKAGE = 'compromise';

interface CompromiseModel {
  one?: { lexicon?: Record<string, string | string[]> };
  two?: { orgWords?: Record<string, unknown>; placeWords?: Record<string, unknown> };
}

const NAME_TAGS = new Set(['FirstName', 'MaleName', 'FemaleName']);
const PLACE_TAGS: ReadonlyMap<string, PlaceKind> = new Map([
  ['Country', 'country'],
  ['Region', 'region'],
  ['City', 'city'],
  ['Place', 'place'],
]);
// Tags that say nothing about whether a capitalised word is a name.
const NEUTRAL_TAGS = new Set(['ProperNoun', 'Person', 'Organization', 'SportsTeam', 'Demonym', 'Honorific', 'Month', 'WeekDay', 'Holiday']);

/** Builds the lexicon from compromise's model; throws when the package is missing or changed shape. */
export function loadLexicon(): NerLexicon {
  const require = createRequire(import.meta.url);
  const nlp = require(NER_PACKAGE) as { model?: () => CompromiseModel };
  if (typeof nlp.model !== 'function') throw new Error(`${NER_PACKAGE} has no model()`);
  const model = nlp.model();
  const raw = model.one?.lexicon;
  if (raw === undefined) throw new Error(`${NER_PACKAGE} ships no lexicon`);
  const firstNames = new Set<string>();
  const lastNames = new Set<string>();
  const places = new Map<string, PlaceKind>();
  const common = new Set<string>();
  let maxPlaceWords = 1;
  for (const [word, tagValue] of Object.entries(raw)) {
    const tags = Array.isArray(tagValue) ? tagValue : [tagValue];
    const place = tags.map((tag) => PLACE_TAGS.get(tag)).find((kind) => kind !== undefined);
    if (place !== undefined) {
      places.set(word, place);
      maxPlaceWords = Math.max(maxPlaceWords, word.split(' ').length);
    } else if (tags.some((tag) => NAME_TAGS.has(tag))) {
      if (!word.includes(' ')) firstNames.add(word);
    } else if (tags.includes('LastName')) {
      if (!word.includes(' ')) lastNames.add(word);
    } else if (!word.includes(' ') && !tags.every((tag) => NEUTRAL_TAGS.has(tag))) {
      common.add(word);
    }
  }
  if (firstNames.size < 1000 || places.size < 300) throw new Error(`${NER_PACKAGE}'s lexicon is smaller than expected`);
  const placeStarts = new Set([...places.keys()].map((name) => name.split(' ')[0] ?? name));
  return {
    placeStarts,
    firstNames,
    lastNames,
    places,
    maxPlaceWords: Math.min(maxPlaceWords, 5),
    common,
    orgWords: new Set(Object.keys(model.two?.orgWords ?? {})),
    placeWords: new Set(Object.keys(model.two?.placeWords ?? {})),
  };
}
