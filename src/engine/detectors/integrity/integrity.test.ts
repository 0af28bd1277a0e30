// The answer-integrity and disclosure detectors on their own: each entity raised by a case built
// for it and not by its benign twin, malformed evidence reported as such, and linear time on 1 MB.
import { describe, expect, it } from 'vitest';
import type { DetectContext, Detection } from '../types.js';
import { integrityAnswer, integrityEvidence } from './answer.js';
import { disclosureAnswer } from './disclosure.js';

const run = (text: string, evidence?: unknown[]): Detection[] => {
  const context: DetectContext = { surface: 'output', settings: { pii_packs: ['global'] }, ...(evidence === undefined ? {} : { evidence }) };
  return [integrityEvidence, integrityAnswer, disclosureAnswer].flatMap((detector) => detector.detect(text, context) as Detection[]);
};
const entities = (text: string, evidence?: unknown[]) => [...new Set(run(text, evidence).map((d) => d.entity))].sort();

const record = { kind: 'record', facts: { balance: '$1,200.00', status: 'active', due_date: '2026-12-01' } };
const chunk = (source: string, text: string, extra: Record<string, unknown> = {}) => ({ kind: 'chunk', source, text, ...extra });

describe('integrity.answer', () => {
  it('reports sycophancy when the answer takes up the premise the record contradicts, not when it corrects it', () => {
    const question = { kind: 'question', text: 'My balance is $500, right?' };
    expect(entities('Yes, your balance is $500.', [record, question])).toEqual(['INTEGRITY.SYCOPHANCY']);
    expect(entities("You're right, the balance is 500 dollars.", [record])).toEqual(['INTEGRITY.SYCOPHANCY']);
    expect(entities('Actually, your balance is $1,200.', [record, question])).toEqual([]);
  });

  it('reports a contradiction of the record, numbers and words, and not an answer that agrees', () => {
    expect(entities('Your balance is 950 and your due date is 2026-11-01.', [record])).toEqual(['INTEGRITY.CONTEXT_CONTRADICTION']);
    expect(run('Your balance is 950 and your due date is 2026-11-01.', [record])).toHaveLength(2);
    expect(entities('Your account status is suspended.', [record])).toEqual(['INTEGRITY.CONTEXT_CONTRADICTION']);
    expect(entities('Your status is not active.', [record])).toEqual(['INTEGRITY.CONTEXT_CONTRADICTION']);
    expect(entities('Your balance is $1200 and the status is active; the due date is 2026-12-01.', [record])).toEqual([]);
    expect(entities('Your status is not suspended.', [record])).toEqual([]);
  });

  it('reports citations of sources not supplied: numbers, named sources, URLs, "according to"', () => {
    const chunks = [chunk('hr-handbook', 'Leave is 25 days. See https://intranet.example/hr/leave'), chunk('benefits-faq', 'Dental is covered.', { id: 'faq-7' })];
    const cite = (text: string) => entities(text, chunks);
    expect(cite('Leave is 25 days [3].')).toEqual(['INTEGRITY.FABRICATED_CITATION']);
    expect(cite('Leave is 25 days (source: travel-policy).')).toEqual(['INTEGRITY.FABRICATED_CITATION']);
    expect(cite('See https://example.org/made-up for details.')).toEqual(['INTEGRITY.FABRICATED_CITATION']);
    expect(cite('According to the Smith Report, leave is 25 days.')).toEqual(['INTEGRITY.FABRICATED_CITATION']);
    expect(cite('Leave is 25 days [1][2]. (Sources: hr-handbook, faq-7.) See https://intranet.example/hr/leave.')).toEqual([]);
    expect(cite('According to the HR Handbook, leave is 25 days; according to your records you took 3.')).toEqual([]);
    expect(cite('The markdown [link](https://intranet.example/hr/leave) is fine.')).toEqual([]);
  });

  it('reports a fact the chunks disagree on, and the lower tier chosen over the system of record', () => {
    const conflicting = [chunk('faq', 'The refund window is 30 days.'), chunk('blog', 'The refund window is 14 days.')];
    expect(entities('The refund window is 14 days.', conflicting)).toEqual(['INTEGRITY.SOURCE_CONFLICT']);
    expect(entities('Refunds are handled by the team.', conflicting)).toEqual([]);
    const tiers = { kind: 'sources', items: [{ key: 'ledger', tier: 'system_of_record' }, { key: 'blog', tier: 'external' }] };
    const ranked = [chunk('ledger', 'The refund window is 30 days.'), chunk('blog', 'The refund window is 14 days.'), tiers];
    expect(entities('The refund window is 14 days.', ranked)).toEqual(['INTEGRITY.SOURCE_AUTHORITY']);
    expect(entities('The refund window is 30 days.', ranked)).toEqual([]);
  });

  it('reports malformed evidence as an incomplete check instead of throwing', () => {
    for (const bad of [[42], [{ kind: 'record', facts: 'x' }], [{ kind: 'chunk', text: 'no source' }], [{ kind: 'sources', items: [{ key: 'a', tier: 'gold' }] }], [{ kind: 'entitlements', may_not_see: 'pii' }], [{ kind: 'requirements', ai_disclosure: 'yes' }]]) {
      expect(entities('Hello.', bad)).toEqual(['INTEGRITY.EVIDENCE_MALFORMED']);
    }
    expect(entities('Hello.', [{ kind: 'something-else', whatever: 1 }])).toEqual([]);
  });
});

