import { describe, expect, it } from 'vitest';
import { matchProtection, protectionsOf, type ProtectionSettings } from './protection-match.js';

const settings = (words: string[], avoid: string[] = []): ProtectionSettings => ({ words, avoid, message: null });

describe('protectionsOf', () => {
  it('reads words, comma-separated avoid topics and the message, ignoring what is malformed', () => {
    expect(protectionsOf({ words: ['acme', 7, ' beta '], avoid: ' layoffs, merger ,,', message: 'Not here.', max_tool_calls_per_hour: 5 })).toEqual({
      words: ['acme', 'beta'],
      avoid: ['layoffs', 'merger'],
      message: 'Not here.',
    });
    expect(protectionsOf({ words: 'not a list', avoid: 3, message: '' })).toEqual({ words: [], avoid: [], message: null });
    expect(protectionsOf({})).toEqual({ words: [], avoid: [], message: null });
  });
});

describe('matchProtection', () => {
  it.each([
    ['whole word in a sentence', ['acme'], 'We met ACME today.', { term: 'acme', start: 7, end: 11 }],
    ['at the start and end of the text', ['acme'], 'acme', { term: 'acme', start: 0, end: 4 }],
    ['case of the term does not matter', ['Project Falcon'], 'status of project falcon?', { term: 'Project Falcon', start: 10, end: 24 }],
    ['next to punctuation', ['acme'], '(acme),', { term: 'acme', start: 1, end: 5 }],
    ['an accented word', ['café'], 'Le CAFÉ est fermé', { term: 'café', start: 3, end: 7 }],
    ['a Cyrillic word', ['секрет'], 'Это СЕКРЕТ!', { term: 'секрет', start: 4, end: 10 }],
    ['Greek final sigma against capital sigma', ['λόγος'], 'ο ΛΌΓΟΣ', { term: 'λόγος', start: 2, end: 7 }],
    ['Greek medial sigma written as final sigma', ['λογοσ'], 'ο λογος', { term: 'λογοσ', start: 2, end: 7 }],
    ['a term outside the BMP', ['𝒜lpha'], 'x 𝒜lpha y', { term: '𝒜lpha', start: 2, end: 8 }],
    ['a term ending in punctuation next to a letter', ['c++'], 'use c++x', { term: 'c++', start: 4, end: 7 }],
  ])('matches %s', (_name, words, content, expected) => {
    const match = matchProtection(settings(words), content);
    if (expected === null) expect(match).toBeNull();
    else expect(match).toEqual({ ...expected, kind: 'word' });
  });

  it.each([
    ['inside a longer word', ['cat'], 'concatenate the category'],
    ['as a prefix', ['acme'], 'acmecorp'],
    ['as a suffix', ['acme'], 'superacme'],
    ['next to digits', ['acme'], 'acme2 2acme'],
    ['next to an underscore', ['acme'], 'acme_corp'],
    ['inside a word of another script', ['бан'], 'банан'],
    ['next to an accented letter', ['caf'], 'café'],
    ['inside a CJK run', ['東京'], '東京都'],
    ['with other accents (no accent folding)', ['cafe'], 'café'],
    ['when nothing is configured', [], 'anything at all'],
  ])('does not match %s', (_name, words, content) => {
    expect(matchProtection(settings(words), content)).toBeNull();
  });

  it('reports avoided topics with their kind and prefers the longest term ending at a place', () => {
    expect(matchProtection(settings([], ['merger']), 'the Merger talks')).toEqual({ term: 'merger', start: 4, end: 10, kind: 'avoid' });
    expect(matchProtection(settings(['falcon', 'project falcon']), 'about project falcon')).toEqual({
      term: 'project falcon',
      start: 6,
      end: 20,
      kind: 'word',
    });
    // A term that fails the boundary falls back to a shorter one that passes.
    expect(matchProtection(settings(['falcon', 'xfalcon']), 'axfalcon falcon')?.start).toBe(9);
  });

  it('reuses the matcher for the same settings object and builds a new one for new settings', () => {
    const first = settings(['alpha']);
    expect(matchProtection(first, 'alpha')?.term).toBe('alpha');
    expect(matchProtection(first, 'beta')).toBeNull();
    expect(matchProtection(settings(['beta']), 'beta')?.term).toBe('beta');
  });

  it.each([
    ['one letter repeated, terms its prefixes', Array.from({ length: 100 }, (_, i) => 'a'.repeat(i + 1)), 'a'.repeat(1_000_000)],
    ['blocks just longer than every term', Array.from({ length: 100 }, (_, i) => 'a'.repeat(i + 1)), ('a'.repeat(101) + ',').repeat(9_900)],
    ['near misses of a long term', ['a'.repeat(99) + 'b'], 'a'.repeat(1_000_000)],
    ['many terms sharing prefixes', Array.from({ length: 200 }, (_, i) => `ab${'c'.repeat(i % 50)}${i}`), 'abccccccccc'.repeat(100_000)],
    ['non-Latin text', ['слово', 'ещё'], 'словословослово '.repeat(62_500)],
  ])('scans 1 MB of adversarial input within a second: %s', (_name, words, content) => {
    const started = performance.now();
    const match = matchProtection(settings(words), content);
    const elapsed = performance.now() - started;
    expect(match).toBeNull();
    expect(content.length).toBeGreaterThanOrEqual(990_000);
    expect(elapsed).toBeLessThan(1000);
  });
});
