// Escalation hand-offs with SLAs (spec 02 "Escalation"): conversational turns reported by agents
// (or recorded by the proxy), the escalation policy per agent, hand-offs to people when a condition
// holds, SLA breaches, missed escalations found over recorded turns, and the report. Turns come
// from agent traffic, so recording one takes no audit lock; every operator change (policy,
// acknowledgement, a scan that acted) is audited in its own transaction. The open enforce-mode
// hand-offs are kept in memory for the decision pipeline (`openFor`, no I/O on the hot path) and
// re-read from the database by `sweep()` so that other processes' hand-offs count too.
import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { findingType } from '../../engine/findings/catalog.js';
import { fingerprint } from '../../engine/findings/fingerprint.js';
import type { HandoffDirectory } from '../../engine/pipeline/decide.js';
import type { FindingUpsert, Recorder } from '../../engine/recording/recorder.js';
import { actorOf, hasRole, speakingAgent, type Principal } from '../../infra/auth/principal.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { JobQueue } from '../../infra/jobs/queue.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { storableText, storableValue } from '../../infra/lib/storable-text.js';
import type { Store } from '../../infra/store/db.js';
import type { ChangePublisher } from '../../infra/store/notify.js';
import { readJson, writeJson } from '../../infra/store/json-columns.js';
import type { AuditLog } from '../audit/log.js';
import { CONDITION_NAMES, DEFAULT_CONDITIONS, evaluateTurn, parseConditions, type ConditionName, type ConditionSettings, type TurnFacts } from './conditions.js';
import {
  MAX_TURN_TEXT,
  type AcknowledgeBody,
  type Conversation,
  type EscalationMode,
  type HandoffStatus,
  type HandoffsQuery,
  type HandoffView,
  type Missed,
  type PolicyView,
  type PutPolicyBody,
  type Report,
  type ScanResult,
  type SinceQuery,
  type TurnAnswer,
  type TurnBody,
} from './schemas.js';
import * as escalation from './store.js';
import type { HandoffRow, PolicyRow, TurnRow } from './store.js';

export interface EscalationServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  queue: JobQueue;
  recorder: Recorder;
  /** A turn the proxy recorded in the background could not be stored. */
  onError?: (error: unknown) => void;
  /** Announces a new hand-off to people (chat alerts where configured); must not throw. */
  announce?: (handoff: HandoffRow) => Promise<void>;
  /** Tells the other gateway processes sharing the database that the open enforce-mode hand-offs changed. */
  changes?: ChangePublisher;
}

/** The built-in default policy, used while none is stored for the agent or `*` (README "Policy"). */
export const BUILT_IN_POLICY = { owner_role: 'support', sla_minutes: 60, mode: 'observe' as EscalationMode };
const DEFAULT_AGENT = '*';
/** Earlier turns of a session (since its last hand-off) the conditions look at. */
const HISTORY_TURNS = 50;
/** What a hand-off keeps of the conversation: the last turns, each text cut. */
const CONVERSATION_TURNS = 20;
const CONVERSATION_TEXT = 2048;
/** Turns one missed/scan/report read takes (newest kept); analysis yields to the event loop every few. */
const MAX_ANALYSED_TURNS = 10_000;
const YIELD_EVERY = 100;
const MAX_ANALYSED_HANDOFFS = 20_000;
const CONVERSATION_READ = 500;
/** Hand-offs the pipeline can know of at once, and breaches raised per sweep. */
const MAX_ACTIVE = 100_000;
const BREACHES_PER_SWEEP = 500;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** A turn of a proxied chat (src/areas/proxy flow.ts `turns`), recorded in the background. */
export interface ProxiedTurn {
  session_id: string;
  agent: string;
  trace_id: string | null;
  user_text: string | null;
  agent_text: string | null;
  origin: 'proxy';
}

interface EffectivePolicy {
  agent: string;
  conditions: ConditionSettings;
  owner_role: string;
  sla_minutes: number;
  mode: EscalationMode;
  source: PolicyView['source'];
  updated_by: string | null;
  updated_at: string | null;
}

interface TurnInput {
  agent: string;
  session_id: string;
  trace_id: string | null;
  user_text: string | null;
  agent_text: string | null;
  escalated: boolean | null;
  failed: boolean | null;
  confidence: number | null;
  origin: 'api' | 'proxy';
}

/** What a hand-off's `conversation` column holds; `resolution` is set when a person closes it. */
interface StoredConversation {
  turns: Array<{ turn_id: string; at: string; user_text: string | null; agent_text: string | null }>;
  resolution: string | null;
}

/** One session of the analysed window (missed, scan, report). */
interface SessionAnalysis {
  agent: string;
  session_id: string;
  mode: EscalationMode;
  turns: number;
  qualifyingTurns: number;
  conditions: ConditionName[];
  firedTurns: Map<ConditionName, number>;
  firstQualifiedAt: string | null;
  lastTurnAt: string;
  /** A qualifying turn with no active hand-off and no escalation reported by the agent at or after it. */
  missed: boolean;
  /** A live hand-off, or a turn the agent reported escalated. */
  handedOff: boolean;
  handoffs: HandoffRow[];
}

