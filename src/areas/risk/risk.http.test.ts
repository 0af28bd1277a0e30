// Risk over HTTP on both dialects: assessments (sign-off by a named person, audited, history kept),
// the deterministic classification from declarations and traffic, and the register with its order
// and the overdue flag as the test clock moves.
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';

const DAY = 86_400_000;

async function register(gateway: TestGateway, body: Record<string, unknown>): Promise<void> {
  const response = await gateway.request('/api/agents', { method: 'POST', json: body });
  expect(response.status).toBe(201);
}

async function riskAudit(gateway: TestGateway): Promise<Array<{ action: string; target: string | null; detail: string }>> {
  return gateway.store.db.selectFrom('audit_entries').select(['action', 'target', 'detail']).where('action', 'like', 'risk.%').orderBy('seq').execute();
}

const assessment = { eu_ai_act_class: 'high', inherent_risk: 'high', residual_risk: 'medium', answers: { human_review: 'every rejection is reviewed' } };

describe.each(DIALECTS)('risk assessments, classification and register (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  let viewer: string;
  let operator: string;

  const assess = (slug: string, body: unknown, token?: string) =>
    ctx.gateway.request(`/api/risk/assessments/${slug}`, { method: 'POST', json: body, ...(token === undefined ? {} : { token }) });

  beforeAll(async () => {
    const gateway = ctx.gateway;
    viewer = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'reader', role: 'viewer', ttl_days: 3650 } }))).token;
    operator = (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: 'ops', role: 'operator', ttl_days: 3650 } }))).token;
    await register(gateway, {
      slug: 'cv-screener',
      name: 'CV screener',
      purpose: 'Screens CVs of job applicants and ranks candidates for the hiring team',
      owner_email: 'hr-lead@example.com',
      data_classes: ['candidate_data'],
      declared_tools: ['rank_candidates'],
      risk_tier: 'high',
    });
    await register(gateway, { slug: 'faq-bot', name: 'FAQ bot', purpose: 'Answers FAQ about opening hours in a website chat', owner_team: 'support' });
    await register(gateway, { slug: 'batch-tagger', name: 'Batch tagger', purpose: 'Tags internal documents by topic', declared_tools: ['tag_document'] });
  });

  it('refuses a viewer, malformed bodies and an unknown agent; stores nothing', async () => {
    const before = (await riskAudit(ctx.gateway)).length;
    expect((await assess('cv-screener', assessment, viewer)).status).toBe(403);
    for (const bad of [
      {},
      { ...assessment, eu_ai_act_class: 'severe' },
      { ...assessment, inherent_risk: 'huge' },
      { ...assessment, review_months: 0 },
      { ...assessment, review_months: 37 },
      { ...assessment, review_months: 1.5 },
      { ...assessment, answers: 'yes' },
      { ...assessment, answers: { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } } },
      { ...assessment, answers: { text: 'x'.repeat(70_000) } },
      { ...assessment, sign_off: 'yes' },
      { ...assessment, colour: 'blue' },
    ]) {
      const response = await assess('cv-screener', bad, operator);
      expect(response.status, JSON.stringify(bad).slice(0, 200)).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    for (const refused of [
      { ...assessment, sign_off: true },
      { ...assessment, sign_off: true, signed_off_by: '   ' },
      { ...assessment, sign_off: true, signed_off_by: 'System' },
      { ...assessment, signed_off_by: 'Dana Lee' },
      { ...assessment, inherent_risk: 'medium', residual_risk: 'high' },
    ]) {
      const response = await assess('cv-screener', refused, operator);
      expect(response.status, JSON.stringify(refused)).toBe(422);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const unknown = await assess('nobody', assessment, operator);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await ctx.gateway.store.db.selectFrom('risk_assessments').selectAll().execute()).toEqual([]);
    expect((await riskAudit(ctx.gateway)).length).toBe(before);
  });

  it('records assessments with and without sign-off, audited, keeping the history', async () => {
    const now = ctx.gateway.clock.now().getTime();
    const first = await assess('cv-screener', assessment, operator);
    expect(first.status).toBe(201);
    const unsigned = (await first.json()) as any;
    expect(unsigned).toMatchObject({
      agent: 'cv-screener',
      eu_ai_act_class: 'high',
      inherent_risk: 'high',
      residual_risk: 'medium',
      answers: assessment.answers,
      review_months: 12,
      signed_off: false,
      signed_off_by: null,
      signed_off_at: null,
      assessed_by: expect.stringMatching(/ \(tok_\w+\)$/),
      previous_assessments: 0,
    });
    const review = Date.parse(unsigned.next_review_at) - now;
    expect(review).toBeGreaterThan(364 * DAY);
    expect(review).toBeLessThan(367 * DAY);

    const signed = await json(assess('cv-screener', { ...assessment, residual_risk: 'low', review_months: 6, sign_off: true, signed_off_by: ' Dana Lee ' }, operator));
    expect(signed).toMatchObject({ signed_off: true, signed_off_by: 'Dana Lee', review_months: 6, previous_assessments: 1, residual_risk: 'low' });
    expect(signed.signed_off_at).toBe(signed.assessed_at);
    expect(Date.parse(signed.next_review_at) - now).toBeLessThan(185 * DAY);

    const audit = await riskAudit(ctx.gateway);
    expect(audit.map(({ action, target }) => ({ action, target }))).toEqual([
      { action: 'risk.assessed', target: unsigned.id },
      { action: 'risk.assessed', target: signed.id },
      { action: 'risk.signed_off', target: signed.id },
    ]);
    expect(JSON.parse(audit[2]!.detail)).toEqual({ agent: 'cv-screener', signed_off_by: 'Dana Lee' });
    const rows = await ctx.gateway.store.db.selectFrom('risk_assessments').select(['id', 'signed_off']).where('agent', '=', 'cv-screener').orderBy('id').execute();
    expect(rows.map((row) => [row.id, Number(row.signed_off)])).toEqual([
      [unsigned.id, 0],
      [signed.id, 1],
    ]);
  });

  it('classifies a hiring agent as high, with reasons and open questions, the same every time', async () => {
    const first = await json(ctx.gateway.request('/api/risk/classify/cv-screener', { token: viewer }));
    expect(first.class).toBe('high');
    const employment = first.reasons.find((reason: { rule: string }) => reason.rule === 'annex3.employment');
    expect(employment).toMatchObject({ class: 'high', ref: expect.stringContaining('Annex III point 4') });
    expect(employment.evidence).toEqual(
      expect.arrayContaining(['purpose mentions "candidate"', 'declares data class candidate_data', 'declares tool rank_candidates']),
    );
    const questions = first.open_questions.map((question: { key: string }) => question.key);
    expect(questions).toEqual(expect.arrayContaining(['art6_3_derogation', 'human_oversight', 'no_traffic']));
    expect(first.inputs).toMatchObject({ risk_tier: 'high', data_classes: ['candidate_data'], observed: { window_days: 90, decisions: 0 } });
    expect(await json(ctx.gateway.request('/api/risk/classify/cv-screener', { token: viewer }))).toEqual(first);
    expect((await ctx.gateway.request('/api/risk/classify/nobody')).status).toBe(404);
  });

  it('classifies a plain FAQ bot as limited (transparency) with open questions', async () => {
    const faq = await json(ctx.gateway.request('/api/risk/classify/faq-bot', { token: viewer }));
    expect(faq.class).toBe('limited');
    expect(faq.reasons).toEqual([{ rule: 'art50.interaction', ref: 'Art. 50(1)', class: 'limited', evidence: ['purpose mentions "chat"', 'purpose mentions "faq"'] }]);
    expect(faq.open_questions.map((question: { key: string }) => question.key)).toEqual(['ai_disclosure', 'decisions_about_people', 'no_traffic']);
  });

  it('reads observed behaviour: tools used, entity types, blocked calls', async () => {
    const gateway = ctx.gateway;
    const before = await json(gateway.request('/api/risk/classify/batch-tagger'));
    expect(before.class).toBe('minimal');
    expect(before.reasons.map((reason: { rule: string }) => reason.rule)).toEqual(['default.minimal']);
    // An undeclared tool that screens candidates (blocked by default deny) and an e-mail address in input.
    const call = await gateway.request('/v1/guard/tool_call', { method: 'POST', json: { agent: 'batch-tagger', tool: 'screen_candidates', arguments: { batch: 1 } } });
    expect(((await call.json()) as { verdict: string }).verdict).toBe('block');
    await gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'batch-tagger', content: 'please tag the note from jane.doe@example.com' } });
    await gateway.app.services.recorder.flush();
    const after = await json(gateway.request('/api/risk/classify/batch-tagger'));
    expect(after.class).toBe('high');
    expect(after.reasons).toEqual([expect.objectContaining({ rule: 'annex3.employment', evidence: ['was seen using tool screen_candidates'] })]);
    expect(after.inputs.observed).toMatchObject({ decisions: 2, tools_used: ['screen_candidates'], blocked_calls: 1 });
    expect(after.inputs.observed.entity_types).toContain('PII.EMAIL');
    const questions = after.open_questions.map((question: { key: string }) => question.key);
    expect(questions).toEqual(expect.arrayContaining(['personal_data_undeclared', 'blocked_calls', 'undeclared_tools']));
    expect(questions).not.toContain('no_traffic');
  });

  it('lists the register, overdue and high-risk first, and flags a review once the clock passes it', async () => {
    const gateway = ctx.gateway;
    await gateway.store.db
      .insertInto('findings')
      .values({
        id: 'fnd_risk_test_critical',
        fingerprint: 'risk-test-critical',
        type: 'unowned_agent',
        severity: 'critical',
        severity_rank: 4,
        status: 'open',
        title: 'test finding',
        subject: 'agent:faq-bot',
        agent: 'faq-bot',
        at: gateway.clock.now().toISOString(),
        last_seen_at: gateway.clock.now().toISOString(),
        occurrences: 1,
        evidence: '{}',
        decision_id: null,
        suppression_reason: null,
        resolution_note: null,
        status_changed_at: null,
        status_changed_by: null,
      })
      .execute();
    expect((await json(assess('faq-bot', { eu_ai_act_class: 'limited', inherent_risk: 'medium', residual_risk: 'low', review_months: 1 }, operator))).review_months).toBe(1);

    const view = await json(gateway.request('/api/risk/register', { token: viewer }));
    expect(view.items.map((item: { agent: string }) => item.agent)).toEqual(['cv-screener', 'batch-tagger', 'faq-bot']);
    const [screener, tagger, faq] = view.items;
    expect(tagger).toMatchObject({ class: 'high', provisional: true, assessed: false, residual_risk: null, next_review_at: null, overdue: false });
    expect(screener).toMatchObject({ class: 'high', provisional: false, residual_risk: 'low', signed_off: true, signed_off_by: 'Dana Lee', owner_email: 'hr-lead@example.com', overdue: false });
    expect(faq).toMatchObject({ class: 'limited', residual_risk: 'low', owner_team: 'support', open_critical_findings: 1, overdue: false, signed_off: false });
    expect(view.counts).toEqual({ agents: 3, assessed: 2, signed_off: 1, overdue: 0, provisional: 1 });

    gateway.clock.advance(40 * DAY);
    const later = await json(gateway.request('/api/risk/register', { token: viewer }));
    expect(later.items.map((item: { agent: string; overdue: boolean }) => [item.agent, item.overdue])).toEqual([
      ['faq-bot', true],
      ['cv-screener', false],
      ['batch-tagger', false],
    ]);
    expect(later.counts.overdue).toBe(1);
  });
});