describe('disclosure.answer and integrity.evidence', () => {
  it('reports binding commitments and not their hedged twins; `no_commitments: false` allows them', () => {
    expect(entities('I promise you will receive a full refund by Friday.')).toEqual(['DISCLOSURE.BINDING_COMMITMENT']);
    expect(entities('We will waive the fee this time.')).toEqual(['DISCLOSURE.BINDING_COMMITMENT']);
    expect(entities("We can't promise a refund; a claims agent will review your request.")).toEqual([]);
    expect(entities('We will waive the fee.', [{ kind: 'requirements', no_commitments: false }])).toEqual([]);
  });

  it('reports announced adverse actions and not neutral mentions', () => {
    expect(entities('Your claim has been denied and your account will be suspended.')).toEqual(['DISCLOSURE.ADVERSE_ACTION']);
    expect(entities('We have terminated your contract.')).toEqual(['DISCLOSURE.ADVERSE_ACTION']);
    expect(entities('Your claim has been approved. If a claim were denied, you could appeal.')).toEqual([]);
  });

  it('reports a missing AI disclosure only when required', () => {
    const required = [{ kind: 'requirements', ai_disclosure: true }];
    expect(entities('Your order ships tomorrow.', required)).toEqual(['DISCLOSURE.AI_MISSING']);
    expect(entities("I'm an AI assistant: your order ships tomorrow.", required)).toEqual([]);
    expect(entities('Your order ships tomorrow.', [{ kind: 'requirements', ai_disclosure: false }])).toEqual([]);
  });

  it('reports slang, profanity and emoji where the register is formal, not where it is plain', () => {
    const formal = [{ kind: 'requirements', register: 'formal' }];
    expect(entities('lol yeah the form is kinda broken 😂😂😂', formal)).toEqual(['DISCLOSURE.REGISTER_BREACH']);
    expect(entities('This damn form is broken.', formal)).toEqual(['DISCLOSURE.REGISTER_BREACH']);
    expect(entities('Thank you for your patience; the form has been corrected.', formal)).toEqual([]);
    expect(entities('lol yeah the form is kinda broken 😂😂😂', [{ kind: 'requirements', register: 'plain' }])).toEqual([]);
  });

  const entitled = { kind: 'entitlements', subject: 'u-1', may_see: ['public'], may_not_see: ['health', 'pii'] };
  const medical = chunk('clinic-notes', 'Patient Jane Roe attended the clinic on Monday for a follow-up about her ongoing treatment plan.', { classes: ['health'] });

  it('reports text copied from a chunk the subject may not see, and not the same chunk when it may', () => {
    const answer = 'Jane Roe attended the clinic on Monday for a follow-up.';
    expect(entities(answer, [medical, entitled])).toEqual(['DISCLOSURE.ENTITLEMENT']);
    expect(entities(answer, [medical, { ...entitled, may_not_see: ['financial'] }])).toEqual([]);
    expect(entities('Jane is available on Monday.', [medical, entitled])).toEqual([]);
  });

  it('reports a conclusion of a restricted class, not the same words where the class is allowed', () => {
    expect(entities('Jane cannot travel because she is being treated for diabetes.', [entitled])).toEqual(['DISCLOSURE.INFERENCE']);
    expect(entities('Jane cannot travel because she is being treated for diabetes.', [{ ...entitled, may_not_see: ['financial'] }])).toEqual([]);
  });

  it(`reports ${3} or more people's contact details in one answer, not two`, () => {
    const three = 'Contacts: ann@example.com, bob@example.com, +44 20 7946 0958.';
    expect(entities(three, [entitled])).toEqual(['DISCLOSURE.AGGREGATION']);
    expect(entities('Contacts: ann@example.com, bob@example.com. Due 2026-12-01.', [entitled])).toEqual([]);
  });
});

describe('linear time', () => {
  const evidence = [
    record,
    chunk('faq', 'The refund window is 30 days.'),
    chunk('blog', 'The refund window is 14 days.'),
    chunk('clinic', 'Patient notes of a restricted class are here for the test.', { classes: ['health'] }),
    { kind: 'entitlements', may_not_see: ['health'] },
    { kind: 'requirements', ai_disclosure: true, register: 'formal' },
  ];
  it.each([
    ['one character', 'a'.repeat(1_048_576)],
    ['words', 'the balance is 7 and the refund window is 9 days according to '.repeat(16_000).slice(0, 1_048_576)],
    ['brackets and at-signs', '[[[[@@@@.....(source: '.repeat(50_000).slice(0, 1_048_576)],
    ['digits', '1,2.3-4/5 '.repeat(110_000).slice(0, 1_048_576)],
  ])('checks 1 MB of %s quickly', (_name, text) => {
    const started = performance.now();
    run(text, evidence);
    expect(performance.now() - started).toBeLessThan(4_000);
  });
});