interface Analysis {
  since: string;
  sessions: SessionAnalysis[];
  turnsRead: number;
  truncated: boolean;
}

const sessionKey = (agent: string, sessionId: string): string => `${agent}\u0000${sessionId}`;
const bool = (value: number | null): boolean | null => (value === null ? null : value === 1);
const cut = (text: string | null, max: number): string | null => (text === null ? null : text.length > max ? text.slice(0, max) : text);

export class EscalationService implements HandoffDirectory {
  /** Active live enforce-mode hand-offs by agent and session: what `openFor` answers from. */
  private active = new Map<string, { id: string; reason: string }>();
  /** Changes made while a sync reads the database, replayed onto what it read. */
  private syncing: { added: Map<string, { id: string; reason: string }>; removed: Set<string> } | null = null;

  constructor(readonly deps: EscalationServiceDeps) {}

  // ---------------------------------------------------------------------------------------------
  // The pipeline's view (hot path: memory only)

  openFor(agent: string, sessionId: string): { id: string; reason: string } | undefined {
    if (this.active.size === 0) return undefined;
    return this.active.get(sessionKey(storableText(agent), storableText(sessionId)));
  }

  /** Re-reads the active enforce-mode hand-offs (every process's) for `openFor`. */
  async sync(): Promise<void> {
    const changes = { added: new Map<string, { id: string; reason: string }>(), removed: new Set<string>() };
    this.syncing = changes;
    try {
      const rows = await escalation.activeEnforcedHandoffs(this.deps.store.db, MAX_ACTIVE);
      const next = new Map<string, { id: string; reason: string }>();
      for (const row of rows) next.set(sessionKey(row.agent, row.session_id), { id: row.id, reason: reasonText(readReasons(row.reasons)) });
      for (const key of changes.removed) next.delete(key);
      for (const [key, value] of changes.added) next.set(key, value);
      this.active = next;
    } finally {
      this.syncing = null;
    }
  }

  private remember(row: HandoffRow): void {
    if (row.mode !== 'enforce' || row.retroactive === 1 || row.status === 'closed') return;
    const key = sessionKey(row.agent, row.session_id);
    const value = { id: row.id, reason: reasonText(readReasons(row.reasons)) };
    this.active.set(key, value);
    this.syncing?.added.set(key, value);
    this.syncing?.removed.delete(key);
    this.deps.changes?.publish('escalation');
  }

  private forget(row: HandoffRow): void {
    const key = sessionKey(row.agent, row.session_id);
    if (this.active.get(key)?.id === row.id) this.active.delete(key);
    this.syncing?.added.delete(key);
    this.syncing?.removed.add(key);
    this.deps.changes?.publish('escalation');
  }

  // ---------------------------------------------------------------------------------------------
  // Turns

  /** POST /api/escalation/turns: records the turn, evaluates the policy's conditions, hands off when one holds. */
  async reportTurn(caller: Principal, body: TurnBody, header: string | undefined): Promise<TurnAnswer> {
    const agent = turnAgent(caller, body.agent, header);
    return this.ingest({
      agent,
      session_id: body.session_id,
      trace_id: body.trace_id ?? null,
      user_text: body.user_text ?? null,
      agent_text: body.agent_text ?? null,
      escalated: body.escalated ?? null,
      failed: body.failed ?? null,
      confidence: body.confidence ?? null,
      origin: 'api',
    });
  }

  /** The proxy's hook: a turn of a proxied chat with a session id, recorded without holding up the answer. */
  record(turn: ProxiedTurn): void {
    this.ingest({
      agent: turn.agent,
      session_id: turn.session_id,
      trace_id: turn.trace_id,
      user_text: cut(turn.user_text, MAX_TURN_TEXT),
      agent_text: cut(turn.agent_text, MAX_TURN_TEXT),
      escalated: null,
      failed: null,
      confidence: null,
      origin: 'proxy',
    }).catch((error: unknown) => this.deps.onError?.(error));
  }

