// The public sandbox: each session is its own gateway core (sandbox.ts) with the demo agent, its
// tools and the shipped packs (baseline in observe), so a visitor can attack the agent, watch the
// gateway decide and flip observe/enforce, and nothing reaches the tenant's store, real agents or a
// paid model. Sessions live in this process's memory: a cap on live sessions, a TTL (swept by a
// timer, and an expired session is gone on access too), a cap on calls per session. Calls within a
// session run one at a time, so its taint memory and audit chain follow the order they came in.
import { randomBytes } from 'node:crypto';
import type { Decision, GuardCall } from '../../engine/pipeline/decide.js';
import { actorOf } from '../../infra/auth/principal.js';
import type { Config } from '../../infra/config/schema.js';
import { Problem, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { storableText, storableValue } from '../../infra/lib/storable-text.js';
import { DEMO_AGENT, demoAgentAnswer } from './demo-agent.js';
import { BASELINE_PACK, DEMO_TOOLS, provisionSandbox, SANDBOX_OPERATOR, type OpenSandbox, type SandboxCore } from './sandbox.js';
import {
  MAX_ARGUMENTS_BYTES,
  MAX_DOCUMENT_CHARS,
  MAX_MESSAGE_CHARS,
  type ChatBody,
  type ChatReply,
  type PlaygroundMode,
  type PostureSummary,
  type Session,
  type State,
  type ToolCallBody,
  type ToolCallReply,
} from './schemas.js';

/** Decisions the state lists. */
export const STATE_TRACES = 50;
/** The sandbox's control computation is run again at most this often (it walks its whole database). */
const POSTURE_REFRESH_MS = 30_000;
/** How often expired sessions are looked for; an expired session is also refused on access. */
const SWEEP_MS = 60_000;
/** What the sandbox upstream is asked with (playground_upstream); the answer is capped too. */
const UPSTREAM_MODEL = 'gpt-4o-mini';
const UPSTREAM_MAX_TOKENS = 400;
const SECONDS_PER_MINUTE = 60;

export interface PlaygroundServiceDeps {
  config: Config;
  clock: Clock;
  /** Opens a new sandbox core (buildSandboxCore in the composition root). */
  openSandbox: OpenSandbox;
  /** Where failures of background work (closing an expired sandbox) are reported. */
  onError?: (error: unknown) => void;
}

interface LiveSession {
  id: string;
  core: SandboxCore;
  expiresAtMs: number;
  calls: number;
  mode: PlaygroundMode;
  /**
   * The conversation id the sandbox pipeline sees (session taint, drift): random and separate from
   * the public session id, so that id is stored nowhere, not even in the sandbox.
   */
  conversation: string;
  /** The call in hand: the next one waits for it. */
  queue: Promise<unknown>;
  posture: { atMs: number; summary: PostureSummary } | null;
}

export class PlaygroundService {
  private readonly sessions = new Map<string, LiveSession>();
  /** Sandboxes being opened: they count against the cap before they exist. */
  private opening = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Sandboxes being closed (expired or at shutdown); close() waits for them. */
  private readonly closing = new Set<Promise<void>>();

  constructor(readonly deps: PlaygroundServiceDeps) {}

  private get config(): Config {
    return this.deps.config;
  }

  /** Live sessions (for tests and health): those not yet swept. */
  get liveSessions(): number {
    return this.sessions.size;
  }

  /** Starts the sweep of expired sessions. */
  start(): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.deps.onError?.(error));
    }, SWEEP_MS);
    this.timer.unref();
  }

  /** Stops the sweep and closes every sandbox; no session is created afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.timer = undefined;
    for (const session of [...this.sessions.values()]) this.retire(session);
    while (this.closing.size > 0) await Promise.all([...this.closing]);
  }

  /** Closes the sandboxes whose TTL has passed; answers how many. */
  async sweep(): Promise<number> {
    const expired = this.expire();
    while (this.closing.size > 0) await Promise.all([...this.closing]);
    return expired;
  }

  /** Forgets the expired sessions at once; their sandboxes close in the background. */
  private expire(): number {
    const now = this.deps.clock.now().getTime();
    const expired = [...this.sessions.values()].filter((session) => session.expiresAtMs <= now);
    for (const session of expired) this.retire(session);
    return expired.length;
  }

  /** POST /api/playground/sessions. */
  async create(): Promise<Session> {
    this.refuseWhenOff();
    const ttlMs = this.config.playground_session_ttl_minutes * SECONDS_PER_MINUTE * 1000;
    // Expired sessions free their place at once rather than at the next sweep.
    this.expire();
    const cap = this.config.playground_max_sessions;
    if (this.sessions.size + this.opening >= cap) {
      const soonest = Math.min(...[...this.sessions.values()].map((session) => session.expiresAtMs), this.deps.clock.now().getTime() + ttlMs);
      const seconds = Math.max(1, Math.ceil((soonest - this.deps.clock.now().getTime()) / 1000));
      throw new Problem('unavailable', `the playground is full: at most ${cap} live sandbox sessions (playground_max_sessions); one expires within ${seconds} s`, undefined, {
        'retry-after': String(seconds),
      });
    }
    this.opening += 1;
    const opened = this.open();
    // Shutdown waits for a sandbox being opened: it is closed as soon as it exists.
    const settled = opened.then(async (core) => {
      if (this.closed) await core.close();
    });
    const tracked = settled.catch(() => undefined).finally(() => this.closing.delete(tracked));
    this.closing.add(tracked);
    let core: SandboxCore;
    try {
      core = await opened;
      await settled;
    } catch (error) {
      this.deps.onError?.(error);
      throw problem('unavailable', 'a sandbox could not be opened; try again later');
    } finally {
      this.opening -= 1;
    }
    if (this.closed) throw problem('unavailable', 'the gateway is shutting down');
    const session: LiveSession = {
      id: randomBytes(16).toString('base64url'),
      core,
      expiresAtMs: this.deps.clock.now().getTime() + ttlMs,
      calls: 0,
      mode: 'observe',
      conversation: randomBytes(16).toString('hex'),
      queue: Promise.resolve(),
      posture: null,
    };
    this.sessions.set(session.id, session);
    return {
      session_id: session.id,
      expires_at: new Date(session.expiresAtMs).toISOString(),
      agent: DEMO_AGENT,
      tools: DEMO_TOOLS.map((tool) => ({ key: tool.key, description: tool.description, impact: tool.impact, granted: tool.grant !== null })),
      mode: session.mode,
      limits: this.limits(session),
    };
  }

  /** A new sandbox with the demo agent, its tools and grants; closed again if provisioning fails. */
  private async open(): Promise<SandboxCore> {
    const core = await this.deps.openSandbox();
    try {
      await provisionSandbox(core);
    } catch (error) {
      await core.close().catch(() => undefined);
      throw error;
    }
    return core;
  }

  /** POST .../{id}/chat: the message (and document) through the sandbox pipeline, the demo agent's answer checked on the way out. */
  async chat(id: string, body: ChatBody): Promise<ChatReply> {
    requireAgent(body.agent);
    return this.withSession(id, { counts: true }, async (session) => {
      const { core, conversation } = session;
      const base = { agent: DEMO_AGENT, sessionId: conversation };
      const input = await decide(core, { ...base, surface: 'input', content: body.message });
      const retrieved = body.document === undefined || body.document === '' ? undefined : await decide(core, { ...base, surface: 'retrieved', content: body.document, taintSource: 'document' });
      const stoppedAt = input.verdict !== 'allow' ? 'input' : retrieved !== undefined && retrieved.verdict !== 'allow' ? 'retrieved' : null;
      if (stoppedAt !== null) {
        // Blocked on the way in: the agent never sees it.
        return { answer: null, blocked: true, blocked_at: stoppedAt, answered_by: 'none', decisions: { input, ...(retrieved === undefined ? {} : { retrieved }) } };
      }
      // The agent reads what the gateway let through: tokenized personal data stays tokenized.
      const message = input.transformed_content ?? body.message;
      const document = retrieved === undefined ? undefined : (retrieved.transformed_content ?? body.document);
      const { text, by } = this.config.playground_upstream ? await this.askUpstream(session, message, document) : { text: demoAgentAnswer(message, document).text, by: 'demo-agent' as const };
      const output = await decide(core, { ...base, surface: 'output', content: text });
      const decisions = { input, ...(retrieved === undefined ? {} : { retrieved }), output };
      if (output.verdict !== 'allow') return { answer: null, blocked: true, blocked_at: 'output', answered_by: by, decisions };
      return { answer: output.transformed_content ?? text, blocked: false, blocked_at: null, answered_by: by, decisions };
    });
  }

  /** POST .../{id}/tool-call: the Decision of the sandbox pipeline on tool_args (grants, taint, action analysis). */
  async toolCall(id: string, body: ToolCallBody): Promise<ToolCallReply> {
    // Refused before the session is looked at: a bad call costs the session nothing.
    requireAgent(body.agent);
    const args = body.arguments ?? {};
    const content = JSON.stringify(args);
    if (Buffer.byteLength(content, 'utf8') > MAX_ARGUMENTS_BYTES) {
      throw problem('invalid-request', `arguments are larger than ${MAX_ARGUMENTS_BYTES} bytes as JSON`, [{ field: '/body/arguments', message: `at most ${MAX_ARGUMENTS_BYTES} bytes` }]);
    }
    return this.withSession(id, { counts: true }, async (session) => {
      const decision = await decide(session.core, {
        agent: DEMO_AGENT,
        surface: 'tool_args',
        tool: body.tool,
        arguments: args,
        content,
        sessionId: session.conversation,
        ...(body.provenance === undefined ? {} : { provenance: body.provenance }),
        ...(body.intent === undefined ? {} : { intent: body.intent }),
      });
      return { allowed: decision.verdict === 'allow', decision };
    });
  }

  /** POST .../{id}/enforce: the baseline pack's mode in this sandbox only. */
  async enforce(id: string, mode: PlaygroundMode): Promise<{ mode: PlaygroundMode; pack: string }> {
    return this.withSession(id, { counts: false }, async (session) => {
      if (session.mode !== mode) {
        await session.core.policies.setMode(SANDBOX_OPERATOR, BASELINE_PACK, { mode });
        session.mode = mode;
      }
      return { mode: session.mode, pack: BASELINE_PACK };
    });
  }

  /** GET .../{id}/state: the sandbox's newest decisions, its audit-chain self-check and its compliance posture. */
  async state(id: string): Promise<State> {
    return this.withSession(id, { counts: false }, async (session) => {
      const { core } = session;
      // Decisions are written in the background: the state shows every call answered so far.
      await core.recorder.flush();
      const traces = await core.traces.list({ limit: STATE_TRACES });
      const posture = await this.posture(session);
      const audit = await core.auditService.verify({});
      return {
        session_id: session.id,
        expires_at: new Date(session.expiresAtMs).toISOString(),
        mode: session.mode,
        limits: this.limits(session),
        traces: traces.items.map((trace) => ({
          id: trace.id,
          at: trace.at,
          surface: trace.surface,
          tool: trace.tool,
          verdict: trace.verdict,
          effective_verdict: trace.effective_verdict,
          mode: trace.mode,
          rules: trace.rules.map((rule) => rule.rule_id),
        })),
        audit: { ok: audit.ok, checked: audit.checked, first_bad: audit.first_bad },
        posture,
      };
    });
  }

  /** The controls computed in the sandbox (at most every POSTURE_REFRESH_MS) and rolled up per framework. */
  private async posture(session: LiveSession): Promise<PostureSummary> {
    const now = this.deps.clock.now().getTime();
    if (session.posture !== null && now - session.posture.atMs >= 0 && now - session.posture.atMs < POSTURE_REFRESH_MS) return session.posture.summary;
    await session.core.compliance.compute(actorOf(SANDBOX_OPERATOR));
    const status = await session.core.compliance.status();
    const summary: PostureSummary = {
      computed_at: status.computed_at,
      frameworks: status.frameworks.map(({ key, title, clauses, covered, failing, not_evidenced, pass_rate }) => ({ key, title, clauses, covered, failing, not_evidenced, pass_rate })),
    };
    session.posture = { atMs: now, summary };
    return summary;
  }

  /** playground_upstream: the sandbox proxy's configured upstream answers (no tools), through its own governed flow. */
  private async askUpstream(session: LiveSession, message: string, document: string | undefined): Promise<{ text: string; by: 'upstream' }> {
    const messages = [
      { role: 'system', content: 'You are a helpful travel-booking assistant in a public demo. Keep answers short.' },
      ...(document === undefined ? [] : [{ role: 'user', content: `Reference document:\n${document}` }]),
      { role: 'user', content: message },
    ];
    const { status, answer } = await session.core.proxy.complete({
      agent: DEMO_AGENT,
      body: { model: UPSTREAM_MODEL, messages, max_tokens: UPSTREAM_MAX_TOKENS },
      traceId: session.conversation,
    });
    const choices = (answer as { choices?: Array<{ message?: { content?: unknown } }> }).choices;
    const content = choices?.[0]?.message?.content;
    if (status !== 200 || typeof content !== 'string') throw problem('bad-gateway', `the configured upstream did not answer (status ${status})`);
    return { text: content.slice(0, MAX_DOCUMENT_CHARS), by: 'upstream' };
  }

  private limits(session: LiveSession): State['limits'] {
    return {
      max_calls: this.config.playground_max_calls_per_session,
      calls_used: session.calls,
      ttl_minutes: this.config.playground_session_ttl_minutes,
      max_message_chars: MAX_MESSAGE_CHARS,
      max_document_chars: MAX_DOCUMENT_CHARS,
      max_arguments_bytes: MAX_ARGUMENTS_BYTES,
    };
  }

  private refuseWhenOff(): void {
    if (!this.config.playground_enabled) throw problem('unavailable', 'the public playground is not enabled on this gateway (playground_enabled)');
    if (this.closed) throw problem('unavailable', 'the gateway is shutting down');
  }

  /**
   * Runs `work` on a live session after the call in hand; an unknown or expired session is 404 (an
   * expired one is closed on the spot). A counted call over the session's cap is 429.
   */
  private async withSession<T>(id: string, options: { counts: boolean }, work: (session: LiveSession) => Promise<T>): Promise<T> {
    this.refuseWhenOff();
    const session = this.live(id);
    if (options.counts) {
      const cap = this.config.playground_max_calls_per_session;
      if (session.calls >= cap) {
        const seconds = Math.max(1, Math.ceil((session.expiresAtMs - this.deps.clock.now().getTime()) / 1000));
        throw new Problem('rate-limited', `this sandbox session has made its ${cap} chat and tool calls (playground_max_calls_per_session); start a new session`, undefined, {
          'retry-after': String(seconds),
        });
      }
      session.calls += 1;
    }
    const run = session.queue.then(async () => {
      // It may have expired or been closed while it waited.
      if (this.sessions.get(id) !== session) throw unknownSession();
      return work(session);
    });
    session.queue = run.catch(() => undefined);
    return run;
  }

  private live(id: string): LiveSession {
    const session = this.sessions.get(id);
    if (session === undefined) throw unknownSession();
    if (session.expiresAtMs <= this.deps.clock.now().getTime()) {
      this.retire(session);
      throw unknownSession();
    }
    return session;
  }

  /** Forgets the session at once and closes its sandbox after the call in hand. */
  private retire(session: LiveSession): void {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    const closing = session.queue
      .then(() => session.core.close())
      .catch((error: unknown) => this.deps.onError?.(error))
      .finally(() => this.closing.delete(closing));
    this.closing.add(closing);
  }
}

/** A sandbox has one agent; another name is refused before the session is looked at. */
function requireAgent(agent: string | undefined): void {
  if (agent !== undefined && agent !== DEMO_AGENT) {
    throw problem('unknown-id', `no agent ${storableText(agent).slice(0, 200)} in this sandbox: its agent is ${DEMO_AGENT}`);
  }
}

/** Unknown and expired sessions answer alike: nothing tells which ids ever existed. */
const unknownSession = (): Problem => problem('unknown-id', 'no live playground session with this id (unknown or expired)');

/** One decision of the sandbox pipeline, recorded in the sandbox; stored text made storable first. */
async function decide(core: SandboxCore, call: GuardCall): Promise<Decision> {
  const { arguments: args, provenance, ...rest } = call;
  const storable: GuardCall = {
    ...rest,
    ...(args === undefined ? {} : { arguments: storableValue(args) }),
    ...(provenance === undefined ? {} : { provenance: storableValue(provenance) }),
  };
  return (await core.pipeline.decideAndRecord(storable)).decision;
}
