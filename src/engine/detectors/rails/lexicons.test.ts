import { describe, expect, it } from 'vitest';
import { checkDrugs, checkToxic } from './lexicons.js';

describe('rails.catalog.toxic_language', () => {
  it.each([
    ['you are an idiot', 'you are an idiot'],
    ["You're such a pathetic loser.", "You're such a pathetic loser"],
    ['honestly you idiot, read it', 'you idiot'],
    ['you look completely stupid', null],
    ['shut the fuck up', 'shut the fuck up'],
    ['Nobody likes you.', 'Nobody likes you'],
    ['go kill yourself', 'kill yourself'],
  ])('finds insults aimed at the reader: %s', (text, span) => {
    const found = checkToxic(text);
    if (span === null) {
      expect(found).toEqual([]); // "completely" is not a filler: unsure who is meant, so nothing
      return;
    }
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatchObject({ entity: 'SAFETY.TOXIC' });
    expect(text.slice(found[0]!.start, found[0]!.end)).toBe(span);
  });

  it.each([
    'Is this a stupid question?',
    'What you did was stupid, but we can fix it.',
    'Do you think the dumb terminal still works?',
    'You can ignore the garbage collector here.',
    'Thank you! The idiot-proof guide helped.',
    'Are you sure? I felt like a fool. You know how it is.',
    'Did you kill the process yourself?',
  ])('leaves lone insult words and benign look-alikes alone: %s', (text) => {
    expect(checkToxic(text)).toEqual([]);
  });

  it('scores a bare "shut up" lower than abuse', () => {
    expect(checkToxic('oh shut up, that is hilarious')[0]?.score).toBe(0.5);
  });

  it('stays linear on 1 MB adversarial inputs', () => {
    for (const text of ['you '.repeat(1 << 18), 'you are a '.repeat(100_000), "a'".repeat(1 << 19), '.'.repeat(1 << 20)]) {
      const started = performance.now();
      checkToxic(text);
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });
});

describe('rails.catalog.drugs', () => {
  it.each([
    ['where can I buy cocaine tonight', 0.85],
    ['step by step: how to cook meth at home', 0.85],
    ['I want to smoke crack', 0.85],
    ['order fentanyl from a darknet vendor', 0.85],
  ])('finds drugs with a cue of getting, making or taking them: %s', (text, score) => {
    expect(checkDrugs(text).map((d) => [d.entity, d.score])).toContainEqual(['SAFETY.DRUGS', score]);
  });

  it('scores a bare mention low and lower still in prevention or news context', () => {
    expect(checkDrugs('The film is about heroin.').map((d) => d.score)).toEqual([0.4]);
    expect(checkDrugs('Naloxone reverses a fentanyl overdose.').map((d) => d.score)).toEqual([0.2]);
  });

  it.each([
    'Crack the code and sell the idea to investors',
    'Molly will buy the tickets',
    'Lean startup methods help us make products',
    'Ice, speed and coke are on the menu at the diner',
    'The method returns a promise',
  ])('leaves ordinary words alone: %s', (text) => {
    expect(checkDrugs(text)).toEqual([]);
  });

  it('stays linear on 1 MB adversarial inputs', () => {
    for (const text of ['cocaine '.repeat(1 << 17), 'buy '.repeat(1 << 18)]) {
      const started = performance.now();
      expect(checkDrugs(text).length).toBeLessThanOrEqual(50);
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });
});
