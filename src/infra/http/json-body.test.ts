import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './json-body.js';

describe('nestsDeeperThan', () => {
  it('counts arrays and objects, {} being one level', () => {
    expect(nestsDeeperThan('{"a":[[1]]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":[[1]]}', 2)).toBe(true);
    expect(nestsDeeperThan(`${'['.repeat(20)}${']'.repeat(20)} `, 20)).toBe(false);
    expect(nestsDeeperThan(`${'['.repeat(21)}${']'.repeat(21)}`, 20)).toBe(true);
  });

  it('measures depth, not the number of siblings', () => {
    expect(nestsDeeperThan(JSON.stringify(Array.from({ length: 1000 }, () => ({ a: [1] }))), 3)).toBe(false);
  });

  it('skips brackets inside strings, escaped quotes and escaped backslashes included', () => {
    expect(nestsDeeperThan(JSON.stringify({ text: '[[[[[[[[[[{{{{{{{{' }), 2)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ text: 'say \\"[[[[[[[[[[" and \\\\' }), 2)).toBe(false);
    // The string ends at the quote after an escaped backslash; the brackets after it count.
    expect(nestsDeeperThan(`{"a":"\\\\","b":[[[[1]]]]}`, 3)).toBe(true);
  });

  it('gives some answer on text that is not JSON (the parser refuses it next)', () => {
    expect(nestsDeeperThan('{"unterminated: [[[[[[[[[[', 2)).toBe(false);
    expect(nestsDeeperThan(']]]]]]]]]]]]]]]]]]', 2)).toBe(false);
  });
});
