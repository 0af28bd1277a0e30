// Scores pii.native on the labelled fixture kept in the repository (test/fixtures/datasets, a
// stratified subset of pii_presidio_synth) with the project's scoring rule, prints per-type
// recall, and asserts the F1 target. `npm run bench` scores the full development set.
import { describe, expect, it } from 'vitest';
import { counts, DATASET_FILES, FIXTURE_DIR, loadDataset, score } from '../quality/datasets.js';
import type { DetectContext } from '../types.js';
import { detectPii, PII_ENTITY_TYPES } from './native.js';

const context: DetectContext = { surface: 'input', settings: { pii_packs: ['global', 'us', 'uk', 'eu'] } };

describe('pii.native on the development-set fixture', () => {
  const rows = loadDataset(DATASET_FILES.pii, FIXTURE_DIR);

  it('reaches F1 >= 0.95 on the native-type cases', () => {
    const cases = rows.filter((row) => row.task === 'pii');
    const perType = new Map<string, { labelled: number; found: number }>();
    const misses: string[] = [];
    const falseAlarms: string[] = [];
    const outcomes = cases.map((row) => {
      const detections = detectPii(row.text, { ...context, surface: row.surface });
      const flagged = detections.some((detection) => counts(detection, 'PII.', row.scope));
      const positive = row.label === 'pii';
      for (const span of row.spans ?? []) {
        const tally = perType.get(span.type) ?? { labelled: 0, found: 0 };
        tally.labelled += 1;
        // A labelled span counts as found when a detection of exactly its type overlaps it.
        if (detections.some((d) => d.entity === span.type && d.start < span.end && d.end > span.start)) tally.found += 1;
        perType.set(span.type, tally);
      }
      if (positive && !flagged) misses.push(`${row.id}: ${row.text.slice(0, 160)}`);
      if (!positive && flagged) falseAlarms.push(`${row.id}: ${detections.map((d) => `${d.entity} "${row.text.slice(d.start, d.end)}"`).join(', ')}`);
      return { positive, flagged };
    });
    const result = score(outcomes);
    console.log('pii.native dataset score', JSON.stringify(result));
    for (const [type, tally] of [...perType.entries()].sort()) {
      const note = PII_ENTITY_TYPES.includes(type) ? '' : ' (NER type: not a pii.native type)';
      console.log(`  recall ${type}: ${tally.found}/${tally.labelled} = ${(tally.found / tally.labelled).toFixed(3)}${note}`);
    }
    if (misses.length > 0) console.log('missed:\n  ' + misses.join('\n  '));
    if (falseAlarms.length > 0) console.log('false positives:\n  ' + falseAlarms.join('\n  '));
    expect(result.f1).toBeGreaterThanOrEqual(0.95);
  });

  it('reports (without asserting) how many NER-only rows it flags', () => {
    const nerRows = rows.filter((row) => row.task === 'pii_ner');
    const flagged = nerRows.filter((row) => detectPii(row.text, context).length > 0);
    console.log(`pii_ner rows flagged by pii.native: ${flagged.length}/${nerRows.length}`);
    for (const row of flagged.slice(0, 10)) {
      const found = detectPii(row.text, context).map((d) => `${d.entity} "${row.text.slice(d.start, d.end)}"`);
      console.log(`  ${row.id}: ${found.join(', ')}`);
    }
    expect(nerRows.length).toBeGreaterThan(0);
  });
});
