import { describe, expect, it } from 'vitest';
import type { RailsSettings } from './catalog.js';
import { bannedTerms, checkBannedTerms, compileTerms } from './terms.js';

const settings = (banned_terms: string[]): RailsSettings => ({ banned_terms, validators: [] });

describe('rails.catalog.banned_terms', () => {
  const terms = settings(['Project Falcon', 'ass', 'acme-internal', 'Übergröße']);

  it('is unavailable with a reason while rails_banned_terms is empty', () => {
    expect(bannedTerms.available(settings([]))).toEqual({ available: false, reason: expect.stringContaining('rails_banned_terms') });
    expect(bannedTerms.available(settings(['  ', '']))).toMatchObject({ available: false });
    expect(bannedTerms.available(terms)).toEqual({ available: true });
  });

  it('finds listed terms as whole words, in any case', () => {
    const text = 'Status of PROJECT FALCON: see acme-internal docs; what an ass. ÜBERGRÖSSE no, übergröße yes';
    const found = checkBannedTerms(text, terms);
    expect(found.map((d) => text.slice(d.start, d.end))).toEqual(['PROJECT FALCON', 'acme-internal', 'ass', 'übergröße']);
    expect(found[0]).toMatchObject({ entity: 'SAFETY.BANNED_TERM', score: 0.9, pattern: 'banned term 1' });
  });

  it('leaves words that merely contain a term alone', () => {
    expect(checkBannedTerms('the class passed its assessment; Project Falconry; acme-internals', terms)).toEqual([]);
  });

  it('does not echo the term itself in the explanation', () => {
    expect(checkBannedTerms('Project Falcon', terms)[0]!.explanation).not.toContain('Falcon');
  });

  it('compiles a list once and drops duplicates and empties', () => {
    const list = ['a b', 'A B', ' ', 'c'];
    expect(compileTerms(list)?.terms).toEqual(['a b', 'c']);
    expect(compileTerms(list)).toBe(compileTerms(list));
  });

  it('stays linear on 1 MB adversarial inputs and caps what it reports', () => {
    const many = settings(['a', 'aa', 'aaa', 'ab']);
    for (const text of ['a'.repeat(1 << 20), 'a '.repeat(1 << 19), 'ab'.repeat(1 << 19)]) {
      const started = performance.now();
      const found = checkBannedTerms(text, many);
      expect(found.length).toBeLessThanOrEqual(50);
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });
});
