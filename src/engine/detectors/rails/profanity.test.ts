import { describe, expect, it } from 'vitest';
import { checkProfanity } from './profanity.js';

describe('rails.catalog.profanity', () => {
  it.each(['what the fuck is this', 'this is bullsh1t', 'you absolute motherf*cker', 'fvck off', 'shiiiit happens', 'FUCKING broken again'])(
    'finds profanity, obfuscated too: %s',
    (text) => {
      const found = checkProfanity(text);
      expect(found.length).toBeGreaterThan(0);
      expect(found[0]).toMatchObject({ entity: 'SAFETY.PROFANITY', score: 0.85 });
      expect(found[0]!.pattern).toMatch(/^obscenity:/);
    },
  );

  it.each([
    'Scunthorpe is a town in Lincolnshire',
    'The assassin class has high damage',
    'Order a cocktail at the bar',
    'Charles Dickens wrote novels',
    'Please analyse the class assignment',
    'circumstances and documents',
    'Run the shell script',
  ])('leaves benign look-alikes alone: %s', (text) => {
    expect(checkProfanity(text)).toEqual([]);
  });

  it('scores words with ordinary meanings lower', () => {
    expect(checkProfanity('Dick went to the store').map((d) => d.score)).toEqual([0.5]);
  });

  it('reports each span once with offsets into the text', () => {
    const text = '😀 oh shit';
    const found = checkProfanity(text);
    expect(found).toHaveLength(1);
    expect(text.slice(found[0]!.start, found[0]!.end)).toBe('shit');
  });

  it('stays linear on 1 MB adversarial inputs', () => {
    for (const text of ['a'.repeat(1 << 20), 'f u '.repeat(1 << 18), 'sh1t'.repeat(1 << 18)]) {
      const started = performance.now();
      checkProfanity(text);
      expect(performance.now() - started).toBeLessThan(5000);
    }
  });
});
