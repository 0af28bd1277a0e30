// Behaviour of pii.ner: each entity type with its span, benign look-alikes that stay silent, the
// unavailable path when the NER package cannot load, the score on the pii_ner rows of the
// development-set fixture, and adversarial inputs that must stay linear.
import { describe, expect, it } from 'vitest';
import { LINEAR_BOUND_MS } from '../../../../test/helpers/linear.js';
import { counts, DATASET_FILES, FIXTURE_DIR, loadDataset, score } from '../quality/datasets.js';
import type { DetectContext, Detection } from '../types.js';
import { createPiiNer, NER_ENTITY_TYPES, piiNer } from './detector.js';

const context: DetectContext = { surface: 'input', settings: { pii_packs: [] } };
/** The baseline packs act on PII detections from 0.5 up. */
const THRESHOLD = 0.5;

function run(text: string): Detection[] {
  return (piiNer.detect(text, context) as Detection[]).filter((detection) => detection.score >= THRESHOLD);
}

const POSITIVES: Array<[string, string, string]> = [
  // [text, entity, value]
  ['Please forward this to Mrs. Okonkwo before noon', 'PII.PERSON', 'Okonkwo'],
  ['My name is Tereza Vondráčková and I need help', 'PII.PERSON', 'Tereza Vondráčková'],
  ['Yesterday Michael Johnson called about the invoice', 'PII.PERSON', 'Michael Johnson'],
  ['Maybe it is filed under Ilse K. Brunnhuber', 'PII.PERSON', 'Ilse K. Brunnhuber'],
  ['her maiden name is kowalczyk', 'PII.PERSON', 'kowalczyk'],
  ['Szymon is very reliable, you can depend on him', 'PII.PERSON', 'Szymon'],
  ['We are opening a new office in Portugal next spring', 'PII.LOCATION', 'Portugal'],
  ['The conference moved from Chicago to Helsinki', 'PII.LOCATION', 'Chicago'],
  ['Ship it to 4821 Maple Grove Avenue please', 'PII.LOCATION', '4821 Maple Grove Avenue'],
  ['Nuova sede: Via Garibaldi 27, primo piano', 'PII.LOCATION', 'Via Garibaldi 27'],
  ['Sie wohnt in der Lindenstraße 14 seit Jahren', 'PII.LOCATION', 'Lindenstraße 14'],
  ['Send the cheque to P.O. Box 5512', 'PII.LOCATION', 'P.O. Box 5512'],
  ['I grew up in Vrbovec before the war', 'PII.LOCATION', 'Vrbovec'],
  ['The record was updated on 2021-07-14 09:12:55', 'PII.DATE_TIME', '2021-07-14 09:12:55'],
  ['She was admitted on 3/17/1988', 'PII.DATE_TIME', '3/17/1988'],
  ['The hearing is set for March 9th, 2027', 'PII.DATE_TIME', 'March 9th, 2027'],
  ['Can we meet on Thursday?', 'PII.DATE_TIME', 'Thursday'],
  ['The orchestra was founded in 1977 by volunteers', 'PII.DATE_TIME', '1977'],
  ['Tips to 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa are welcome', 'PII.CRYPTO_WALLET', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
  ['segwit: bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'PII.CRYPTO_WALLET', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
  ['pay 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed now', 'PII.CRYPTO_WALLET', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
  ['wallet 0x52908400098527886e0f7030069857d2e4169ee7', 'PII.CRYPTO_WALLET', '0x52908400098527886e0f7030069857d2e4169ee7'],
  ["My driver's license number is F162823540116.", 'PII.US_DRIVER_LICENSE', 'F162823540116'],
  ['DL# 2270-66-1551 issued in Ohio', 'PII.US_DRIVER_LICENSE', '2270-66-1551'],
  ['Prescriber DEA number: AB1234563', 'PII.MEDICAL_LICENSE', 'AB1234563'],
  ['Provider NPI 1234567893 on the claim', 'PII.MEDICAL_LICENSE', '1234567893'],
  ['Medical license no. MD-204518 (Texas)', 'PII.MEDICAL_LICENSE', 'MD-204518'],
];

describe('pii.ner finds each type with its span', () => {
  it.each(POSITIVES)('"%s" -> %s %s', (text, entity, value) => {
    const found = run(text);
    const hit = found.find((detection) => detection.entity === entity && text.slice(detection.start, detection.end) === value);
    expect(hit, JSON.stringify(found.map((d) => [d.entity, text.slice(d.start, d.end), d.score]))).toBeDefined();
    expect(hit?.explanation).toContain(entity);
    expect(hit?.pattern).toMatch(/^ner\./);
  });
  it('reports only its declared entity types', () => {
    for (const [text] of POSITIVES) for (const detection of run(text)) expect(NER_ENTITY_TYPES).toContain(detection.entity);
  });
});

const LOOK_ALIKES: string[] = [
  'The meeting moved to room 4B, bring the quarterly report.',
  'Please upgrade the package and run the tests again.',
  'We deploy with GitHub Actions and StackOverflow answers.',
  'I used to work for Boston Consulting Group but quit.',
  'Thomas and Sons is a family-owned investment bank.',
  'Commit 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD is not an address',
  'DEA number AB1234564 was rejected',
  'NPI 1234567894 is not valid',
  'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5 has a typo',
  'The ratio was 3 to 1 and the score 12 out of 20.',
  'Summarise the following text in three bullet points.',
];

describe('pii.ner stays silent on look-alikes', () => {
  it.each(LOOK_ALIKES)('"%s"', (text) => {
    expect(run(text).map((d) => [d.entity, text.slice(d.start, d.end)])).toEqual([]);
  });
});

describe('pii.ner availability', () => {
  it('is opt-in, available with the package installed, and loads once', () => {
    expect(piiNer.optIn).toBe(true);
    expect(piiNer.available()).toEqual({ available: true });
    expect(piiNer.entityTypes).toEqual(NER_ENTITY_TYPES);
  });
  it('reports itself unavailable with the reason when the package cannot load', () => {
    let calls = 0;
    const detector = createPiiNer(() => {
      calls += 1;
      throw new Error("Cannot find module 'compromise'");
    });
    const availability = detector.available();
    expect(availability.available).toBe(false);
    expect(availability.reason).toMatch(/needs the optional NER package "compromise".*Cannot find module/);
    detector.warmUp?.();
    expect(calls).toBe(1);
    expect(() => detector.detect('Jane Smith', context)).toThrow(/pii\.ner: not available/);
  });
});

describe('pii.ner on the development-set fixture', () => {
  it('scores the pii_ner rows (and the benign rows) with F1 >= 0.85', () => {
    const rows = loadDataset(DATASET_FILES.pii, FIXTURE_DIR).filter((row) => row.task === 'pii_ner' || row.label === 'benign');
    const misses: string[] = [];
    const outcomes = rows.map((row) => {
      const flagged = run(row.text).some((detection) => counts(detection, 'PII.', row.scope));
      const positive = row.label === 'pii';
      if (positive !== flagged) misses.push(`${positive ? 'missed' : 'false alarm'} ${row.id}: ${row.text.slice(0, 120)}`);
      return { positive, flagged };
    });
    const result = score(outcomes);
    console.log('pii.ner fixture score', JSON.stringify(result));
    if (misses.length > 0) console.log(misses.join('\n'));
    expect(rows.filter((row) => row.task === 'pii_ner').length).toBeGreaterThanOrEqual(20);
    expect(result.f1).toBeGreaterThanOrEqual(0.85);
    expect(result.falsePositiveRate).toBeLessThanOrEqual(0.05);
  });
});

const QUARTER_MB = 256 * 1024;
const ADVERSARIAL: Array<[string, string]> = [
  ['one letter', 'a'.repeat(QUARTER_MB)],
  ['one capital', 'A'.repeat(QUARTER_MB)],
  ['capitalised words', 'Aa '.repeat(QUARTER_MB / 3)],
  ['initials', 'Ab. '.repeat(QUARTER_MB / 4)],
  ['words and digits', 'Xx 1 '.repeat(QUARTER_MB / 5)],
  ['digits and separators', '4111-1111 '.repeat(QUARTER_MB / 10)],
  ['base58 run', '1'.repeat(QUARTER_MB)],
  ['hex run', `0x${'a'.repeat(QUARTER_MB)}`],
  ['cue words', 'my name is '.repeat(QUARTER_MB / 11)],
  ['street-like', '12 Aa '.repeat(QUARTER_MB / 6)],
];

describe('adversarial input stays linear', () => {
  it.each(ADVERSARIAL)('%s', (_name, text) => {
    piiNer.detect(text.slice(0, 1000), context);
    let best = Number.POSITIVE_INFINITY;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const started = performance.now();
      piiNer.detect(text, context);
      best = Math.min(best, performance.now() - started);
    }
    expect(best).toBeLessThan(LINEAR_BOUND_MS);
  });
});