  private async ingest(raw: TurnInput): Promise<TurnAnswer> {
    const { store, clock } = this.deps;
    const { db } = store;
    const input: TurnInput = {
      ...raw,
      agent: storableText(raw.agent),
      session_id: storableText(raw.session_id),
      trace_id: raw.trace_id === null ? null : storableText(raw.trace_id),
      user_text: raw.user_text === null ? null : storableText(raw.user_text),
      agent_text: raw.agent_text === null ? null : storableText(raw.agent_text),
    };
    const { agent, session_id: sessionId } = input;
    const at = clock.now().toISOString();
    const policy = await this.effectivePolicy(agent);
    const handoffs = await escalation.sessionHandoffs(db, agent, sessionId);
    const latest = handoffs.at(-1);
    // A hand-off starts the session's count afresh: what led to it was handed over with it.
    const history = (await escalation.recentTurns(db, agent, sessionId, latest?.created_at ?? null, HISTORY_TURNS)).reverse();
    const held = policy.conditions.held_tool_call !== undefined && input.trace_id !== null ? await escalation.pendingApprovalForTrace(db, input.trace_id, at) : false;
    const fired = await evaluateTurn(policy.conditions, turnFacts(input), history.map(rowFacts), held);
    const turnId = newId('etn');
    const turn: TurnRow = {
      id: turnId,
      session_id: sessionId,
      agent,
      trace_id: input.trace_id,
      origin: input.origin,
      user_text: input.user_text,
      agent_text: input.agent_text,
      escalated: input.escalated === null ? null : input.escalated ? 1 : 0,
      failed: input.failed === null ? null : input.failed ? 1 : 0,
      confidence: input.confidence,
      conditions: writeJson(fired.map(({ condition, detail }) => ({ condition, detail }))),
      handoff_id: null,
      at,
    };
    let active = handoffs.findLast((row) => row.status !== 'closed');
    const immediate = fired.some((item) => item.immediate === true);
    if (active === undefined && fired.length > 0 && (policy.mode === 'enforce' || immediate)) {
      // Self-harm hands off at once under any policy mode, and that hand-off is enforced.
      const conversation = (await escalation.recentTurns(db, agent, sessionId, null, CONVERSATION_TURNS - 1)).reverse();
      active = await this.createHandoff({
        agent,
        sessionId,
        reasons: fired,
        policy,
        mode: immediate ? 'enforce' : policy.mode,
        retroactive: false,
        sequence: handoffs.length,
        conversation: [...conversation, turn],
        at,
      });
    }
    turn.handoff_id = active?.id ?? null;
    await escalation.insertTurn(db, turn);
    return {
      turn_id: turnId,
      conditions: fired.map(({ condition, detail }) => ({ condition, detail })),
      handoff: active === undefined ? null : { id: active.id, status: active.status as HandoffStatus, owner_role: active.owner_role, due_at: active.due_at },
      escalate: active !== undefined && active.mode === 'enforce' && active.retroactive === 0,
    };
  }

  /**
   * Makes the session's next hand-off. Its id is derived from the agent, the session and how many
   * hand-offs the session had, so two requests racing to hand the same session off make one: the
   * second finds the id taken and answers the one that exists.
   */
  private async createHandoff(input: HandoffInput): Promise<HandoffRow | undefined> {
    const { db } = this.deps.store;
    const row = handoffRowFor(input);
    if (await escalation.insertHandoff(db, row)) {
      this.remember(row);
      await this.deps.announce?.(row);
      return row;
    }
    return (await escalation.sessionHandoffs(db, input.agent, input.sessionId)).findLast((item) => item.status !== 'closed');
  }

  // ---------------------------------------------------------------------------------------------
  // Policy

  async policy(agent: string | undefined): Promise<PolicyView> {
    return policyToWire(await this.effectivePolicy(agent === undefined ? DEFAULT_AGENT : storableText(agent)));
  }

  /** PUT /api/escalation/policy: fields left out keep the agent's effective value. */
  async putPolicy(caller: Principal, body: PutPolicyBody): Promise<PolicyView> {
    const agent = storableText(body.agent ?? DEFAULT_AGENT);
    let conditions: ConditionSettings | undefined;
    if (body.conditions !== undefined) {
      const parsed = parseConditions(storableValue(body.conditions as Record<string, unknown>));
      if (parsed.errors.length > 0) throw problem('refused', `the escalation conditions are not valid: ${parsed.errors.map((error) => `${error.field}: ${error.message}`).join('; ')}`, parsed.errors);
      conditions = parsed.settings;
    }
    const actor = actorOf(caller);
    const at = this.deps.clock.now().toISOString();
    return this.deps.audit.transact(async (trx, append) => {
      const stored = await escalation.findPolicy(trx, agent);
      const current = await this.effectivePolicy(agent, trx);
      const row: PolicyRow = {
        agent,
        conditions: writeJson(conditions ?? current.conditions),
        owner_role: body.owner_role === undefined ? current.owner_role : storableText(body.owner_role),
        sla_minutes: body.sla_minutes ?? current.sla_minutes,
        mode: body.mode ?? current.mode,
        updated_by: actor,
        updated_at: at,
      };
      await escalation.savePolicy(trx, row);
      await append({
        actor,
        action: 'escalation.policy_saved',
        target: agent,
        detail: { agent, created: stored === undefined, conditions: readJson(row.conditions, {}), owner_role: row.owner_role, sla_minutes: row.sla_minutes, mode: row.mode },
      });
      return policyToWire(policyFromRow(row, agent, agent === DEFAULT_AGENT ? 'default' : 'agent'));
    });
  }

