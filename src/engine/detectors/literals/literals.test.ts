import { describe, expect, it } from 'vitest';
import { prefilterCoverage, prefilterMisses } from '../injection/heuristic.js';
import { DATASET_FILES, FIXTURE_DIR, loadDataset } from '../quality/datasets.js';
import { LiteralAutomaton } from './automaton.js';
import { minimumDigits, prefixLiterals, requiredLiterals } from './required.js';

/** Deterministic pseudo-random numbers, so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function containsAny(text: string, literals: readonly string[], foldCase = false): boolean {
  const haystack = foldCase ? text.toLowerCase() : text;
  return literals.some((literal) => haystack.includes(literal));
}

describe('requiredLiterals', () => {
  it('takes the longest fixed string of a sequence and the union over alternatives', () => {
    expect(requiredLiterals(/\bignor(?:e|ing)\s+(?:all|previous)\b/u)?.sort()).toEqual(['ignore', 'ignoring']);
    expect(requiredLiterals(/x[ab]yz|q{2,3}rst/u)?.sort()).toEqual(['rst', 'xayz', 'xbyz']);
    expect(requiredLiterals(/ab?c/u)?.sort()).toEqual(['abc', 'ac']);
    expect(requiredLiterals(/\d+foo(?:bar)?/u)).toEqual(['foo']);
  });

  it('gives up where a match needs no fixed string of two characters', () => {
    expect(requiredLiterals(/a.b/u)).toBeUndefined();
    expect(requiredLiterals(/\p{L}{3,}/u)).toBeUndefined();
    expect(requiredLiterals(/abc|\d+/u)).toBeUndefined();
    expect(requiredLiterals(/(?:abc)?de?/u)).toBeUndefined();
  });

  it('ignores alternatives that can never match and look-arounds that consume nothing', () => {
    expect(requiredLiterals(/(?<!\w)(?:(?!)|(?<![\p{L}])hello)(?!\w)/u)).toEqual(['hello']);
  });

  it('folds case-insensitive expressions to lower-case ASCII literals', () => {
    expect(requiredLiterals(/AKIA[0-9A-Z]{16}/i)).toEqual(['akia']);
    // The typographic apostrophe is not ASCII: the literal is taken from the words around it.
    expect(requiredLiterals(/you['’]re going/i)).toEqual(['re going']);
  });

  it('is sound: whenever an expression matches, the text contains one of its literals', () => {
    const sources = [
      /\bignor(?:e|ing)\s+(?:all|previous)\s+instructions?\b/u,
      /(?:say|print) (?:only |exactly )?["'][^"'\n]{1,20}["']/u,
      /sk-(?:proj-|ant-)?[a-z0-9]{4,8}/u,
      /x?y?zz(?:ab|cd)+e/u,
      /(?:de|ab)[xy]{2}(?:q|rs)/iu,
      /ab(?=c)cd|(?<!e)fgg+h/u,
    ];
    const alphabet = 'abcdefghijklmnopqrstuvwxyz "\'-\n'.split('');
    const next = random(7);
    for (const regex of sources) {
      const literals = requiredLiterals(regex);
      expect(literals, regex.source).toBeDefined();
      const fold = regex.flags.includes('i');
      for (let round = 0; round < 4000; round += 1) {
        // Text built from the expression's own characters plus noise, so that matches happen.
        const pool = [...alphabet, ...regex.source.replace(/[\\()[\]?:|{}+*^$=!<]/g, '').split('')];
        let text = '';
        const length = 4 + Math.floor(next() * 40);
        for (let i = 0; i < length; i += 1) text += pool[Math.floor(next() * pool.length)];
        if (next() < 0.3) text = text.toUpperCase();
        if (regex.test(text)) expect(containsAny(text, literals!, fold), `${regex.source} on ${JSON.stringify(text)}`).toBe(true);
      }
    }
  });
});

describe('prefixLiterals', () => {
  it('names the strings every match starts with, past boundaries and look-behinds', () => {
    expect(prefixLiterals(/\b(?:ignor(?:e|ing)|forget)\s+x/u)?.sort()).toEqual(['forget', 'ignore', 'ignoring']);
    expect(prefixLiterals(/(?<![\p{L}])(?:ne (?:tenez|tiens) pas|abc\p{L}{0,3})/u)?.sort()).toEqual(['abc', 'ne tenez pas', 'ne tiens pas']);
    expect(prefixLiterals(/x?abc/u)?.sort()).toEqual(['abc', 'xabc']);
  });

  it('gives up when a match can start with something else', () => {
    expect(prefixLiterals(/\d+abc/u)).toBeUndefined();
    expect(prefixLiterals(/abc|.x/u)).toBeUndefined();
    expect(prefixLiterals(/(?:ab)?\w/u)).toBeUndefined();
  });
});

describe('minimumDigits', () => {
  it('counts the digits every match must contain', () => {
    expect(minimumDigits(/(?=\d)\d{3}-?\d{2}-?\d{4}/u)).toBe(9);
    expect(minimumDigits(/\d{1,3}(?:\.\d{1,3}){3}/u)).toBe(4);
    expect(minimumDigits(/[0-9a-f]{8}|\d{5}/u)).toBe(0);
    expect(minimumDigits(/ab[0-9]{2}|x\d/u)).toBe(1);
  });
});

describe('LiteralAutomaton', () => {
  it('reports where each literal occurrence starts, per owner', () => {
    const automaton = new LiteralAutomaton([
      { literal: 'ignore', owner: 0 },
      { literal: 'gnore', owner: 1 },
      { literal: 'IGN', owner: 2 },
    ]);
    const starts = automaton.starts('ignore me, ignore');
    expect(starts[0]).toEqual([0, 11]);
    expect(starts[1]).toEqual([1, 12]);
    expect(starts[2]).toBeUndefined();
  });

  it('reports every owner whose literal occurs, overlapping and nested ones included', () => {
    const automaton = new LiteralAutomaton([
      { literal: 'he', owner: 0 },
      { literal: 'she', owner: 1 },
      { literal: 'hers', owner: 2 },
      { literal: 'xyz', owner: 3 },
    ]);
    expect([...automaton.scan('ushers')]).toEqual([1, 1, 1, 0]);
    expect([...automaton.scan('')]).toEqual([0, 0, 0, 0]);
    expect([...automaton.scan('xyxyz')]).toEqual([0, 0, 0, 1]);
  });

  it('matches ASCII case-insensitively, Kelvin sign and long s included, when asked', () => {
    const automaton = new LiteralAutomaton([{ literal: 'Key', owner: 0 }, { literal: 'sk-', owner: 1 }], { foldCase: true });
    expect([...automaton.scan('API_KEY=')]).toEqual([1, 0]);
    expect([...automaton.scan('\u212Aey and \u017FK-')]).toEqual([1, 1]);
    expect([...new LiteralAutomaton([{ literal: 'key', owner: 0 }]).scan('KEY')]).toEqual([0]);
  });

  it('agrees with String#includes on random dictionaries and texts, in non-Latin scripts too', () => {
    const next = random(11);
    const alphabet = ['a', 'b', 'c', 'd', 'é', 'ж', '指', '令', 'ー'];
    const pick = (length: number): string => Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    for (let round = 0; round < 200; round += 1) {
      const literals = Array.from({ length: 1 + Math.floor(next() * 30) }, () => pick(1 + Math.floor(next() * 4)));
      const automaton = new LiteralAutomaton(literals.map((literal, owner) => ({ literal, owner })));
      for (let t = 0; t < 20; t += 1) {
        const text = pick(Math.floor(next() * 60));
        const found = automaton.scan(text);
        literals.forEach((literal, owner) => expect(found[owner] === 1, `${literal} in ${text}`).toBe(text.includes(literal)));
      }
    }
  });

  it('scans a megabyte in linear time', () => {
    const automaton = new LiteralAutomaton([{ literal: 'aaab', owner: 0 }, { literal: 'ignore previous', owner: 1 }]);
    const started = performance.now();
    const found = automaton.scan('a'.repeat(1 << 20));
    expect([...found]).toEqual([0, 0]);
    // Generous bound (a few ms on this machine): proves there is no per-position backtracking.
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('injection.heuristic prefilter', () => {
  it('gates nearly every phrase family', () => {
    const coverage = prefilterCoverage();
    const always = coverage.filter((c) => c.latin === 'always' || c.other === 'always');
    expect(coverage.length).toBeGreaterThan(20);
    expect(always.length).toBeLessThanOrEqual(3);
  });

  it('never rules out a family whose regex matches, on every development-set fixture text', () => {
    const files = [DATASET_FILES.injection, DATASET_FILES.benignWildguard, DATASET_FILES.benignSelfInstruct];
    let checked = 0;
    for (const file of files) {
      for (const item of loadDataset(file, FIXTURE_DIR)) {
        const lowered = item.text.toLowerCase();
        expect(prefilterMisses(lowered), item.id).toEqual([]);
        checked += 1;
      }
    }
    // 180 attacks and 160 benign texts in the fixture; every text is checked.
    expect(checked).toBeGreaterThanOrEqual(340);
  });
});
