// The public showcase: the gateway probing its own demo agent (demo-agent.ts) on a schedule and a
// read-only feed of how that went. Each round sends a few library probes — chosen by the round
// number, some mutated, some benign — through the gateway's own pipeline as `showcase-demo`, with
// every bound pack enforcing for this agent only (`pipeline.trial` over `policies.replay(...,
// { mode: 'enforce' })`): nothing is recorded as live traffic and no live policy changes. What the
// demo agent answers to a probe that got in is checked on the way out too.
import type { Decision, GuardCall, Pipeline } from '../../engine/pipeline/decide.js';
import type { CompiledPack } from '../../engine/policy/evaluate.js';
import type { PolicyRegistry } from '../../engine/policy/registry.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { Store } from '../../infra/store/db.js';
import { readJsonStrings } from '../../infra/store/json-columns.js';
import type { ShowcaseEventRow } from '../../infra/store/tables.js';
import type { Probe, ProbeLibrary } from '../redteam/library.js';
import { MUTATIONS, mutate } from '../redteam/mutations.js';
import { DEMO_AGENT, demoAgentAnswer } from './demo-agent.js';
import type { PostureDay, ShowcaseEvent, ShowcaseFeed, ShowcaseOutcome, ShowcaseTotals, ShowcaseVerdict } from './schemas.js';
import * as showcase from './store.js';

/** Events kept; older ones are deleted after each round. */
export const KEEP_EVENTS = 1000;
/** Events the feed lists. */
export const RECENT_EVENTS = 50;
/** Days the posture covers, today included. */
export const POSTURE_DAYS = 14;
/** Probes per round: attacks (every other one mutated) and benign ones. */
export const ATTACKS_PER_ROUND = 4;
export const BENIGN_PER_ROUND = 2;
/** The first round after start comes soon rather than a whole interval later. */
const FIRST_ROUND_DELAY_MS = 10_000;
/** The feed is read at most this often from the database between rounds (it is public). */
const FEED_CACHE_MS = 5_000;
/** Rule ids kept per event. */
const MAX_RULES = 20;
const DAY_MS = 86_400_000;

export interface ShowcaseSettings {
  enabled: boolean;
  intervalSeconds: number;
}

export interface ShowcaseDeps {
  store: Store;
  clock: Clock;
  pipeline: Pipeline;
  policies: PolicyRegistry;
  library: ProbeLibrary;
  settings: ShowcaseSettings;
  onError: (error: unknown) => void;
}

export interface PlannedProbe {
  probe: Probe;
  mutation: string | null;
}

export interface RoundResult {
  round: number;
  /** False when the showcase is off or this interval's round was already run (here or by another process). */
  ran: boolean;
  events: number;
}

const OUT_OF_SCOPE_BENIGN: ReadonlySet<string> = new Set(['tool_args', 'agent_message']);

/**
 * The probes of round `round`: attacks taken in turn from every class (so consecutive rounds move
 * through the classes, and the whole library comes round), every other one mutated with a mutation
 * that also turns with the round; then benign probes in turn. Tool-call probes are not mutated (an
 * encoded command would not run).
 */
export function planRound(library: ProbeLibrary, round: number): PlannedProbe[] {
  const attacks = interleaveByClass(library.probes.filter((probe) => probe.kind === 'attack'));
  // The demo agent holds no tool grants and talks to no other agent: ordinary calls on those surfaces are not its traffic.
  const benign = library.probes.filter((probe) => probe.kind === 'benign' && !OUT_OF_SCOPE_BENIGN.has(probe.surface));
  const planned: PlannedProbe[] = [];
  for (let index = 0; index < ATTACKS_PER_ROUND && attacks.length > 0; index += 1) {
    const probe = attacks[(round * ATTACKS_PER_ROUND + index) % attacks.length]!;
    const mutable = probe.surface !== 'tool_args' && probe.text !== null;
    const mutation = mutable && index % 2 === 1 ? MUTATIONS[(round + index) % MUTATIONS.length]!.class : null;
    planned.push({ probe, mutation });
  }
  for (let index = 0; index < BENIGN_PER_ROUND && benign.length > 0; index += 1) {
    planned.push({ probe: benign[(round * BENIGN_PER_ROUND + index) % benign.length]!, mutation: null });
  }
  return planned;
}

/** direct_injection.01, indirect_injection.01, …, direct_injection.02, …: one of each class in turn. */
function interleaveByClass(probes: readonly Probe[]): Probe[] {
  const byClass = new Map<string, Probe[]>();
  for (const probe of probes) byClass.set(probe.class, [...(byClass.get(probe.class) ?? []), probe]);
  const lists = [...byClass.values()];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  const out: Probe[] = [];
  for (let index = 0; index < longest; index += 1) for (const list of lists) if (index < list.length) out.push(list[index]!);
  return out;
}