  /** The agent's own policy, else the stored default (`*`), else the built-in one. */
  private async effectivePolicy(agent: string, db: Parameters<typeof escalation.findPolicy>[0] = this.deps.store.db): Promise<EffectivePolicy> {
    const own = await escalation.findPolicy(db, agent);
    if (own !== undefined) return policyFromRow(own, agent, agent === DEFAULT_AGENT ? 'default' : 'agent');
    const fallback = agent === DEFAULT_AGENT ? undefined : await escalation.findPolicy(db, DEFAULT_AGENT);
    if (fallback !== undefined) return policyFromRow(fallback, agent, 'default');
    return { agent, conditions: structuredClone(DEFAULT_CONDITIONS), ...BUILT_IN_POLICY, source: 'built_in', updated_by: null, updated_at: null };
  }

  // ---------------------------------------------------------------------------------------------
  // Hand-offs

  async handoffs(query: HandoffsQuery): Promise<{ items: HandoffView[] }> {
    const rows = await escalation.listHandoffs(
      this.deps.store.db,
      { ...(query.status === undefined ? {} : { status: query.status }), ...(query.agent === undefined ? {} : { agent: storableText(query.agent) }) },
      query.limit ?? 50,
    );
    const now = this.deps.clock.now().toISOString();
    return { items: rows.map((row) => handoffToWire(row, now)) };
  }

  /**
   * A person acknowledges a hand-off (open → acknowledged), or closes it with `close: true` (open
   * or acknowledged → closed). A close without a note and a resolution raises incomplete_handoff.
   */
  async acknowledge(caller: Principal, id: string, body: AcknowledgeBody): Promise<HandoffView> {
    const { audit, clock } = this.deps;
    const actor = actorOf(caller);
    const at = clock.now().toISOString();
    const close = body.close === true;
    const note = body.note === undefined ? undefined : storableText(body.note).trim();
    const resolution = body.resolution === undefined ? undefined : storableText(body.resolution).trim();
    const { row, missing } = await audit.transact(async (trx, append) => {
      const existing = await escalation.findHandoff(trx, id);
      if (existing === undefined) throw notFound('hand-off', id);
      if (existing.status === 'closed') throw problem('conflict', `hand-off ${id} is closed (${existing.closed_at ?? ''})`);
      if (existing.status === 'acknowledged' && !close) {
        throw problem('conflict', `hand-off ${id} was acknowledged by ${existing.acknowledged_by ?? 'someone'} at ${existing.acknowledged_at ?? ''}; close it with close: true`);
      }
      const conversation = readConversation(existing.conversation);
      const next: HandoffRow = {
        ...existing,
        status: close ? 'closed' : 'acknowledged',
        acknowledged_at: existing.acknowledged_at ?? at,
        acknowledged_by: existing.acknowledged_by ?? actor,
        note: note === undefined || note === '' ? existing.note : note,
        closed_at: close ? at : null,
        conversation: resolution === undefined || resolution === '' ? existing.conversation : writeJson({ ...conversation, resolution }),
      };
      const changed = await escalation.updateHandoff(trx, id, existing.status, {
        status: next.status,
        acknowledged_at: next.acknowledged_at,
        acknowledged_by: next.acknowledged_by,
        note: next.note,
        closed_at: next.closed_at,
        conversation: next.conversation,
      });
      if (!changed) throw problem('conflict', `hand-off ${id} changed meanwhile; read it again`);
      const finalResolution = readConversation(next.conversation).resolution;
      const gaps = close ? [...(next.note === null || next.note === '' ? ['note'] : []), ...(finalResolution === null || finalResolution === '' ? ['resolution'] : [])] : [];
      await append({
        actor,
        action: close ? 'escalation.handoff_closed' : 'escalation.handoff_acknowledged',
        target: id,
        detail: { handoff_id: id, agent: existing.agent, session_id: existing.session_id, from: existing.status, to: next.status, note_given: note !== undefined && note !== '', resolution_given: resolution !== undefined && resolution !== '', missing: gaps },
      });
      return { row: next, missing: gaps };
    });
    if (row.status === 'closed') this.forget(row);
    if (missing.length > 0) {
      this.raise('incomplete_handoff', row, `Hand-off ${row.id} of agent ${row.agent} was closed without ${missing.join(' and ')}`, { handoff_id: row.id, session_id: row.session_id, missing, closed_by: actor });
    }
    return handoffToWire(row, clock.now().toISOString());
  }

  /** Raises handoff_sla_breach once per hand-off past its SLA (still open past due, or acknowledged late); re-reads the active hand-offs first. */
  async sweep(): Promise<number> {
    await this.sync();
    return this.raiseBreaches();
  }

