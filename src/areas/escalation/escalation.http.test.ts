// Escalation over HTTP on both dialects: a scripted conversation that asks twice for a person makes
// one hand-off; the SLA sweep raises handoff_sla_breach once; enforce mode makes the next output
// check escalate naming the hand-off; observe mode shows in /missed and a scan raises
// missed_escalation once; self-harm hands off at once; the multilingual phrase table; the other
// conditions; acknowledging and closing (incomplete_handoff); a proxied chat with a session records
// its turn (official openai client, fake upstream); roles; NUL and lone surrogates; the fuzz walk.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { hostileRequestFailures } from '../../../test/helpers/fuzz-area.js';
import { FakeAnthropic } from '../../../test/helpers/fake-anthropic.js';
import { FakeOpenAI } from '../../../test/helpers/fake-openai.js';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { agentCredential, withFakeUpstream } from '../../../test/helpers/proxy.js';

const MINUTE = 60_000;

const turn = (gateway: TestGateway, body: Record<string, unknown>, token?: string | null, headers: Record<string, string> = {}) =>
  gateway.request('/api/escalation/turns', { method: 'POST', json: body, headers, ...(token === undefined ? {} : { token }) });

const putPolicy = async (gateway: TestGateway, body: Record<string, unknown>) => {
  const response = await gateway.request('/api/escalation/policy', { method: 'PUT', json: body });
  expect(response.status, JSON.stringify(body)).toBe(200);
  return json(response);
};

async function findings(gateway: TestGateway, type: string): Promise<any[]> {
  await gateway.app.services.recorder.flush();
  return (await json(gateway.request(`/api/findings?type=${type}&limit=500`))).items;
}

const handoffsOf = async (gateway: TestGateway, agent: string): Promise<any[]> => (await json(gateway.request(`/api/escalation/handoffs?agent=${agent}`))).items;

async function mint(gateway: TestGateway, role: string): Promise<{ token: string; id: string }> {
  const created = await json(gateway.request('/api/tokens', { method: 'POST', json: { name: `${role}-person`, role, ttl_days: 3650 } }));
  return { token: created.token, id: created.id };
}

/** Each phrase asks for a person in its language, with the casing and diacritics people type. */
const ASKS: Array<[string, string]> = [
  ['en', 'This is going nowhere. Can I talk to a human?'],
  ['en', 'Please transfer me to a LIVE AGENT.'],
  ['de', 'Ich möchte bitte mit einem Menschen sprechen.'],
  ['de', 'Kann ich mit einem Mitarbeiter reden?'],
  ['fr', 'Je voudrais parler à un conseiller, svp'],
  ['fr', "Je veux PARLER A QUELQU'UN maintenant"],
  ['es', 'Quiero hablar con una persona real'],
  ['es', '¿Puedo hablar con un agente?'],
  ['it', 'Vorrei parlare con un operatore'],
  ['it', 'Posso parlare con un essere umano?'],
  ['pt', 'Quero falar com um atendente'],
  ['pt', 'Posso falar com alguém, por favor?'],
  ['nl', 'Kan ik met een medewerker spreken?'],
  ['nl', 'Ik wil met een mens praten'],
];
const NOT_ASKING = ['The human body has 206 bones.', 'Humanity will prevail.', 'Is the agent API documented?', 'Das ist menschlich verständlich.', 'Une personne a appelé hier.'];