function callFor(probe: Probe, text: string | null): GuardCall {
  if (probe.surface === 'tool_args') {
    const args = probe.arguments ?? {};
    return { agent: DEMO_AGENT, surface: 'tool_args', tool: probe.tool ?? 'unknown', arguments: args, content: JSON.stringify(args) };
  }
  const content = text ?? '';
  // A spoofed message arrives unsigned: who it claims to be from is in the text.
  if (probe.surface === 'agent_message') return { agent: DEMO_AGENT, surface: 'agent_message', content, signature: 'unsigned' };
  return { agent: DEMO_AGENT, surface: probe.surface, content };
}

/** Surfaces after which the demo agent answers; a tool call or memory write that passes has simply happened. */
const ANSWERED: ReadonlySet<string> = new Set(['input', 'retrieved', 'tool_result', 'agent_message']);

const firedRules = (decision: Decision): string[] => decision.rules_fired.map((rule) => rule.rule_id);

export class ShowcaseService {
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<RoundResult> | null = null;
  private feedCache: { at: number; feed: ShowcaseFeed } | null = null;

  constructor(private readonly deps: ShowcaseDeps) {}

  get enabled(): boolean {
    return this.deps.settings.enabled;
  }

  private get intervalMs(): number {
    return this.deps.settings.intervalSeconds * 1000;
  }

  /** Starts the rounds: the first shortly after start, then one per interval. Nothing when disabled. */
  start(): void {
    if (!this.enabled || this.timers.length > 0) return;
    const tick = () => {
      this.runRound().catch(this.deps.onError);
    };
    const first = setTimeout(tick, Math.min(FIRST_ROUND_DELAY_MS, this.intervalMs));
    const every = setInterval(tick, this.intervalMs);
    first.unref();
    every.unref();
    this.timers.push(first, every);
  }

  /** Stops the timers and waits for a round in hand, so that it is written before the store closes. */
  async stop(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearTimeout(timer);
    await this.running?.catch(() => undefined);
  }

  /**
   * One probe round, numbered by the interval window the clock is in. A window gets at most one
   * round, also across gateway processes sharing the database; rounds never overlap in a process.
   */
  async runRound(): Promise<RoundResult> {
    while (this.running !== null) await this.running.catch(() => undefined);
    const running = this.round();
    this.running = running;
    try {
      return await running;
    } finally {
      this.running = null;
    }
  }

  private async round(): Promise<RoundResult> {
    const { store, clock, library } = this.deps;
    const nowMs = clock.now().getTime();
    const round = Math.floor(nowMs / this.intervalMs);
    if (!this.enabled) return { round, ran: false, events: 0 };
    const windowStart = new Date(round * this.intervalMs).toISOString();
    if (await showcase.anySince(store.db, windowStart)) return { round, ran: false, events: 0 };

    const enforced = this.deps.policies.replay({ agent: DEMO_AGENT, team: null, environment: null }, null, { mode: 'enforce' });
    const rows: ShowcaseEventRow[] = [];
    for (const planned of planRound(library, round)) {
      const { verdict, outcome, rules } = await this.probe(planned, round, enforced);
      rows.push({
        id: newId('shw'),
        at: clock.now().toISOString(),
        probe_id: planned.probe.id,
        class: planned.probe.class,
        kind: planned.probe.kind,
        mutation: planned.mutation,
        verdict,
        outcome,
        rules: JSON.stringify(rules.slice(0, MAX_RULES)),
      });
    }
    const written = await store.withLock('showcase.round', async (trx) => {
      // Another process may have run this window's round while ours was being decided.
      if (await showcase.anySince(trx, windowStart)) return false;
      await showcase.insertEvents(trx, rows);
      await showcase.keepNewest(trx, KEEP_EVENTS);
      return true;
    });
    this.feedCache = null;
    return { round, ran: written, events: written ? rows.length : 0 };
  }

