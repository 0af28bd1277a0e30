// Lexical support: sentence splitting with abbreviations, content words, the score and its
// conditions (numbers and names must be in the supporting chunk), and linear time on 1 MB.
import { describe, expect, it } from 'vitest';
import { assessSupport, contentWords, splitSentences } from './support.js';

describe('splitSentences', () => {
  it('splits on terminators and line breaks, not on abbreviations, initials or decimals', () => {
    const text = 'Dr. Smith joined in Jan. 2020, e.g. as lead. Revenue rose 3.5 percent! Was it J. Doe?\n- bullet one\nLast one';
    const spans = splitSentences(text);
    expect(spans.map((span) => span.text)).toEqual([
      'Dr. Smith joined in Jan. 2020, e.g. as lead.',
      'Revenue rose 3.5 percent!',
      'Was it J. Doe?',
      '- bullet one',
      'Last one',
    ]);
    for (const span of spans) expect(text.slice(span.start, span.end)).toBe(span.text);
  });

  it('keeps closing quotes with their sentence and ignores blank text', () => {
    expect(splitSentences('He said "stop." Then left.').map((span) => span.text)).toEqual(['He said "stop."', 'Then left.']);
    expect(splitSentences('   \n\n  ')).toEqual([]);
  });
});

describe('contentWords', () => {
  it('drops stop words, stems, and marks numbers and names after the first word as critical', () => {
    const words = contentWords('The invoices of Acme were paid on 1,200 accounts by the IT team');
    expect(words.map((word) => word.term)).toEqual(['invoice', 'acme', 'paid', '1200', 'account', 'it', 'team']);
    expect(words.filter((word) => word.critical).map((word) => word.term)).toEqual(['acme', '1200', 'it']);
  });
});

describe('assessSupport', () => {
  const chunks = [
    'Acme Corp was founded in 1998 in Berlin. The company makes industrial pumps and valves.',
    'Refunds are processed within 14 days of the return being received at the warehouse.',
  ];

  it('supports sentences found in a chunk and names the one that is not', () => {
    const answer = 'Acme Corp was founded in 1998 in Berlin. Refunds are processed within 14 days. The CEO enjoys sailing on weekends.';
    const result = assessSupport(answer, chunks);
    expect(result.sentences.map((s) => [s.supported, s.best_chunk])).toEqual([
      [true, 0],
      [true, 1],
      [false, null],
    ]);
    expect(result.sentences[0]?.score).toBe(1);
    expect(result.supported_ratio).toBe(0.667);
  });

  it('refuses support when a number or name of the sentence is missing from the chunk', () => {
    const result = assessSupport('Acme Corp was founded in 2005 in Berlin.', chunks);
    expect(result.sentences[0]?.supported).toBe(false);
    expect(result.sentences[0]?.best_chunk).toBe(0);
    expect(result.sentences[0]?.score).toBeGreaterThan(0.5);
    expect(assessSupport('Acme Corp was founded in 1998 in Munich.', chunks).sentences[0]?.supported).toBe(false);
  });

  it('does not count sentences without content words, and without chunks nothing is supported', () => {
    const result = assessSupport('Yes. It is.', chunks);
    expect(result.sentences.map((s) => s.score)).toEqual([null, null]);
    expect(result.supported_ratio).toBe(1);
    expect(assessSupport('Pumps are made in Berlin.', []).supported_ratio).toBe(0);
  });

  it('assesses a 1 MB answer against 1000 chunks in linear time', () => {
    const many = Array.from({ length: 1000 }, (_, i) => `Product ${i} ships from warehouse ${i % 7} within ${i % 30} days. Pumps and valves are tested.`);
    const sentence = 'Pumps and valves are tested before they ship from the warehouse. ';
    const answer = sentence.repeat(Math.ceil(1_048_576 / sentence.length)).slice(0, 1_048_576);
    const started = performance.now();
    const result = assessSupport(answer, many);
    const elapsed = performance.now() - started;
    expect(result.sentences.length).toBeGreaterThan(15_000);
    expect(result.sentences[0]?.supported).toBe(true);
    expect(elapsed).toBeLessThan(10_000);
  });
});
