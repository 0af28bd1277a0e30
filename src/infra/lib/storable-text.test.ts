import { describe, expect, it } from 'vitest';
import { needsStorableText, storableText, storableValue } from './storable-text.js';

describe('storableText', () => {
  it('replaces NUL and lone surrogates of either half with U+FFFD and keeps astral characters', () => {
    expect(storableText('a\u0000b')).toBe('a\uFFFDb');
    expect(storableText('x\uD800y')).toBe('x\uFFFDy');
    expect(storableText('x\uDC00y')).toBe('x\uFFFDy');
    expect(storableText('tail\uD83D')).toBe('tail\uFFFD');
    expect(storableText('emoji \u{1F600} ok')).toBe('emoji \u{1F600} ok');
    expect(needsStorableText('plain')).toBe(false);
    expect(needsStorableText('a\u0000')).toBe(true);
  });

  it('returns the same string and value when nothing changes', () => {
    const text = 'ordinary text';
    expect(storableText(text)).toBe(text);
    const value = { a: [1, 'two', { three: null }], b: true };
    expect(storableValue(value)).toBe(value);
  });

  it('normalises keys and nested values without touching the original', () => {
    const value = { 'k\u0000': ['ok', 'bad\uD800'], nested: { deep: 'x\u0000' } };
    expect(storableValue(value)).toEqual({ 'k\uFFFD': ['ok', 'bad\uFFFD'], nested: { deep: 'x\uFFFD' } });
    expect(value.nested.deep).toBe('x\u0000');
  });

  it('is idempotent: stored text made storable again is unchanged', () => {
    const once = storableText('\u0000\uD800\uDFFF\uDC00');
    expect(storableText(once)).toBe(once);
  });
});
