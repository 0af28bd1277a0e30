// The shared WordPiece tokenizer: BERT's basic split (lower case, accents stripped, punctuation
// apart), greedy sub-words, [UNK] for what cannot be split or is too long, the length cap, and
// token offsets that point at the word in the text as given.
import { describe, expect, it } from 'vitest';
import { WordPiece } from './wordpiece.js';

const VOCABULARY = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'ignore', 'all', 'cafe', 'play', '##ing', '.', ','];

describe('WordPiece', () => {
  it('encodes with [CLS] and [SEP] within maxTokens', () => {
    const tokenizer = new WordPiece(VOCABULARY, { maxTokens: 5 });
    expect(tokenizer.encode('Ignore all, PLAYING.')).toEqual([2, 4, 5, 10, 3]);
    expect(tokenizer.maxTokens).toBe(5);
    expect(new WordPiece(VOCABULARY).maxTokens).toBe(128);
  });

  it('strips accents, splits sub-words and gives unknown or overlong words one [UNK]', () => {
    const tokenizer = new WordPiece(VOCABULARY);
    expect(tokenizer.tokenize('Café playing zzz', 10).ids).toEqual([6, 7, 8, 1]);
    expect(tokenizer.tokenize(`${'play'.repeat(30)} all`, 10).ids).toEqual([1, 5]);
  });

  it('reports offsets in the original text and stops at the limit', () => {
    const text = '  Café,\u200b pla\u200bying \u0000ignore all';
    const tokens = new WordPiece(VOCABULARY).tokenize(text, 4);
    expect(tokens.ids).toEqual([6, 10, 7, 8]);
    expect(tokens.starts.map((start, k) => text.slice(start, tokens.ends[k]))).toEqual(['Café', ',', 'pla\u200bying', 'pla\u200bying']);
    expect(new WordPiece(VOCABULARY).tokenize(text, 10).ids).toEqual([6, 10, 7, 8, 4, 5]);
  });

  it('refuses a vocabulary without the special tokens', () => {
    expect(() => new WordPiece(['a', 'b'])).toThrow(/no \[CLS\] token/);
  });

  it('stays fast on a long text when only the first tokens are wanted', () => {
    const started = performance.now();
    const tokens = new WordPiece(VOCABULARY).tokenize('ignore all '.repeat(100_000), 4000);
    expect(tokens.ids).toHaveLength(4000);
    expect(performance.now() - started).toBeLessThan(200);
  });
});