  private async raiseBreaches(): Promise<number> {
    const { db } = this.deps.store;
    const now = this.deps.clock.now().toISOString();
    let raised = 0;
    for (const row of await escalation.unreportedBreaches(db, now, BREACHES_PER_SWEEP)) {
      // Claimed first: two processes sweeping at once report a breach once.
      if (!(await escalation.claimBreach(db, row.id))) continue;
      const late = row.acknowledged_at === null ? `not acknowledged ${minutesBetween(row.due_at, now)} minutes after its SLA` : `acknowledged ${minutesBetween(row.due_at, row.acknowledged_at)} minutes late`;
      this.raise('handoff_sla_breach', row, `Hand-off ${row.id} of agent ${row.agent} ${late}`, {
        handoff_id: row.id,
        session_id: row.session_id,
        owner_role: row.owner_role,
        created_at: row.created_at,
        due_at: row.due_at,
        acknowledged_at: row.acknowledged_at,
        reasons: readReasons(row.reasons).map((reason) => reason.condition),
      });
      raised += 1;
    }
    return raised;
  }

  private raise(type: string, row: Pick<HandoffRow, 'agent' | 'session_id'>, title: string, evidence: Record<string, unknown>, parts: string[] = [String(evidence.handoff_id)]): void {
    const subject = `agent:${row.agent}`;
    const finding: FindingUpsert = {
      fingerprint: fingerprint(type, subject, parts),
      type,
      severity: findingType(type).default_severity,
      title: storableText(title.length > 300 ? `${title.slice(0, 300)}…` : title),
      subject,
      agent: row.agent,
      at: this.deps.clock.now().toISOString(),
      evidence: { ...evidence, agent: row.agent },
      decisionId: null,
    };
    this.deps.recorder.raise([finding]);
  }

  // ---------------------------------------------------------------------------------------------
  // Missed escalations, scans, the report, conversations

  async missed(query: SinceQuery): Promise<Missed> {
    const analysis = await this.analyse(query);
    const items = analysis.sessions
      .filter((session) => session.missed)
      .sort((a, b) => (a.firstQualifiedAt ?? '').localeCompare(b.firstQualifiedAt ?? '') || a.session_id.localeCompare(b.session_id))
      .map((session) => ({
        session_id: session.session_id,
        agent: session.agent,
        mode: session.mode,
        turns: session.turns,
        qualifying_turns: session.qualifyingTurns,
        conditions: session.conditions,
        first_qualified_at: session.firstQualifiedAt as string,
        last_turn_at: session.lastTurnAt,
        retroactive_handoff_id: session.handoffs.find((row) => row.retroactive === 1)?.id ?? null,
      }));
    return { since: analysis.since, items, turns_read: analysis.turnsRead, truncated: analysis.truncated };
  }

  /**
   * POST /api/escalation/scan: for each missed session that has no hand-off to take it (none active,
   * none made by a scan before), a retroactive hand-off and one missed_escalation finding; then the
   * SLA breaches. A second scan finds those hand-offs and does nothing again.
   */
  async scan(caller: Principal, query: SinceQuery): Promise<ScanResult> {
    const analysis = await this.analyse(query);
    const at = this.deps.clock.now().toISOString();
    const made: Array<{ row: HandoffRow; session: SessionAnalysis }> = [];
    const missed = analysis.sessions.filter((session) => session.missed);
    const toAct = missed.filter((session) => !session.handoffs.some((row) => row.retroactive === 1 || row.status !== 'closed'));
    if (toAct.length > 0) {
      await this.deps.audit.transact(async (trx, append) => {
        for (const session of toAct) {
          const policy = await this.effectivePolicy(session.agent, trx);
          const existing = await escalation.sessionHandoffs(trx, session.agent, session.session_id);
          if (existing.some((row) => row.retroactive === 1 || row.status !== 'closed')) continue;
          const conversation = (await escalation.recentTurns(trx, session.agent, session.session_id, null, CONVERSATION_TURNS)).reverse();
          const row = handoffRowFor({
            agent: session.agent,
            sessionId: session.session_id,
            reasons: session.conditions.map((condition) => ({ condition, detail: `qualified ${session.firedTurns.get(condition) ?? 0} turns; found by a scan` })),
            policy,
            mode: policy.mode,
            retroactive: true,
            sequence: existing.length,
            conversation,
            at,
          });
          if (await escalation.insertHandoff(trx, row)) made.push({ row, session });
        }
        if (made.length > 0) {
          await append({
            actor: actorOf(caller),
            action: 'escalation.scanned',
            target: null,
            detail: { since: analysis.since, agent: query.agent ?? null, retroactive_handoffs: made.map(({ row }) => row.id), sessions: made.map(({ row }) => ({ agent: row.agent, session_id: row.session_id })) },
          });
        }
      });
    }
    for (const { row, session } of made) {
      this.raise(
        'missed_escalation',
        row,
        `Session ${session.session_id} of agent ${session.agent} needed a person (${session.conditions.join(', ')}) and got none`,
        { session_id: session.session_id, retroactive_handoff_id: row.id, conditions: session.conditions, first_qualified_at: session.firstQualifiedAt, qualifying_turns: session.qualifyingTurns, mode: session.mode },
        [session.session_id],
      );
    }
    const breaches = await this.raiseBreaches();
    return {
      since: analysis.since,
      sessions: analysis.sessions.length,
      turns_read: analysis.turnsRead,
      truncated: analysis.truncated,
      missed: missed.length,
      retroactive_handoffs: made.map(({ row }) => row.id),
      missed_escalation_findings: made.length,
      sla_breaches: breaches,
    };
  }

