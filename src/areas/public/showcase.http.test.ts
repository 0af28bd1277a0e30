// The public showcase over HTTP on both dialects: off by default (`{ enabled: false }`, no
// credential needed, nothing written); on, probe rounds through the gateway's own pipeline with
// the baseline enforcing — attacks blocked, benign probes passing, no live trace recorded, the
// newest 1000 events kept — a feed without probe texts, and the per-address rate limit (429).
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { loadProbeLibrary } from '../redteam/library.js';
import { mutate } from '../redteam/mutations.js';
import { DEMO_AGENT } from './demo-agent.js';
import type { ShowcaseEvent } from './schemas.js';
import { ATTACKS_PER_ROUND, BENIGN_PER_ROUND, KEEP_EVENTS, planRound } from './service.js';
import { insertEvents } from './store.js';

const INTERVAL_SECONDS = 600;
const INTERVAL_MS = INTERVAL_SECONDS * 1000;
const RATE_LIMIT = 25;
const PER_ROUND = ATTACKS_PER_ROUND + BENIGN_PER_ROUND;
const library = loadProbeLibrary();

async function count(gateway: TestGateway, table: 'showcase_events' | 'traces'): Promise<number> {
  const row = await gateway.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const roundNow = (gateway: TestGateway): number => Math.floor(gateway.clock.now().getTime() / INTERVAL_MS);

/** Moves the test clock into the window of `round` (a little past its start). */
function moveTo(gateway: TestGateway, round: number): void {
  const target = round * INTERVAL_MS + 1000;
  const now = gateway.clock.now().getTime();
  expect(target).toBeGreaterThan(now);
  gateway.clock.advance(target - now);
}

const feed = (gateway: TestGateway, init: { token?: string | null; headers?: Record<string, string> } = {}) =>
  gateway.request('/api/public/showcase', { token: null, ...init });

describe.each(DIALECTS)('the public showcase, off by default (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('answers { enabled: false } without a credential, ignores a bad one, and runs nothing', async () => {
    const gateway = ctx.gateway;
    expect(gateway.config.showcase_enabled).toBe(false);
    const plain = await feed(gateway);
    expect(plain.status).toBe(200);
    expect(await plain.json()).toEqual({ enabled: false });
    // `public` looks at no credential: an unknown or malformed one changes nothing.
    for (const authorization of ['Bearer not-a-real-token', 'Basic abc']) {
      const response = await feed(gateway, { headers: { authorization } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ enabled: false });
    }
    const result = await gateway.app.services.showcase.runRound();
    expect(result.ran).toBe(false);
    expect(result.events).toBe(0);
    expect(await count(gateway, 'showcase_events')).toBe(0);
    expect(await json(feed(gateway))).toEqual({ enabled: false });
  });
});