describe.each(DIALECTS)('escalation (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  let viewer: string;
  let operator: string;
  let operatorId: string;
  let supportCredential: string;

  beforeAll(async () => {
    viewer = (await mint(ctx.gateway, 'viewer')).token;
    ({ token: operator, id: operatorId } = await mint(ctx.gateway, 'operator'));
    supportCredential = await agentCredential(ctx.gateway, 'support-bot');
  });

  it('shows the built-in default policy and refuses unknown conditions and bad parameters with 422, changing nothing', async () => {
    const policy = await json(ctx.gateway.request('/api/escalation/policy?agent=nobody-yet', { token: viewer }));
    expect(policy).toMatchObject({ agent: 'nobody-yet', owner_role: 'support', sla_minutes: 60, mode: 'observe', source: 'built_in', updated_by: null });
    expect(Object.keys(policy.conditions).sort()).toEqual(['binding_commitment', 'frustration', 'held_tool_call', 'human_request', 'low_confidence', 'repeated_failures', 'sensitive_topic']);
    expect(policy.conditions.repeated_failures).toEqual({ count: 2 });
    expect(policy.conditions.low_confidence).toEqual({ threshold: 0.4 });

    for (const conditions of [{ weather: true }, { repeated_failures: { count: 0 } }, { low_confidence: { threshold: 2 } }, { frustration: { window: 3, mood: 'bad' } }, { human_request: 'yes' }, { sensitive_topic: { topics: [''] } }, { held_tool_call: { x: 1 } }]) {
      const response = await ctx.gateway.request('/api/escalation/policy', { method: 'PUT', json: { agent: 'support-bot', conditions } });
      expect(response.status, JSON.stringify(conditions)).toBe(422);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await json(response)).errors.length).toBeGreaterThan(0);
    }
    for (const body of [{ sla_minutes: 0 }, { sla_minutes: 10_081 }, { mode: 'loud' }, { owner_role: 'x'.repeat(101) }, { colour: 'red' }]) {
      expect((await ctx.gateway.request('/api/escalation/policy', { method: 'PUT', json: body })).status, JSON.stringify(body)).toBe(400);
    }
    expect((await json(ctx.gateway.request('/api/escalation/policy?agent=support-bot'))).source).toBe('built_in');
  });

  it('a conversation that asks twice for a person makes one hand-off; the next output check escalates naming it', async () => {
    const saved = await putPolicy(ctx.gateway, { agent: 'support-bot', mode: 'enforce', sla_minutes: 30, owner_role: 'tier-2 support' });
    expect(saved).toMatchObject({ agent: 'support-bot', mode: 'enforce', sla_minutes: 30, owner_role: 'tier-2 support', source: 'agent' });
    const session = 'conv-ask-twice';
    const first = await json(turn(ctx.gateway, { session_id: session, user_text: 'Where is my order 1234?', agent_text: 'It ships tomorrow.' }, supportCredential));
    expect(first).toMatchObject({ conditions: [], handoff: null, escalate: false });
    const asked = await json(turn(ctx.gateway, { session_id: session, user_text: 'That is not true. I want to talk to a human.', agent_text: 'Let me check.' }, supportCredential));
    expect(asked.conditions).toEqual([{ condition: 'human_request', detail: expect.stringContaining('talk to a human') }]);
    expect(asked.escalate).toBe(true);
    expect(asked.handoff).toMatchObject({ status: 'open', owner_role: 'tier-2 support' });
    const again = await json(turn(ctx.gateway, { session_id: session, user_text: 'Please let me SPEAK TO A PERSON!' }, supportCredential));
    expect(again.conditions.map((item: any) => item.condition)).toEqual(['human_request']);
    expect(again.handoff.id).toBe(asked.handoff.id);

    const handoffs = await handoffsOf(ctx.gateway, 'support-bot');
    expect(handoffs).toHaveLength(1);
    const [handoff] = handoffs;
    expect(handoff).toMatchObject({ session_id: session, status: 'open', mode: 'enforce', retroactive: false, breached: false, overdue: false, acknowledged_at: null });
    expect(handoff.reasons.map((reason: any) => reason.condition)).toEqual(['human_request']);
    expect(handoff.conversation.map((item: any) => item.user_text)).toEqual(['Where is my order 1234?', 'That is not true. I want to talk to a human.']);
    expect(Date.parse(handoff.due_at) - Date.parse(handoff.created_at)).toBe(30 * MINUTE);

    const output = await json(ctx.gateway.request('/v1/guard/output', { method: 'POST', json: { agent: 'support-bot', content: 'Your order ships tomorrow.', session_id: session } }));
    expect(output.verdict).toBe('escalate');
    expect(output.rules_fired).toContainEqual(expect.objectContaining({ rule_id: 'escalation.handoff', effect: 'escalate', mode: 'enforce' }));
    expect(output.reason).toContain(handoff.id);
    const otherSession = await json(ctx.gateway.request('/v1/guard/output', { method: 'POST', json: { agent: 'support-bot', content: 'Your order ships tomorrow.', session_id: 'another-session' } }));
    expect(otherSession.verdict).toBe('allow');
    const input = await json(ctx.gateway.request('/v1/guard/input', { method: 'POST', json: { agent: 'support-bot', content: 'hello', session_id: session } }));
    expect(input.verdict).toBe('allow');
    // The hand-off is not a containment finding.
    expect((await findings(ctx.gateway, 'containment')).filter((item) => item.evidence?.rule_id === 'escalation.handoff')).toEqual([]);

    const conversation = await json(ctx.gateway.request(`/api/escalation/conversations/${session}`, { token: viewer }));
    expect(conversation.turns.map((item: any) => [item.conditions.map((c: any) => c.condition), item.handoff_id, item.origin])).toEqual([
      [[], null, 'api'],
      [['human_request'], handoff.id, 'api'],
      [['human_request'], handoff.id, 'api'],
    ]);
    expect(conversation.handoffs.map((item: any) => item.id)).toEqual([handoff.id]);
    expect((await ctx.gateway.request('/api/escalation/conversations/never-seen')).status).toBe(404);
  });

  it('left unacknowledged past its SLA, the sweep raises handoff_sla_breach once', async () => {
    const [handoff] = await handoffsOf(ctx.gateway, 'support-bot');
    const { escalation } = ctx.gateway.app.services;
    expect(await escalation.sweep()).toBe(0);
    ctx.gateway.clock.advance(31 * MINUTE);
    expect(await escalation.sweep()).toBe(1);
    expect(await escalation.sweep()).toBe(0);
    const breaches = (await findings(ctx.gateway, 'handoff_sla_breach')).filter((item) => item.evidence.handoff_id === handoff.id);
    expect(breaches).toHaveLength(1);
    expect(breaches[0]).toMatchObject({ severity: 'medium', agent: 'support-bot', occurrences: 1 });
    const [after] = await handoffsOf(ctx.gateway, 'support-bot');
    expect(after).toMatchObject({ breached: true, overdue: true });
    // A scan finds nothing more to raise for it.
    expect((await json(ctx.gateway.request('/api/escalation/scan?agent=support-bot', { method: 'POST', token: operator }))).sla_breaches).toBe(0);
  });

  it('a person acknowledges, then closes; a second acknowledgement is 409; closing ends the escalate verdict', async () => {
    const [handoff] = await handoffsOf(ctx.gateway, 'support-bot');
    const path = `/api/escalation/handoffs/${handoff.id}/acknowledge`;
    expect((await ctx.gateway.request(path, { method: 'POST', json: { note: 'on it' }, token: viewer })).status).toBe(403);
    expect((await ctx.gateway.request(path, { method: 'POST', json: { note: 'on it' }, token: supportCredential })).status).toBe(403);
    const acknowledged = await json(ctx.gateway.request(path, { method: 'POST', json: { note: 'Calling the customer back.' }, token: operator }));
    expect(acknowledged).toMatchObject({ status: 'acknowledged', note: 'Calling the customer back.', closed_at: null });
    expect(acknowledged.acknowledged_by).toContain(operatorId);
    const twice = await ctx.gateway.request(path, { method: 'POST', json: { note: 'again' }, token: operator });
    expect(twice.status).toBe(409);
    expect(twice.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    // Still with a person: the agent's output still goes to them.
    const held = await json(ctx.gateway.request('/v1/guard/output', { method: 'POST', json: { agent: 'support-bot', content: 'Hello again.', session_id: handoff.session_id } }));
    expect(held.verdict).toBe('escalate');
    const closed = await json(ctx.gateway.request(path, { method: 'POST', json: { close: true, resolution: 'Refund issued by phone.' }, token: operator }));
    expect(closed).toMatchObject({ status: 'closed', note: 'Calling the customer back.', resolution: 'Refund issued by phone.' });
    expect((await ctx.gateway.request(path, { method: 'POST', json: { close: true }, token: operator })).status).toBe(409);
    expect((await ctx.gateway.request('/api/escalation/handoffs/ho_unknown/acknowledge', { method: 'POST', json: {} })).status).toBe(404);
    const released = await json(ctx.gateway.request('/v1/guard/output', { method: 'POST', json: { agent: 'support-bot', content: 'Hello again.', session_id: handoff.session_id } }));
    expect(released.verdict).toBe('allow');
    expect((await findings(ctx.gateway, 'incomplete_handoff')).filter((item) => item.evidence.handoff_id === handoff.id)).toEqual([]);
    const audit = await ctx.gateway.store.db.selectFrom('audit_entries').select(['action', 'target']).where('action', 'like', 'escalation.handoff%').orderBy('seq').execute();
    expect(audit).toEqual([
      { action: 'escalation.handoff_acknowledged', target: handoff.id },
      { action: 'escalation.handoff_closed', target: handoff.id },
    ]);

    // A new request for a person after the close is a new hand-off; closed without a resolution it is incomplete.
    const next = await json(turn(ctx.gateway, { session_id: handoff.session_id, user_text: 'I need a human again' }, supportCredential));
    expect(next.handoff.id).not.toBe(handoff.id);
    const incomplete = await json(ctx.gateway.request(`/api/escalation/handoffs/${next.handoff.id}/acknowledge`, { method: 'POST', json: { close: true }, token: operator }));
    expect(incomplete.status).toBe('closed');
    const raised = (await findings(ctx.gateway, 'incomplete_handoff')).filter((item) => item.evidence.handoff_id === next.handoff.id);
    expect(raised).toHaveLength(1);
    expect(raised[0].evidence.missing).toEqual(['note', 'resolution']);
  });

  it('observe mode records only: the conversation shows in /missed and a scan raises missed_escalation once', async () => {
    const session = 'observe-conv-1';
    const first = await json(turn(ctx.gateway, { session_id: session, agent: 'observe-bot', user_text: 'Hello, my parcel is late.', escalated: false }, operator));
    expect(first.handoff).toBeNull();
    const asked = await json(turn(ctx.gateway, { session_id: session, agent: 'observe-bot', user_text: 'Can I speak with an agent please', escalated: false }, operator));
    expect(asked).toMatchObject({ conditions: [{ condition: 'human_request' }], handoff: null, escalate: false });
    // The agent escalated by itself on this one: not missed.
    await turn(ctx.gateway, { session_id: 'observe-self', agent: 'observe-bot', user_text: 'talk to a human', escalated: true }, operator);
    await turn(ctx.gateway, { session_id: 'observe-calm', agent: 'observe-bot', user_text: 'Thanks, all good.' }, operator);

    const missed = await json(ctx.gateway.request('/api/escalation/missed?agent=observe-bot&since_hours=24', { token: viewer }));
    expect(missed.items).toEqual([
      expect.objectContaining({ session_id: session, agent: 'observe-bot', mode: 'observe', turns: 2, qualifying_turns: 1, conditions: ['human_request'], retroactive_handoff_id: null }),
    ]);
    expect(missed.truncated).toBe(false);

    const scan = await json(ctx.gateway.request('/api/escalation/scan?agent=observe-bot', { method: 'POST', token: operator }));
    expect(scan).toMatchObject({ sessions: 3, missed: 1, missed_escalation_findings: 1 });
    expect(scan.retroactive_handoffs).toHaveLength(1);
    const [retro] = await handoffsOf(ctx.gateway, 'observe-bot');
    expect(retro).toMatchObject({ id: scan.retroactive_handoffs[0], retroactive: true, mode: 'observe', session_id: session, status: 'open' });
    const found = (await findings(ctx.gateway, 'missed_escalation')).filter((item) => item.evidence.session_id === session);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity: 'high', occurrences: 1 });

    const second = await json(ctx.gateway.request('/api/escalation/scan?agent=observe-bot', { method: 'POST', token: operator }));
    expect(second).toMatchObject({ missed: 1, retroactive_handoffs: [], missed_escalation_findings: 0, sla_breaches: 0 });
    expect((await findings(ctx.gateway, 'missed_escalation')).filter((item) => item.evidence.session_id === session)[0].occurrences).toBe(1);
    expect(await handoffsOf(ctx.gateway, 'observe-bot')).toHaveLength(1);
    const scans = await ctx.gateway.store.db.selectFrom('audit_entries').select('action').where('action', '=', 'escalation.scanned').execute();
    expect(scans).toHaveLength(1);
    // Still missed (the retroactive hand-off came after the fact), now naming it.
    expect((await json(ctx.gateway.request('/api/escalation/missed?agent=observe-bot'))).items[0].retroactive_handoff_id).toBe(retro.id);
    // A retroactive hand-off never changes the agent's verdicts.
    expect((await json(ctx.gateway.request('/v1/guard/output', { method: 'POST', json: { agent: 'observe-bot', content: 'ok', session_id: session } }))).verdict).toBe('allow');
  });

  it('a self-harm turn hands off at once, even under an observe policy, and the next output escalates', async () => {
    const answer = await json(turn(ctx.gateway, { session_id: 'care-1', agent: 'care-bot', user_text: 'Honestly I want to kill myself tonight.' }, operator));
    expect(answer.conditions).toEqual([{ condition: 'sensitive_topic', detail: expect.stringContaining('self-harm') }]);
    expect(answer.escalate).toBe(true);
    expect(answer.handoff.status).toBe('open');
    const [handoff] = await handoffsOf(ctx.gateway, 'care-bot');
    expect(handoff).toMatchObject({ mode: 'enforce', retroactive: false });
    const output = await json(ctx.gateway.request('/v1/guard/output', { method: 'POST', json: { agent: 'care-bot', content: 'Here are some tips.', session_id: 'care-1' } }));
    expect(output.verdict).toBe('escalate');
    expect(output.reason).toContain(handoff.id);
    // Configured topics hand off under the policy's mode; self-harm can be switched off explicitly.
    await putPolicy(ctx.gateway, { agent: 'care-bot', conditions: { sensitive_topic: { self_harm: false, topics: ['legal action', 'Datenschutzbehörde'] } } });
    const topic = await json(turn(ctx.gateway, { session_id: 'care-2', agent: 'care-bot', user_text: 'I will take LEGAL ACTION, or write to the Datenschutzbehorde.' }, operator));
    expect(topic.conditions).toEqual([{ condition: 'sensitive_topic', detail: 'configured topic "legal action"' }]);
    expect(topic.handoff).toBeNull();
    const off = await json(turn(ctx.gateway, { session_id: 'care-3', agent: 'care-bot', user_text: 'I want to kill myself.' }, operator));
    expect(off.conditions).toEqual([]);
  });

  it('recognises a request for a person in en, de, fr, es, it, pt and nl, whole phrases only', async () => {
    for (const [index, [language, text]] of ASKS.entries()) {
      const answer = await json(turn(ctx.gateway, { session_id: `phrase-${index}`, agent: 'phrase-bot', user_text: text }, operator));
      expect(answer.conditions.map((item: any) => item.condition), `${language}: ${text}`).toEqual(['human_request']);
      expect(answer.conditions[0].detail, text).toContain(`(${language})`);
    }
    for (const [index, text] of NOT_ASKING.entries()) {
      const answer = await json(turn(ctx.gateway, { session_id: `no-phrase-${index}`, agent: 'phrase-bot', user_text: text }, operator));
      expect(answer.conditions, text).toEqual([]);
    }
  });

  it('evaluates repeated failures, low confidence, frustration, binding commitments and held tool calls', async () => {
    await putPolicy(ctx.gateway, { agent: 'cond-bot', conditions: { repeated_failures: { count: 2 }, low_confidence: true, frustration: { window: 3, threshold: 2 }, binding_commitment: true, held_tool_call: true } });
    const conditions = async (session: string, body: Record<string, unknown>) =>
      (await json(turn(ctx.gateway, { session_id: session, agent: 'cond-bot', ...body }, operator))).conditions.map((item: any) => item.condition);
    expect(await conditions('fail', { user_text: 'a', failed: true })).toEqual([]);
    expect(await conditions('fail', { user_text: 'b', failed: false })).toEqual([]);
    expect(await conditions('fail', { user_text: 'c', failed: true })).toEqual(['repeated_failures']);
    expect(await conditions('conf', { user_text: 'x', confidence: 0.39 })).toEqual(['low_confidence']);
    expect(await conditions('conf', { user_text: 'x', confidence: 0.4 })).toEqual([]);
    expect(await conditions('mood', { user_text: 'How do I reset my password?' })).toEqual([]);
    expect(await conditions('mood', { user_text: 'how do i reset my password' })).toEqual([]);
    expect(await conditions('mood', { user_text: 'THIS IS NOT WORKING AT ALL!!!' })).toEqual(['frustration']);
    expect(await conditions('calm', { user_text: 'Thanks!!! That is great.' })).toEqual([]);
    expect(await conditions('promise', { agent_text: 'We will refund the full amount by Friday.' })).toEqual(['binding_commitment']);
    expect(await conditions('promise', { agent_text: 'A colleague will look at the refund request.' })).toEqual([]);

    const now = ctx.gateway.clock.now();
    await ctx.gateway.store.db
      .insertInto('approvals')
      .values({
        id: 'apr_escalation_test',
        agent: 'cond-bot',
        tool: 'refund',
        arguments_sha256: 'a'.repeat(64),
        arguments: '{}',
        decision_id: 'dec_held_for_escalation',
        rules: '[]',
        reason: 'needs approval',
        status: 'pending',
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + 60 * MINUTE).toISOString(),
        decided_at: null,
        decided_by: null,
        rationale: null,
        used_at: null,
        used_decision_id: null,
        pending_key: 'escalation-test-pending',
      })
      .execute();
    expect(await conditions('held', { user_text: 'ok', trace_id: 'dec_held_for_escalation' })).toEqual(['held_tool_call']);
    expect(await conditions('held', { user_text: 'ok', trace_id: 'dec_other' })).toEqual([]);

    const report = await json(ctx.gateway.request('/api/escalation/report?since_hours=24', { token: viewer }));
    expect(report.sessions).toBeGreaterThan(10);
    expect(report.qualified).toBeGreaterThan(0);
    expect(report.handed_off).toBeGreaterThan(0);
    expect(report.missed).toBeGreaterThan(0);
    expect(report.breaches).toBeGreaterThanOrEqual(1);
    expect(report.time_to_acknowledge.acknowledged).toBeGreaterThanOrEqual(2);
    expect(report.time_to_acknowledge.p50_minutes).not.toBeNull();
    const support = report.by_agent.find((entry: any) => entry.agent === 'support-bot');
    expect(support).toMatchObject({ handed_off: 1, missed: 0, breaches: 1 });
    expect(report.by_reason.map((entry: any) => entry.condition)).toEqual(
      expect.arrayContaining(['human_request', 'repeated_failures', 'low_confidence', 'frustration', 'binding_commitment', 'held_tool_call', 'sensitive_topic']),
    );
    const scoped = await json(ctx.gateway.request('/api/escalation/report?agent=cond-bot'));
    expect(scoped.by_agent.map((entry: any) => entry.agent)).toEqual(['cond-bot']);
  });

  it('roles: viewer reads, operator writes, an agent credential reports only its own turns', async () => {
    for (const path of ['/api/escalation/policy', '/api/escalation/handoffs', '/api/escalation/missed', '/api/escalation/report', '/api/escalation/conversations/conv-ask-twice']) {
      expect((await ctx.gateway.request(path, { token: null })).status, path).toBe(401);
      expect((await ctx.gateway.request(path, { token: viewer })).status, path).toBe(200);
      expect((await ctx.gateway.request(path, { token: supportCredential })).status, path).toBe(403);
    }
    expect((await turn(ctx.gateway, { session_id: 's', agent: 'x' }, null)).status).toBe(401);
    expect((await turn(ctx.gateway, { session_id: 's', agent: 'x' }, viewer)).status).toBe(403);
    expect((await ctx.gateway.request('/api/escalation/policy', { method: 'PUT', json: { mode: 'enforce' }, token: viewer })).status).toBe(403);
    expect((await ctx.gateway.request('/api/escalation/scan', { method: 'POST', token: viewer })).status).toBe(403);
    expect((await turn(ctx.gateway, { session_id: 's', agent: 'other-bot', user_text: 'hi' }, supportCredential)).status).toBe(403);
    expect((await turn(ctx.gateway, { session_id: 's', user_text: 'hi' }, supportCredential, { 'x-parapet-agent': 'other-bot' })).status).toBe(403);
    expect((await turn(ctx.gateway, { session_id: 'own', agent: 'support-bot', user_text: 'hi' }, supportCredential)).status).toBe(200);
    expect((await turn(ctx.gateway, { session_id: 's', user_text: 'hi' }, ctx.gateway.trafficToken)).status).toBe(400);
    expect((await turn(ctx.gateway, { session_id: 'traffic', user_text: 'hi' }, ctx.gateway.trafficToken, { 'x-parapet-agent': 'traffic-bot' })).status).toBe(200);
    expect((await turn(ctx.gateway, { session_id: 's', user_text: 'hi' }, operator)).status).toBe(400);
    const conversation = await json(ctx.gateway.request('/api/escalation/conversations/traffic'));
    expect(conversation.turns[0].agent).toBe('traffic-bot');
  });

  it('refuses malformed turns with 400 and changes nothing; NUL and lone surrogates are stored replaced, never a 500', async () => {
    const before = Number((await ctx.gateway.store.db.selectFrom('escalation_turns').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    for (const bad of [{}, { session_id: '' }, { session_id: 's', agent: 'a', confidence: 1.5 }, { session_id: 's', agent: 'a', user_text: 'x'.repeat(32_769) }, { session_id: 's', agent: 'a', extra: 1 }, { session_id: 'x'.repeat(501), agent: 'a' }, { session_id: 's', agent: 'a', failed: 'yes' }]) {
      const response = await turn(ctx.gateway, bad);
      expect(response.status, JSON.stringify(bad).slice(0, 80)).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const after = Number((await ctx.gateway.store.db.selectFrom('escalation_turns').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect(after).toBe(before);

    const odd = await turn(ctx.gateway, { session_id: 'nul\u0000session\uD800', agent: 'odd\u0000bot', user_text: 'talk to a human\u0000 \uDC00', agent_text: '\uD800 we will refund you', trace_id: 't\u0000' });
    expect(odd.status).toBe(200);
    expect((await json(odd)).conditions.map((item: any) => item.condition)).toEqual(['human_request', 'binding_commitment']);
    const conversation = await json(ctx.gateway.request(`/api/escalation/conversations/${encodeURIComponent('nul\uFFFDsession\uFFFD')}`));
    expect(conversation.turns[0]).toMatchObject({ agent: 'odd\uFFFDbot', user_text: 'talk to a human\uFFFD \uFFFD', agent_text: '\uFFFD we will refund you', trace_id: 't\uFFFD' });
    const policy = await ctx.gateway.request('/api/escalation/policy', { method: 'PUT', json: { agent: 'odd\u0000bot', owner_role: 'desk\uD800', conditions: { human_request: { phrases: ['hilfe\u0000bitte'] } } } });
    expect(policy.status).toBe(200);
    expect(await json(policy)).toMatchObject({ agent: 'odd\uFFFDbot', owner_role: 'desk\uFFFD', conditions: { human_request: { phrases: ['hilfe\uFFFDbitte'] } } });
  });

  it('answers malformed and hostile input to its routes with a 4xx problem or a success, never a 5xx', async () => {
    const paths = [
      '/api/escalation/turns',
      '/api/escalation/policy',
      '/api/escalation/handoffs',
      '/api/escalation/handoffs/{handoff_id}/acknowledge',
      '/api/escalation/missed',
      '/api/escalation/scan',
      '/api/escalation/report',
      '/api/escalation/conversations/{session_id}',
    ];
    const { failures, sent, operations } = await hostileRequestFailures(ctx.gateway, paths);
    expect(operations).toEqual([
      'GET /api/escalation/conversations/{session_id}',
      'GET /api/escalation/handoffs',
      'GET /api/escalation/missed',
      'GET /api/escalation/policy',
      'GET /api/escalation/report',
      'POST /api/escalation/handoffs/{handoff_id}/acknowledge',
      'POST /api/escalation/scan',
      'POST /api/escalation/turns',
      'PUT /api/escalation/policy',
    ]);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(20);
  }, 180_000);
});

describe.each(DIALECTS)('escalation turns of proxied chats (%s)', (dialect) => {
  const ctx = withFakeUpstream(() => new FakeOpenAI(), (fake) => ({ upstream_openai_base_url: fake.url, upstream_openai_api_key: 'sk-escalation-test-upstream' }), { dialect });

  async function waitForTurns(gateway: TestGateway, session: string, count: number): Promise<any> {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const response = await gateway.request(`/api/escalation/conversations/${session}`);
      if (response.status === 200) {
        const body = await json(response);
        if (body.turns.length >= count) return body;
      } else await response.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no ${count} turns recorded for ${session}`);
  }

  it('records a turn of a chat that names its session (X-Parapet-Session), none without; enforce mode escalates the next answer', async () => {
    const credential = await agentCredential(ctx.gateway, 'proxy-bot');
    const anonymous = new OpenAI({ baseURL: `${ctx.gateway.url}/v1`, apiKey: credential, maxRetries: 0 });
    await anonymous.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'No session here.' }] });

    await putPolicy(ctx.gateway, { agent: 'proxy-bot', mode: 'enforce' });
    const client = new OpenAI({ baseURL: `${ctx.gateway.url}/v1`, apiKey: credential, maxRetries: 0, defaultHeaders: { 'X-Parapet-Session': 'proxied-1' } });
    const first = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You are a support agent.' },
        { role: 'user', content: 'I would like to talk to a human, please.' },
      ],
    });
    expect(first.choices[0]!.message.content).toBe('Hello from the fake upstream.');
    const conversation = await waitForTurns(ctx.gateway, 'proxied-1', 1);
    expect(conversation.turns[0]).toMatchObject({
      agent: 'proxy-bot',
      origin: 'proxy',
      user_text: 'I would like to talk to a human, please.',
      agent_text: 'Hello from the fake upstream.',
      conditions: [{ condition: 'human_request' }],
    });
    expect(conversation.turns[0].trace_id).toEqual(expect.any(String));
    expect(conversation.handoffs).toHaveLength(1);
    const turns = await ctx.gateway.store.db.selectFrom('escalation_turns').select('session_id').where('agent', '=', 'proxy-bot').execute();
    expect(turns.map((row) => row.session_id)).toEqual(['proxied-1']);

    const raw = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Are you still there?' }] }).withResponse();
    expect(raw.response.headers.get('x-parapet-verdict')).toBe('escalate');
    const answer = raw.data as any;
    expect(answer.parapet.verdict).toBe('escalate');
    expect(answer.choices[0].message.content).toContain(conversation.handoffs[0].id);
    // The body's `user` names a session too.
    await anonymous.chat.completions.create({ model: 'gpt-test', user: 'proxied-user-2', messages: [{ role: 'user', content: 'Hi there' }] });
    expect((await waitForTurns(ctx.gateway, 'proxied-user-2', 1)).turns[0].conditions).toEqual([]);
  });
});

describe.each(DIALECTS)('escalation turns of proxied messages (%s)', (dialect) => {
  const ctx = withFakeUpstream(() => new FakeAnthropic(), (fake) => ({ upstream_anthropic_base_url: fake.url, upstream_anthropic_api_key: 'sk-ant-escalation-test' }), { dialect });

  it('records the turn of a messages call that names its session (metadata.user_id)', async () => {
    const credential = await agentCredential(ctx.gateway, 'claude-bot');
    const anthropic = new Anthropic({ baseURL: ctx.gateway.url, apiKey: credential, maxRetries: 0 });
    await anthropic.messages.create({ model: 'claude-test', max_tokens: 50, metadata: { user_id: 'claude-session-1' }, messages: [{ role: 'user', content: 'Ich möchte mit einem Menschen sprechen.' }] });
    let conversation: any;
    for (let attempt = 0; attempt < 100 && conversation === undefined; attempt += 1) {
      const response = await ctx.gateway.request('/api/escalation/conversations/claude-session-1');
      if (response.status === 200) conversation = await json(response);
      else {
        await response.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    expect(conversation.turns[0]).toMatchObject({ agent: 'claude-bot', origin: 'proxy', user_text: 'Ich möchte mit einem Menschen sprechen.', conditions: [{ condition: 'human_request' }] });
    expect(conversation.turns[0].agent_text).toEqual(expect.any(String));
  });
});