  async report(query: SinceQuery): Promise<Report> {
    const analysis = await this.analyse(query);
    const now = this.deps.clock.now().toISOString();
    const made = await escalation.handoffsSince(this.deps.store.db, analysis.since, query.agent === undefined ? undefined : storableText(query.agent), MAX_ANALYSED_HANDOFFS);
    const counts = (sessions: readonly SessionAnalysis[]) => ({
      sessions: sessions.length,
      qualified: sessions.filter((session) => session.firstQualifiedAt !== null).length,
      handed_off: sessions.filter((session) => session.handedOff).length,
      missed: sessions.filter((session) => session.missed).length,
    });
    const latency = (rows: readonly HandoffRow[]) => {
      const minutes = rows
        .filter((row) => row.acknowledged_at !== null)
        .map((row) => (Date.parse(row.acknowledged_at as string) - Date.parse(row.created_at)) / MINUTE_MS)
        .sort((a, b) => a - b);
      return { acknowledged: minutes.length, p50_minutes: percentile(minutes, 0.5), p95_minutes: percentile(minutes, 0.95) };
    };
    const total = counts(analysis.sessions);
    const agents = [...new Set([...analysis.sessions.map((session) => session.agent), ...made.map((row) => row.agent)])].sort();
    const byReason = CONDITION_NAMES.map((condition) => ({
      condition,
      turns: analysis.sessions.reduce((sum, session) => sum + (session.firedTurns.get(condition) ?? 0), 0),
      sessions: analysis.sessions.filter((session) => session.conditions.includes(condition)).length,
      handoffs: made.filter((row) => readReasons(row.reasons).some((reason) => reason.condition === condition)).length,
    })).filter((entry) => entry.turns > 0 || entry.handoffs > 0);
    return {
      since: analysis.since,
      ...total,
      rates: { qualified: ratio(total.qualified, total.sessions), handed_off: ratio(total.handed_off, total.qualified), missed: ratio(total.missed, total.qualified) },
      time_to_acknowledge: latency(made),
      breaches: made.filter((row) => row.breached === 1).length,
      open_overdue: made.filter((row) => row.status === 'open' && row.due_at < now).length,
      by_agent: agents.map((agent) => {
        const mine = made.filter((row) => row.agent === agent);
        return { agent, ...counts(analysis.sessions.filter((session) => session.agent === agent)), breaches: mine.filter((row) => row.breached === 1).length, time_to_acknowledge: latency(mine) };
      }),
      by_reason: byReason,
      truncated: analysis.truncated,
    };
  }

  async conversation(sessionId: string): Promise<Conversation> {
    const { db } = this.deps.store;
    const key = storableText(sessionId);
    const [turns, handoffs] = await Promise.all([escalation.sessionTurns(db, key, CONVERSATION_READ), escalation.handoffsOfSession(db, key)]);
    if (turns.length === 0 && handoffs.length === 0) throw notFound('conversation', sessionId);
    const now = this.deps.clock.now().toISOString();
    return {
      session_id: key,
      turns: turns.reverse().map((row) => ({
        id: row.id,
        agent: row.agent,
        origin: row.origin === 'proxy' ? 'proxy' : 'api',
        trace_id: row.trace_id,
        at: row.at,
        user_text: row.user_text,
        agent_text: row.agent_text,
        escalated: bool(row.escalated),
        failed: bool(row.failed),
        confidence: row.confidence,
        conditions: readReasons(row.conditions),
        handoff_id: row.handoff_id,
      })),
      handoffs: handoffs.map((row) => handoffToWire(row, now)),
    };
  }