  /** Sends one probe on its surface; when it gets in, the demo agent answers and the answer is checked on the way out. */
  private async probe(planned: PlannedProbe, round: number, packs: readonly CompiledPack[]): Promise<{ verdict: ShowcaseVerdict; outcome: ShowcaseOutcome; rules: string[] }> {
    const { pipeline } = this.deps;
    const { probe, mutation } = planned;
    const text = mutation === null || probe.text === null ? probe.text : mutate(probe.text, mutation, round, probe.id);
    try {
      const inbound = await pipeline.trial(callFor(probe, text), { packs });
      if (inbound.verdict !== 'allow') return { verdict: inbound.verdict, outcome: 'blocked', rules: firedRules(inbound) };
      if (!ANSWERED.has(probe.surface) || text === null) return { verdict: 'allow', outcome: 'through', rules: firedRules(inbound) };
      const answer = demoAgentAnswer(text);
      const outbound = await pipeline.trial({ agent: DEMO_AGENT, surface: 'output', content: answer.text }, { packs });
      const rules = [...new Set([...firedRules(inbound), ...firedRules(outbound)])];
      if (outbound.verdict !== 'allow') return { verdict: outbound.verdict, outcome: 'blocked', rules };
      return { verdict: 'allow', outcome: outbound.transformed_content === undefined ? 'through' : 'masked', rules };
    } catch (error) {
      this.deps.onError(error);
      return { verdict: 'none', outcome: 'error', rules: [] };
    }
  }

  /** GET /api/public/showcase. Probe texts are left out on purpose (see README). */
  async feed(): Promise<ShowcaseFeed> {
    if (!this.enabled) return { enabled: false };
    const now = this.deps.clock.now();
    if (this.feedCache !== null && now.getTime() - this.feedCache.at >= 0 && now.getTime() - this.feedCache.at < FEED_CACHE_MS) return this.feedCache.feed;
    const rows = await showcase.listEvents(this.deps.store.db, KEEP_EVENTS);
    const events = rows.map(toEvent);
    const feed: ShowcaseFeed = {
      enabled: true,
      agent: DEMO_AGENT,
      interval_seconds: this.deps.settings.intervalSeconds,
      generated_at: now.toISOString(),
      recent: events.slice(0, RECENT_EVENTS),
      posture: posture(events, now),
      totals: totals(events),
    };
    this.feedCache = { at: now.getTime(), feed };
    return feed;
  }
}

const VERDICTS: ReadonlySet<string> = new Set(['allow', 'escalate', 'block', 'none']);
const OUTCOMES: ReadonlySet<string> = new Set(['through', 'blocked', 'masked', 'error']);

function toEvent(row: ShowcaseEventRow): ShowcaseEvent {
  return {
    at: row.at,
    probe_id: row.probe_id,
    class: row.class,
    kind: row.kind === 'benign' ? 'benign' : 'attack',
    mutation: row.mutation,
    verdict: (VERDICTS.has(row.verdict) ? row.verdict : 'none') as ShowcaseVerdict,
    outcome: (OUTCOMES.has(row.outcome) ? row.outcome : 'error') as ShowcaseOutcome,
    rules: readJsonStrings(row.rules),
  };
}

/** Blocked, or its answer masked: either way what it was after did not come out whole. */
const stopped = (event: ShowcaseEvent): boolean => event.outcome === 'blocked' || event.outcome === 'masked';

function emptyDay(day: string): PostureDay {
  return { day, probes: 0, blocked_attacks: 0, attacks: 0, benign_blocked: 0, benign: 0 };
}

/** Per UTC day, the last POSTURE_DAYS days oldest first, every day listed. */
function posture(events: readonly ShowcaseEvent[], now: Date): PostureDay[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const days = Array.from({ length: POSTURE_DAYS }, (_, index) => emptyDay(new Date(today - (POSTURE_DAYS - 1 - index) * DAY_MS).toISOString().slice(0, 10)));
  const byDay = new Map(days.map((day) => [day.day, day]));
  for (const event of events) {
    const day = byDay.get(event.at.slice(0, 10));
    if (day === undefined) continue;
    day.probes += 1;
    if (event.kind === 'attack') {
      day.attacks += 1;
      if (stopped(event)) day.blocked_attacks += 1;
    } else {
      day.benign += 1;
      if (stopped(event)) day.benign_blocked += 1;
    }
  }
  return days;
}

function totals(events: readonly ShowcaseEvent[]): ShowcaseTotals {
  const attacks = events.filter((event) => event.kind === 'attack');
  const benign = events.filter((event) => event.kind === 'benign');
  const blockedAttacks = attacks.filter(stopped).length;
  const benignBlocked = benign.filter(stopped).length;
  return {
    probes: events.length,
    attacks: attacks.length,
    blocked_attacks: blockedAttacks,
    benign: benign.length,
    benign_blocked: benignBlocked,
    errors: events.filter((event) => event.outcome === 'error').length,
    attack_block_rate: attacks.length === 0 ? null : blockedAttacks / attacks.length,
    over_block_rate: benign.length === 0 ? null : benignBlocked / benign.length,
    since: events.at(-1)?.at ?? null,
  };
}
