// pii.ner (spec 01 §2.4, §2.5): named-entity PII — PERSON, LOCATION, DATE_TIME — with the
// identifier types that need more than a pattern pack: crypto wallets (checksums), US driver's
// licences and medical licences (DEA, NPI). Opt-in. The language data comes from the optional
// `compromise` package, loaded once at gateway start (warmUp) or on the first available(); when the
// package is missing the detector reports itself unavailable with the reason. detect() does no I/O.
import { removeOverlaps } from '../pii/native.js';
import { SURFACES, type Availability, type Detection, type Detector } from '../types.js';
import { findNerCandidates } from './entities.js';
import { loadLexicon, NER_PACKAGE, type NerLexicon } from './lexicon.js';

export const NER_ENTITY_TYPES: readonly string[] = [
  'PII.PERSON',
  'PII.LOCATION',
  'PII.DATE_TIME',
  'PII.US_DRIVER_LICENSE',
  'PII.MEDICAL_LICENSE',
  'PII.CRYPTO_WALLET',
];

/** A text that exercises every rule once. */
const WARM_UP_TEXT =
  'Dear Mrs. Jane Q. Doe, my name is Ana. We moved from Paris to 12 Oak Street, Via Roma 3, Lindenweg 4, Apt. 5, P.O. Box 6 ' +
  'on Monday 2024-01-02 10:00, 1/2/1990, March 3, 2020, 4 May 2021, June 2022, 5pm, in 1999, last week. ' +
  "Pay 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa, bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4 or 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed. " +
  "Driver's license 123456789, DEA AB1234563, NPI 1234567893, medical license 12345. Kónya, Becker and Vasquez met him.";

/** Builds the detector; `load` is replaceable so tests can simulate a missing package. */
export function createPiiNer(load: () => NerLexicon = loadLexicon): Detector {
  let lexicon: NerLexicon | null = null;
  let availability: Availability | null = null;

  const ensure = (): Availability => {
    if (availability !== null) return availability;
    try {
      lexicon = load();
      // Compile every rule's regex now: the first check must not pay for it within its timeout.
      // V8 compiles a regex once for one-byte and once for two-byte strings: warm up both.
      for (let round = 0; round < 3; round += 1) {
        findNerCandidates(WARM_UP_TEXT, lexicon);
        findNerCandidates(`${WARM_UP_TEXT} Dvořák Łódź`, lexicon);
      }
      availability = { available: true };
    } catch (error) {
      availability = {
        available: false,
        reason: `needs the optional NER package "${NER_PACKAGE}" and its lexicon (npm install ${NER_PACKAGE}); not loadable: ${(error as Error).message.split('\n')[0] ?? ''}`,
      };
    }
    return availability;
  };

  return {
    key: 'pii.ner',
    surfaces: SURFACES,
    entityTypes: NER_ENTITY_TYPES,
    costRank: 50,
    optIn: true,
    available: ensure,
    warmUp: () => {
      ensure();
    },
    detect(text: string): Detection[] {
      if (lexicon === null && !ensure().available) throw new Error(`pii.ner: not available (${availability?.reason ?? 'no lexicon'})`);
      if (text.length === 0) return [];
      const candidates = findNerCandidates(text, lexicon as NerLexicon);
      return removeOverlaps(candidates, text.length).map(({ precedence: _precedence, ...detection }) => detection);
    },
  };
}

export const piiNer: Detector = createPiiNer();