  /**
   * The window's turns replayed per session under each agent's policy now (the held-tool-call
   * fact as it was recorded): which sessions qualified, which were handed off, which were missed.
   * The windows of the conditions look only at turns inside the analysed period.
   */
  private async analyse(query: SinceQuery): Promise<Analysis> {
    const { db } = this.deps.store;
    const since = new Date(this.deps.clock.now().getTime() - (query.since_hours ?? 24) * HOUR_MS).toISOString();
    const agentFilter = query.agent === undefined ? undefined : storableText(query.agent);
    const newestFirst = await escalation.turnsSince(db, since, agentFilter, MAX_ANALYSED_TURNS + 1);
    const truncated = newestFirst.length > MAX_ANALYSED_TURNS;
    const turns = newestFirst.slice(0, MAX_ANALYSED_TURNS).reverse();
    const bySession = new Map<string, TurnRow[]>();
    for (const turn of turns) {
      const key = sessionKey(turn.agent, turn.session_id);
      const list = bySession.get(key);
      if (list === undefined) bySession.set(key, [turn]);
      else list.push(turn);
    }
    const handoffRows = await escalation.handoffsOfSessions(db, [...new Set(turns.map((turn) => turn.session_id))]);
    const handoffsByKey = new Map<string, HandoffRow[]>();
    for (const row of handoffRows) {
      const key = sessionKey(row.agent, row.session_id);
      handoffsByKey.set(key, [...(handoffsByKey.get(key) ?? []), row]);
    }
    const policies = new Map<string, EffectivePolicy>();
    const sessions: SessionAnalysis[] = [];
    let evaluated = 0;
    for (const [key, sessionTurns] of bySession) {
      const first = sessionTurns[0] as TurnRow;
      let policy = policies.get(first.agent);
      if (policy === undefined) {
        policy = await this.effectivePolicy(first.agent);
        policies.set(first.agent, policy);
      }
      const handoffs = (handoffsByKey.get(key) ?? []).sort((a, b) => a.created_at.localeCompare(b.created_at));
      const session: SessionAnalysis = {
        agent: first.agent,
        session_id: first.session_id,
        mode: policy.mode,
        turns: sessionTurns.length,
        qualifyingTurns: 0,
        conditions: [],
        firedTurns: new Map(),
        firstQualifiedAt: null,
        lastTurnAt: (sessionTurns.at(-1) as TurnRow).at,
        missed: false,
        handedOff: handoffs.some((row) => row.retroactive === 0) || sessionTurns.some((turn) => turn.escalated === 1),
        handoffs,
      };
      let history: TurnFacts[] = [];
      let nextHandoff = 0;
      /** Qualifying turns not covered by a hand-off, waiting for an escalation the agent reports later. */
      let uncovered = 0;
      for (const turn of sessionTurns) {
        while (nextHandoff < handoffs.length && (handoffs[nextHandoff] as HandoffRow).created_at < turn.at) {
          history = [];
          nextHandoff += 1;
        }
        if (turn.escalated === 1) uncovered = 0;
        const held = readReasons(turn.conditions).some((reason) => reason.condition === 'held_tool_call');
        const fired = await evaluateTurn(policy.conditions, rowFacts(turn), history, held);
        history.push(rowFacts(turn));
        if (history.length > HISTORY_TURNS) history.shift();
        if (++evaluated % YIELD_EVERY === 0) await yieldToLoop();
        if (fired.length === 0) continue;
        session.qualifyingTurns += 1;
        session.firstQualifiedAt ??= turn.at;
        for (const { condition } of fired) {
          if (!session.conditions.includes(condition)) session.conditions.push(condition);
          session.firedTurns.set(condition, (session.firedTurns.get(condition) ?? 0) + 1);
        }
        if (turn.handoff_id === null && turn.escalated !== 1) uncovered += 1;
      }
      session.missed = uncovered > 0;
      sessions.push(session);
    }
    return { since, sessions, turnsRead: turns.length, truncated };
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

/**
 * Who a turn is for: an agent credential speaks for its own agent, a traffic token names one (body
 * or X-Parapet-Agent); an operator token (operator or admin) names it in the body. A viewer only reads.
 */
function turnAgent(caller: Principal, named: string | undefined, header: string | undefined): string {
  if (caller.kind === 'agent' || caller.kind === 'traffic') return speakingAgent(caller, { ...(named === undefined ? {} : { body: named }), ...(header === undefined ? {} : { header }) });
  if (!hasRole(caller, 'operator')) throw problem('forbidden', 'a viewer token reads escalation; a turn is reported with an agent credential, a traffic token or an operator token');
  const agent = named ?? header;
  if (agent === undefined) throw problem('invalid-request', 'name the agent of the turn in the body field agent');
  return agent;
}

function turnFacts(input: TurnInput): TurnFacts {
  return { user_text: input.user_text, agent_text: input.agent_text, failed: input.failed, confidence: input.confidence };
}

function rowFacts(row: TurnRow): TurnFacts {
  return { user_text: row.user_text, agent_text: row.agent_text, failed: bool(row.failed), confidence: row.confidence };
}

function handoffId(agent: string, sessionId: string, sequence: number): string {
  return `ho_${createHash('sha256').update(`${agent}\u0000${sessionId}\u0000${sequence}`).digest('hex').slice(0, 26)}`;
}

/** What a new hand-off is made of. */
interface HandoffInput {
  agent: string;
  sessionId: string;
  reasons: ReadonlyArray<{ condition: ConditionName; detail: string }>;
  policy: EffectivePolicy;
  mode: EscalationMode;
  retroactive: boolean;
  /** How many hand-offs the session had before: part of the id. */
  sequence: number;
  conversation: ReadonlyArray<Pick<TurnRow, 'id' | 'at' | 'user_text' | 'agent_text'>>;
  at: string;
}

/**
 * A new open hand-off. Its id is derived from the agent, the session and how many hand-offs the
 * session had, so two requests racing to hand the same session off make one: the second finds the
 * id taken and answers the one that exists.
 */
function handoffRowFor(input: HandoffInput): HandoffRow {
  const stored: StoredConversation = {
    turns: input.conversation.slice(-CONVERSATION_TURNS).map((item) => ({ turn_id: item.id, at: item.at, user_text: cut(item.user_text, CONVERSATION_TEXT), agent_text: cut(item.agent_text, CONVERSATION_TEXT) })),
    resolution: null,
  };
  return {
    id: handoffId(input.agent, input.sessionId, input.sequence),
    session_id: input.sessionId,
    agent: input.agent,
    status: 'open',
    reasons: writeJson(input.reasons.map(({ condition, detail }) => ({ condition, detail }))),
    owner_role: input.policy.owner_role,
    mode: input.mode,
    retroactive: input.retroactive ? 1 : 0,
    conversation: writeJson(stored),
    created_at: input.at,
    due_at: new Date(Date.parse(input.at) + input.policy.sla_minutes * MINUTE_MS).toISOString(),
    acknowledged_at: null,
    acknowledged_by: null,
    note: null,
    closed_at: null,
    breached: 0,
  };
}

function readReasons(text: string): Array<{ condition: ConditionName; detail: string }> {
  const value = readJson<unknown>(text, []);
  if (!Array.isArray(value)) return [];
  return value.filter(
    (item): item is { condition: ConditionName; detail: string } =>
      item !== null && typeof item === 'object' && (CONDITION_NAMES as readonly string[]).includes((item as { condition?: unknown }).condition as string) && typeof (item as { detail?: unknown }).detail === 'string',
  ).map(({ condition, detail }) => ({ condition, detail }));
}

function readConversation(text: string): StoredConversation {
  const value = readJson<Partial<StoredConversation> | null>(text, null);
  return { turns: Array.isArray(value?.turns) ? value.turns : [], resolution: typeof value?.resolution === 'string' ? value.resolution : null };
}

/** The reason the pipeline gives: condition names only, since details may quote the conversation and traces keep reasons. */
function reasonText(reasons: ReadonlyArray<{ condition: string }>): string {
  return [...new Set(reasons.map((reason) => reason.condition))].join(', ');
}

function policyFromRow(row: PolicyRow, agent: string, source: PolicyView['source']): EffectivePolicy {
  // Stored conditions were checked when saved; read again through the same check so that a
  // hand-edited row cannot break evaluation (what does not parse is left out).
  const { settings } = parseConditions(readJson<Record<string, unknown>>(row.conditions, {}) ?? {});
  return {
    agent,
    conditions: settings,
    owner_role: row.owner_role,
    sla_minutes: row.sla_minutes,
    mode: row.mode === 'enforce' ? 'enforce' : 'observe',
    source,
    updated_by: row.updated_by,
    updated_at: row.updated_at,
  };
}

function policyToWire(policy: EffectivePolicy): PolicyView {
  return {
    agent: policy.agent,
    conditions: policy.conditions as Record<string, unknown>,
    owner_role: policy.owner_role,
    sla_minutes: policy.sla_minutes,
    mode: policy.mode,
    source: policy.source,
    updated_by: policy.updated_by,
    updated_at: policy.updated_at,
  };
}

function handoffToWire(row: HandoffRow, now: string): HandoffView {
  const conversation = readConversation(row.conversation);
  return {
    id: row.id,
    session_id: row.session_id,
    agent: row.agent,
    status: row.status as HandoffStatus,
    reasons: readReasons(row.reasons),
    owner_role: row.owner_role,
    mode: row.mode === 'enforce' ? 'enforce' : 'observe',
    retroactive: row.retroactive === 1,
    conversation: conversation.turns,
    created_at: row.created_at,
    due_at: row.due_at,
    overdue: row.status === 'open' && row.due_at < now,
    acknowledged_at: row.acknowledged_at,
    acknowledged_by: row.acknowledged_by,
    note: row.note,
    resolution: conversation.resolution,
    closed_at: row.closed_at,
    breached: row.breached === 1,
  };
}

function minutesBetween(from: string, to: string): number {
  return Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / MINUTE_MS));
}

/** Nearest-rank percentile of sorted values, in minutes to one decimal. */
function percentile(sorted: readonly number[], share: number): number | null {
  if (sorted.length === 0) return null;
  const value = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))] as number;
  return Math.round(value * 10) / 10;
}

function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 1000) / 1000;
}
