// Unit tests for the phone-shape analysis: which part of a digit run is a phone number and how
// strongly its shape alone says so.
import { describe, expect, it } from 'vitest';
import { analysePhone, type PhoneShape } from './phone.js';

function shapeOf(run: string): { shape: PhoneShape; value: string } | undefined {
  const text = ` ${run} `;
  const found = analysePhone(text, 1, 1 + run.length);
  return found === undefined ? undefined : { shape: found.shape, value: text.slice(found.start, found.end) };
}

describe('analysePhone', () => {
  it.each<[string, PhoneShape, string]>([
    ['(415) 555-2671', 'nanp', '(415) 555-2671'],
    ['415.555.2671', 'nanp', '415.555.2671'],
    ['1-800-555-0199', 'nanp', '1-800-555-0199'],
    ['001-518-640-0854', 'nanp', '001-518-640-0854'],
    ['+1-903-240-4508', 'nanp', '+1-903-240-4508'],
    // Exchange 140 is outside the plan, but the "+" still makes it an international number.
    ['+1-903-140-4508', 'international', '+1-903-140-4508'],
    ['+44 20 7946 0958', 'international', '+44 20 7946 0958'],
    ['+33 1 23 45 67 89', 'international', '+33 1 23 45 67 89'],
    ['+46 (0)8 928 571 38', 'international', '+46 (0)8 928 571 38'],
    ['+447700677662', 'international', '+447700677662'],
    ['555-123-4567', 'nanp-like', '555-123-4567'],
    ['0490 75 40 81', 'separated', '0490 75 40 81'],
    ['(08) 8747 6301', 'separated', '(08) 8747 6301'],
    ['9498777106', 'plain', '9498777106'],
  ])('%s is %s', (run, shape, value) => {
    expect(shapeOf(run)).toEqual({ shape, value });
  });

  it('takes the extension along', () => {
    const text = 'Desk: 345-899-3560x4587.';
    const found = analysePhone(text, 6, 18);
    expect(found === undefined ? '' : text.slice(found.start, found.end)).toBe('345-899-3560x4587');
  });

  it.each(['2015-12-22 04', '12.05.1990', '1 2 3 4 5 6 7 8', '123 45', '0000 000 000', '01100001 01101110', '1 234 567'])(
    'rejects %s',
    (run) => expect(shapeOf(run)).toBeUndefined(),
  );

  it('rejects a run that continues into more digits (a truncated long number)', () => {
    const text = '1234567890123456789012345678';
    expect(analysePhone(text, 0, 25)).toBeUndefined();
  });
});