describe.each(DIALECTS)('the public showcase, enabled (%s)', (dialect) => {
  const ctx = withGateway({
    dialect,
    overrides: { showcase_enabled: true, showcase_interval_seconds: INTERVAL_SECONDS, showcase_rate_limit_per_minute: RATE_LIMIT },
  });
  const rounds: number[] = [];
  let tracesBefore = 0;
  let eventsBefore = 0;
  let body: any;
  let raw = '';

  beforeAll(async () => {
    const gateway = ctx.gateway;
    // The tests drive the rounds themselves: the scheduled ones are stopped.
    await gateway.app.services.showcase.stop();
    tracesBefore = await count(gateway, 'traces');
    eventsBefore = await count(gateway, 'showcase_events');
    // Three consecutive rounds starting at one whose plan holds a tool-call attack (deterministic by round number).
    let first = roundNow(gateway) + 1;
    while (!planRound(library, first).some(({ probe }) => probe.kind === 'attack' && probe.surface === 'tool_args')) first += 1;
    for (const round of [first, first + 1, first + 2]) {
      moveTo(gateway, round);
      const result = await gateway.app.services.showcase.runRound();
      expect(result).toEqual({ round, ran: true, events: PER_ROUND });
      rounds.push(round);
    }
    const response = await feed(gateway);
    expect(response.status).toBe(200);
    raw = await response.text();
    body = JSON.parse(raw);
  });

  it('runs the planned probes of each round and at most one round per interval', async () => {
    const gateway = ctx.gateway;
    expect(await count(gateway, 'showcase_events')).toBe(eventsBefore + 3 * PER_ROUND);
    const again = await gateway.app.services.showcase.runRound();
    expect(again).toEqual({ round: rounds[2], ran: false, events: 0 });
    expect(await count(gateway, 'showcase_events')).toBe(eventsBefore + 3 * PER_ROUND);

    const recent = body.recent as ShowcaseEvent[];
    const mine = recent.slice(0, 3 * PER_ROUND);
    // Newest first: the last round's probes lead, each round in reverse plan order.
    const planned = rounds.flatMap((round) => planRound(library, round)).reverse();
    expect(mine.map((event) => [event.probe_id, event.mutation])).toEqual(planned.map(({ probe, mutation }) => [probe.id, mutation]));
    expect(planned.some(({ mutation }) => mutation !== null)).toBe(true);
    expect(planned.filter(({ probe }) => probe.kind === 'benign')).toHaveLength(3 * BENIGN_PER_ROUND);
    for (const event of mine) {
      const probe = library.probes.find((entry) => entry.id === event.probe_id)!;
      expect(event.class).toBe(probe.class);
      expect(event.kind).toBe(probe.kind);
      expect(['allow', 'escalate', 'block']).toContain(event.verdict);
      expect(Array.isArray(event.rules)).toBe(true);
    }
    const times = recent.map((event) => event.at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('shows attacks blocked by the enforcing baseline and benign probes passing', () => {
    const mine = (body.recent as ShowcaseEvent[]).slice(0, 3 * PER_ROUND);
    const toolAttacks = mine.filter((event) => event.kind === 'attack' && library.probes.find((probe) => probe.id === event.probe_id)!.surface === 'tool_args');
    expect(toolAttacks.length).toBeGreaterThan(0);
    for (const event of toolAttacks) {
      expect(event.outcome).toBe('blocked');
      expect(event.verdict).toBe('block');
      // The demo agent holds no grant: the grant check stops any tool call.
      expect(event.rules).toContain('capability.denied');
    }
    const benign = mine.filter((event) => event.kind === 'benign');
    expect(benign).toHaveLength(3 * BENIGN_PER_ROUND);
    for (const event of benign) {
      expect(event.outcome).toBe('through');
      expect(event.verdict).toBe('allow');
    }
    for (const event of mine.filter((entry) => entry.outcome === 'blocked')) expect(event.rules.length).toBeGreaterThan(0);
  });

  it('records nothing as live traffic', async () => {
    const gateway = ctx.gateway;
    expect(await count(gateway, 'traces')).toBe(tracesBefore);
    const demo = await gateway.store.db.selectFrom('traces').select('id').where('agent', '=', DEMO_AGENT).execute();
    expect(demo).toEqual([]);
    // The demo agent is not registered either: it never shows in the operator's inventory.
    const agent = await gateway.store.db.selectFrom('agents').select('slug').where('slug', '=', DEMO_AGENT).executeTakeFirst();
    expect(agent).toBeUndefined();
  });

  it('answers the feed with posture per day and totals that add up', () => {
    const gateway = ctx.gateway;
    expect(body).toMatchObject({ enabled: true, agent: DEMO_AGENT, interval_seconds: INTERVAL_SECONDS });
    expect(Date.parse(body.generated_at)).not.toBeNaN();
    const recent = body.recent as ShowcaseEvent[];
    expect(recent.length).toBe(Math.min(50, eventsBefore + 3 * PER_ROUND));

    const posture = body.posture as Array<{ day: string; probes: number; blocked_attacks: number; attacks: number; benign_blocked: number; benign: number }>;
    expect(posture).toHaveLength(14);
    expect(posture.at(-1)!.day).toBe(gateway.clock.now().toISOString().slice(0, 10));
    expect(posture.map((day) => day.day)).toEqual([...posture.map((day) => day.day)].sort());
    const sum = (key: 'probes' | 'blocked_attacks' | 'attacks' | 'benign_blocked' | 'benign') => posture.reduce((total, day) => total + day[key], 0);
    const stopped = (event: ShowcaseEvent) => event.outcome === 'blocked' || event.outcome === 'masked';
    const attacks = recent.filter((event) => event.kind === 'attack');
    expect(sum('probes')).toBe(recent.length);
    expect(sum('attacks')).toBe(attacks.length);
    expect(sum('blocked_attacks')).toBe(attacks.filter(stopped).length);
    expect(sum('blocked_attacks')).toBeGreaterThan(0);
    expect(sum('benign')).toBe(recent.length - attacks.length);
    expect(sum('benign_blocked')).toBe(0);

    expect(body.totals).toEqual({
      probes: recent.length,
      attacks: attacks.length,
      blocked_attacks: attacks.filter(stopped).length,
      benign: recent.length - attacks.length,
      benign_blocked: 0,
      errors: 0,
      attack_block_rate: attacks.filter(stopped).length / attacks.length,
      over_block_rate: 0,
      since: recent.at(-1)!.at,
    });
  });

  it('leaves the probe texts out of the answer', () => {
    expect(raw).not.toMatch(/"text"/);
    for (const round of rounds) {
      for (const { probe, mutation } of planRound(library, round)) {
        const sent = probe.text === null ? null : mutation === null ? probe.text : mutate(probe.text, mutation, round, probe.id);
        const strings = sent !== null ? [sent] : Object.values(probe.arguments ?? {}).filter((value): value is string => typeof value === 'string');
        for (const text of strings) if (text.length >= 16) expect(raw).not.toContain(JSON.stringify(text).slice(1, 41));
      }
    }
  });

  it('keeps the newest events only', async () => {
    const gateway = ctx.gateway;
    const old = new Date(gateway.clock.now().getTime() - 30 * 86_400_000);
    const filler = Array.from({ length: KEEP_EVENTS }, (_, index) => ({
      id: `shw_filler_${String(index).padStart(5, '0')}`,
      at: new Date(old.getTime() + index * 1000).toISOString(),
      probe_id: 'benign.05',
      class: 'benign',
      kind: 'benign',
      mutation: null,
      verdict: 'allow',
      outcome: 'through',
      rules: '[]',
    }));
    await insertEvents(gateway.store.db, filler);
    const next = roundNow(gateway) + 1;
    moveTo(gateway, next);
    expect((await gateway.app.services.showcase.runRound()).ran).toBe(true);
    expect(await count(gateway, 'showcase_events')).toBe(KEEP_EVENTS);
    const oldest = await gateway.store.db.selectFrom('showcase_events').select('id').orderBy('at').orderBy('id').limit(1).executeTakeFirstOrThrow();
    // The oldest fillers went; the rounds' events (newer) stayed.
    const dropped = eventsBefore + 4 * PER_ROUND;
    expect(oldest.id).toBe(`shw_filler_${String(dropped).padStart(5, '0')}`);
    const fresh = await json(feed(gateway));
    expect(fresh.totals.probes).toBe(KEEP_EVENTS);
    // Thirty days ago is outside the posture's fourteen days.
    expect(fresh.posture.reduce((total: number, day: { probes: number }) => total + day.probes, 0)).toBe(eventsBefore + 4 * PER_ROUND);
  });

  it('limits each client address per minute with a 429 problem and Retry-After', async () => {
    const gateway = ctx.gateway;
    const first = await feed(gateway);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMIT));
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    expect(remaining).toBeLessThan(RATE_LIMIT);
    // A credential changes nothing: the limit is per address.
    for (let index = 0; index < remaining; index += 1) expect((await feed(gateway, { token: gateway.adminToken })).status).toBe(200);
    const refused = await feed(gateway);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused.json()).toMatchObject({ type: 'urn:parapet:problem:rate-limited', status: 429, title: 'Too many requests' });
    // Only this route is limited.
    expect((await gateway.request('/api/version')).status).toBe(200);
  });
});
