// The answerability check without a gateway: the dates it reads, the clause rule of `partial`, the
// detector's choice of entity by mode, and linear time on adversarial input (1 MB texts).
import { describe, expect, it } from 'vitest';
import { checkQuestion, dateMentions, topicMatches, type Boundary } from './check.js';
import { AnswerabilityDetector } from './detector.js';

const NOW = new Date('2026-11-26T12:00:00Z');
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const boundary = (overrides: Partial<Boundary> = {}): Boundary => ({
  agent: 'bot',
  systems_of_record: [],
  coverage_months: 24,
  coverage_start: '2022-01-01',
  entity_types: [],
  answerable_types: [],
  out_of_scope_topics: ['legal advice'],
  freshness_hours: null,
  mode: 'enforce',
  updated_by: 'test',
  updated_at: NOW.toISOString(),
  ...overrides,
});

describe('dates in a question', () => {
  it('reads ISO dates and months, quarters, month names with years, years and relative periods', () => {
    const read = (text: string) => dateMentions(text, NOW).map((mention) => `${mention.text}=${day(mention.from)}..${day(mention.to)}`);
    expect(read('on 2023-06-15 and in 2023-07')).toEqual(['2023-06-15=2023-06-15..2023-06-16', '2023-07=2023-07-01..2023-08-01']);
    expect(read('Q4 2023, March 2024, Sept. 2021, dec of 2020, in 1999')).toEqual([
      'Q4 2023=2023-10-01..2024-01-01',
      'March 2024=2024-03-01..2024-04-01',
      'Sept. 2021=2021-09-01..2021-10-01',
      'dec of 2020=2020-12-01..2021-01-01',
      '1999=1999-01-01..2000-01-01',
    ]);
    expect(read('last month, this year, last 3 months, past week, yesterday, previous quarter')).toEqual([
      'last month=2026-10-01..2026-11-01',
      'this year=2026-01-01..2026-11-26',
      'last 3 months=2026-08-26..2026-11-26',
      'past week=2026-11-19..2026-11-26',
      'yesterday=2026-11-25..2026-11-26',
      'previous quarter=2026-07-01..2026-10-01',
    ]);
    // Not dates: invalid days and months, numbers that are not years, years inside words.
    expect(read('2023-02-30, 2023-13, invoice 4411, FY2023, 12345')).toEqual([]);
  });
});

describe('checkQuestion', () => {
  it('is partial only when another clause asks something inside the boundary', () => {
    const outcome = (question: string) => checkQuestion({ question, knownEntityTypes: [], boundary: boundary(), sources: new Map(), now: NOW }).outcome;
    expect(outcome('Balance in 2023? And in 2025?')).toBe('partial');
    expect(outcome('Compare 2023 with 2025')).toBe('not_answerable');
    expect(outcome('In 2025? Legal advice?')).toBe('not_answerable');
    expect(outcome('Balance in 2023. Legal advice too.')).toBe('partial');
    // "Sept. 2021" does not end a sentence: one clause.
    expect(outcome('Balance of Sept. 2021 and 2023')).toBe('not_answerable');
    expect(outcome('Balance in 2023?')).toBe('answerable');
  });

  it('matches out-of-scope phrases as whole words only', () => {
    expect(topicMatches('Legal-advice, please; and no LEGAL advisory', ['legal advice', 'advice'])).toEqual([
      { phrase: 'legal advice', start: 0, end: 12 },
      { phrase: 'advice', start: 6, end: 12 },
    ]);
    expect(topicMatches('paralegal advices', ['legal advice'])).toEqual([]);
  });

  it('stays linear on 1 MB of adversarial text', () => {
    const inputs = ['2'.repeat(1_000_000), 'last '.repeat(200_000), 'March '.repeat(170_000), '. A'.repeat(330_000), 'legal '.repeat(170_000), '?'.repeat(1_000_000)];
    const wide = boundary({ out_of_scope_topics: Array.from({ length: 500 }, (_, index) => `legal topic ${index}`) });
    for (const question of inputs) {
      const started = performance.now();
      const result = checkQuestion({ question, knownEntityTypes: [], boundary: wide, sources: new Map(), now: NOW });
      expect(result.reasons.length).toBeLessThanOrEqual(50);
      expect(performance.now() - started, question.slice(0, 10)).toBeLessThan(2_000);
    }
  });
});

describe('AnswerabilityDetector', () => {
  it('reports OUT_OF_BOUNDS in enforce, OUT_OF_BOUNDS_OBSERVED in observe, nothing for other agents; its answers are cached per agent', () => {
    const detector = new AnswerabilityDetector();
    detector.useClock(() => NOW);
    expect(detector.agentScoped).toBe(true);
    expect(detector.surfaces).toEqual([]);
    const context = (agent: string) => ({ surface: 'input' as const, settings: { pii_packs: [] }, agent });
    expect(detector.detect('Invoices of 2021?', context('bot'))).toEqual([]);
    detector.set(boundary(), new Map());
    const [found] = detector.detect('Invoices of 2021?', context('bot'));
    expect(found).toMatchObject({ entity: 'ANSWERABILITY.OUT_OF_BOUNDS', score: 1, start: 12, end: 16 });
    expect(found?.explanation).toContain('outside_coverage_dates: "2021" (2021-01-01 to 2022-01-01) is outside the coverage 2022-01-01 to 2024-01-01');
    detector.set(boundary({ mode: 'observe' }), new Map());
    expect(detector.detect('Invoices of 2021?', context('bot')).map((detection) => detection.entity)).toEqual(['ANSWERABILITY.OUT_OF_BOUNDS_OBSERVED']);
    expect(detector.detect('Invoices of 2021?', context('other'))).toEqual([]);
    expect(detector.surfaces).toEqual(['input', 'output']);
    // On output: a breach in either mode, only when the answer is wholly outside.
    const output = { ...context('bot'), surface: 'output' as const };
    expect(detector.detect('You paid 30 EUR in 2021.', output).map((detection) => detection.entity)).toEqual(['ANSWERABILITY.BOUNDARY_BREACH']);
    expect(detector.detect('You paid 30 EUR in 2023. Nothing in 2021.', output)).toEqual([]);
  });
});
