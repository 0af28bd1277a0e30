// The answer-integrity pack through the gateway: POST /v1/guard/output with evidence in `context`
// raises each finding type of answer integrity, commitment and disclosure, and entitlement
// (GET /api/findings), and its benign twin raises none. The pack ships in observe: the caller's
// verdict stays allow and effective_verdict says what enforcing would do.
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../../test/helpers/gateway.js';
import { DEFAULT_DETECTORS } from '../../../infra/config/schema.js';

const record = { kind: 'record', facts: { balance: '$1,200.00', status: 'active' } };
const chunk = (source: string, text: string, extra: Record<string, unknown> = {}) => ({ kind: 'chunk', source, text, ...extra });
const entitlements = { kind: 'entitlements', subject: 'u-1', may_see: ['public'], may_not_see: ['health'] };
const clinic = chunk('clinic-notes', 'Patient Jane Roe attended the clinic on Monday for a follow-up about her treatment plan.', { classes: ['health'] });
const ranked = [
  chunk('ledger', 'The refund window is 30 days.'),
  chunk('blog', 'The refund window is 14 days.'),
  { kind: 'sources', items: [{ key: 'ledger', tier: 'system_of_record' }, { key: 'blog', tier: 'external' }] },
];

interface Case {
  type: string;
  entity: string;
  rule: string;
  bad: { content: string; context: unknown[] };
  benign: { content: string; context: unknown[] };
}

const CASES: Case[] = [
  {
    type: 'sycophancy',
    entity: 'INTEGRITY.SYCOPHANCY',
    rule: 'integrity.sycophancy',
    bad: { content: "You're right, your balance is $500.", context: [record, { kind: 'question', text: 'My balance is $500, right?' }] },
    benign: { content: 'Actually, your balance is $1,200.', context: [record, { kind: 'question', text: 'My balance is $500, right?' }] },
  },
  {
    type: 'context_integrity',
    entity: 'INTEGRITY.CONTEXT_CONTRADICTION',
    rule: 'integrity.context_contradiction',
    bad: { content: 'Your account status is suspended.', context: [record] },
    benign: { content: 'Your account status is active.', context: [record] },
  },
  {
    type: 'fabricated_citation',
    entity: 'INTEGRITY.FABRICATED_CITATION',
    rule: 'integrity.fabricated_citation',
    bad: { content: 'Leave is 25 days [3] (source: travel-policy).', context: [chunk('hr-handbook', 'Leave is 25 days.')] },
    benign: { content: 'Leave is 25 days [1] (source: hr-handbook).', context: [chunk('hr-handbook', 'Leave is 25 days.')] },
  },
  {
    type: 'source_conflict',
    entity: 'INTEGRITY.SOURCE_CONFLICT',
    rule: 'integrity.source_conflict',
    bad: { content: 'The refund window is 14 days.', context: [chunk('faq', 'The refund window is 30 days.'), chunk('blog', 'The refund window is 14 days.')] },
    benign: { content: 'The refund window is 30 days.', context: [chunk('faq', 'The refund window is 30 days.'), chunk('blog', 'The refund window is 30 days.')] },
  },
  {
    type: 'source_authority',
    entity: 'INTEGRITY.SOURCE_AUTHORITY',
    rule: 'integrity.source_authority',
    bad: { content: 'The refund window is 14 days.', context: ranked },
    benign: { content: 'The refund window is 30 days.', context: ranked },
  },
  {
    type: 'integrity_error',
    entity: 'INTEGRITY.EVIDENCE_MALFORMED',
    rule: 'integrity.evidence_malformed',
    bad: { content: 'Your balance is $1,200.', context: [42, 'text', null, { kind: 'record', facts: 'not an object' }, { kind: 'chunk', source: 7 }] },
    benign: { content: 'Your balance is $1,200.', context: [record, { kind: 'unknown-kind', anything: [1, 2] }] },
  },
  {
    type: 'trajectory_drift',
    entity: 'INTEGRITY.TRAJECTORY_DRIFT',
    rule: 'integrity.trajectory_drift',
    bad: {
      content:
        'Speaking of travel, autumn in Kyoto brings maple leaves, quiet temples, steaming noodle bowls, crowded railway platforms, lantern festivals, mountain hiking trails, riverside teahouses, bamboo forests, colourful markets, ancient castles, wooden shrines and famous gardens worth visiting slowly.',
      context: [record, { kind: 'question', text: 'What is the balance and status of my account?' }],
    },
    benign: {
      content:
        'Your account balance is $1,200.00 and your account status is active. Every payment received this month is counted, your account can make payments, receive transfers and keep earning interest as usual, and nothing further is needed from you today.',
      context: [record, { kind: 'question', text: 'What is the balance and status of my account?' }],
    },
  },
  {
    type: 'ai_disclosure_missing',
    entity: 'DISCLOSURE.AI_MISSING',
    rule: 'disclosure.ai_missing',
    bad: { content: 'Your order ships tomorrow.', context: [{ kind: 'requirements', ai_disclosure: true }] },
    benign: { content: 'I am an automated assistant. Your order ships tomorrow.', context: [{ kind: 'requirements', ai_disclosure: true }] },
  },
  {
    type: 'binding_commitment',
    entity: 'DISCLOSURE.BINDING_COMMITMENT',
    rule: 'disclosure.binding_commitment',
    bad: { content: 'I promise you will receive a full refund by Friday.', context: [{ kind: 'requirements', no_commitments: true }] },
    benign: { content: "We can't promise a refund; a claims agent will review your request.", context: [{ kind: 'requirements', no_commitments: true }] },
  },
  {
    type: 'adverse_action',
    entity: 'DISCLOSURE.ADVERSE_ACTION',
    rule: 'disclosure.adverse_action',
    bad: { content: 'Your claim has been denied and your account will be suspended.', context: [record] },
    benign: { content: 'Your claim has been approved. If a claim were denied, you could appeal.', context: [record] },
  },
  {
    type: 'register_breach',
    entity: 'DISCLOSURE.REGISTER_BREACH',
    rule: 'disclosure.register_breach',
    bad: { content: 'lol yeah the form is kinda broken 😂😂😂', context: [{ kind: 'requirements', register: 'formal' }] },
    benign: { content: 'Thank you for your patience; the form has been corrected.', context: [{ kind: 'requirements', register: 'formal' }] },
  },
  {
    type: 'entitlement_disclosure',
    entity: 'DISCLOSURE.ENTITLEMENT',
    rule: 'disclosure.entitlement',
    bad: { content: 'Jane Roe attended the clinic on Monday for a follow-up.', context: [clinic, entitlements] },
    benign: { content: 'Jane Roe attended the clinic on Monday for a follow-up.', context: [clinic, { ...entitlements, may_see: ['health'], may_not_see: ['financial'] }] },
  },
  {
    type: 'inference_disclosure',
    entity: 'DISCLOSURE.INFERENCE',
    rule: 'disclosure.inference',
    bad: { content: 'Jane cannot travel: she is being treated for diabetes.', context: [entitlements] },
    benign: { content: 'Jane cannot travel this week.', context: [entitlements] },
  },
  {
    type: 'aggregation_disclosure',
    entity: 'DISCLOSURE.AGGREGATION',
    rule: 'disclosure.aggregation',
    bad: { content: 'Reach them at ann@example.com, bob@example.com and +44 20 7946 0958.', context: [entitlements] },
    benign: { content: 'Reach the team at ann@example.com or bob@example.com.', context: [entitlements] },
  },
];

async function findingsOf(gateway: TestGateway, type: string, agent: string): Promise<any[]> {
  await gateway.app.services.recorder.flush();
  const response = await gateway.request(`/api/findings?type=${type}&limit=500`);
  expect(response.status).toBe(200);
  return (await json(response)).items.filter((item: any) => item.evidence.agent === agent);
}

const guardOutput = async (gateway: TestGateway, agent: string, content: string, context: unknown) => {
  const response = await gateway.request('/v1/guard/output', { method: 'POST', json: { agent, content, context } });
  expect(response.status).toBe(200);
  return json(response);
};

describe.each(DIALECTS)('answer integrity over HTTP (%s)', (dialect) => {
  const ctx = withGateway({ dialect, overrides: { enabled_detectors: [...DEFAULT_DETECTORS, 'integrity.evidence', 'integrity.answer', 'disclosure.answer'] } });

  it.each(CASES.map((entry) => [entry.type, entry] as const))('raises %s for the case built for it and not for its benign twin', async (type, entry) => {
    const bad = await guardOutput(ctx.gateway, `${type}-bad`, entry.bad.content, entry.bad.context);
    expect(bad.entities).toContain(entry.entity);
    expect(bad.verdict).toBe('allow');
    expect(bad.effective_verdict).toBe('block');
    expect(bad.rules_fired.map((rule: { rule_id: string }) => rule.rule_id)).toContain(entry.rule);
    const raised = await findingsOf(ctx.gateway, type, `${type}-bad`);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ type, title: expect.stringContaining('Would have been blocked'), evidence: { entity: entry.entity, rule_id: entry.rule, pack: 'answer-integrity', mode: 'observe' } });
    expect(raised[0].evidence.explanation).toEqual(expect.any(String));

    const benign = await guardOutput(ctx.gateway, `${type}-benign`, entry.benign.content, entry.benign.context);
    expect(benign.entities.filter((entity: string) => /^(INTEGRITY|DISCLOSURE)\./.test(entity))).toEqual([]);
    expect(benign.effective_verdict).toBe('allow');
    expect(await findingsOf(ctx.gateway, type, `${type}-benign`)).toEqual([]);
  });

  it('never answers 500 on malformed evidence of any shape', async () => {
    const shapes: unknown[][] = [
      [{}],
      [{ kind: 'chunk', source: 'a', text: 'x', classes: 'pii' }],
      [{ kind: 'entitlements', may_not_see: [1, 2] }],
      [{ kind: 'requirements', register: 'shouty' }],
      [{ kind: 'sources', items: 'all' }],
      [{ kind: 'record', facts: { nested: { deep: [1] }, text: 'a\u0000b\ud800' } }],
      [{ kind: 'chunk', source: 'a', text: 'x'.repeat(40_000) }],
    ];
    for (const context of shapes) {
      const decision = await guardOutput(ctx.gateway, 'malformed-evidence', 'The balance is 5 [9].', context);
      expect(decision.decision_id).toEqual(expect.any(String));
    }
    const errors = await findingsOf(ctx.gateway, 'integrity_error', 'malformed-evidence');
    expect(errors).toHaveLength(1);
    expect(errors[0].evidence.explanation).toContain('malformed');
  });

  it('checks a 1 MB answer against evidence within the scaled budget', async () => {
    const content = 'The refund window is 14 days and your balance is $500. '.repeat(19_100).slice(0, 1_048_576);
    const started = performance.now();
    const decision = await guardOutput(ctx.gateway, 'large-answer', content, [record, ...ranked, clinic, entitlements, { kind: 'requirements', ai_disclosure: true, register: 'formal' }]);
    expect(performance.now() - started).toBeLessThan(10_000);
    const ours = decision.explanation.detectors.filter((run: { key: string }) => /^(integrity|disclosure)\./.test(run.key));
    expect(ours.map((run: { key: string; status: string }) => `${run.key}:${run.status}`).sort()).toEqual(['disclosure.answer:ok', 'integrity.answer:ok', 'integrity.evidence:ok']);
    expect(decision.entities).toEqual(expect.arrayContaining(['INTEGRITY.CONTEXT_CONTRADICTION', 'INTEGRITY.SOURCE_AUTHORITY', 'DISCLOSURE.AI_MISSING']));
  });
});
