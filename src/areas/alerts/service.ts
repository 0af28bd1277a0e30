// Chat alerts (spec 01 §6: "monitor alerts go to a tenant's chat-tool incoming webhook"): one channel,
// its incoming-webhook URL sealed at once (it is a secret: whoever holds it can post to the
// channel) and only ever shown masked; new findings at or above the channel's minimum severity, and
// every monitor change and missed escalation, posted once per finding fingerprint through the job
// queue (alerts.chat), which retries with back-off.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { outboundRequest, OutboundRefused, outboundUrlProblem, type OutboundPolicy } from '../../infra/http/outbound.js';
import { problem } from '../../infra/http/problems.js';
import type { JobQueue } from '../../infra/jobs/queue.js';
import { describeError, PermanentJobError, type JobHandler } from '../../infra/jobs/worker.js';
import type { Clock } from '../../infra/lib/clock.js';
import { SealedSecretError, type Sealer } from '../../infra/lib/sealed.js';
import type { Store } from '../../infra/store/db.js';
import { SEVERITY_RANK, type Severity } from '../../engine/findings/catalog.js';
import type { AuditLog } from '../audit/log.js';
import { findingMessage, maskUrl, noticeMessage, testMessage, withoutUrl, type ChatMessage, type Notice } from './payload.js';
import { DEFAULT_MIN_SEVERITY, type ChatChannelView, type DeletedChannel, type PutChatChannelBody, type TestSent } from './schemas.js';
import * as alerts from './store.js';

export const CHAT_ALERT_JOB = 'alerts.chat';
/** Finding types announced whatever their severity: a monitored target changed, a person was not involved. */
export const ALWAYS_ANNOUNCED = ['monitor_change', 'stale_source', 'schema_drift', 'missed_escalation', 'handoff_sla_breach'] as const;
/** Findings queued per sweep at most. */
export const SWEEP_BATCH = 200;
/** A finding first seen longer ago than this is not new any more: a channel configured today does not replay last month. */
export const NEW_FINDING_WINDOW_MS = 24 * 3_600_000;
export const CHAT_ALERT_MAX_ATTEMPTS = 6;
const POST_TIMEOUT_MS = 10_000;
/** What is read of the webhook's answer at most: only its status matters. */
const ANSWER_MAX_BYTES = 65_536;

export interface ChatAlertServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  queue: JobQueue;
  sealer: Sealer;
  outbound: OutboundPolicy;
}

/** The webhook did not take the test message: answered as a 502 by the route, with why. */
export class ChatPostFailed extends Error {
  override readonly name = 'ChatPostFailed';
}

type PostOutcome = { ok: true; status: number } | { ok: false; status: number | null; retryable: boolean; reason: string };

export class ChatAlertService {
  constructor(readonly deps: ChatAlertServiceDeps) {}

  async get(): Promise<ChatChannelView> {
    const row = await alerts.findChannel(this.deps.store.db);
    return row === undefined ? { configured: false } : channelToWire(row);
  }

  /** Creates or replaces the channel; the URL is judged by the outbound policy and sealed before anything else sees it. */
  async put(caller: Principal, body: PutChatChannelBody): Promise<ChatChannelView> {
    const { audit, clock, sealer, outbound } = this.deps;
    const why = outboundUrlProblem(body.url, outbound);
    if (why !== null) throw problem('refused', `the webhook URL is refused: ${why}`, [{ field: '/body/url', message: why }]);
    // The parsed form is ASCII (punycode, percent-escapes): nothing in it needs making storable.
    const url = new URL(body.url).href;
    const row: alerts.ChannelRow = {
      id: alerts.CHANNEL_ID,
      url_sealed: sealer.seal(url),
      url_masked: maskUrl(url),
      min_severity: body.min_severity ?? DEFAULT_MIN_SEVERITY,
      updated_by: actorOf(caller),
      updated_at: clock.now().toISOString(),
    };
    await audit.transact(async (trx, append) => {
      const replaced = (await alerts.findChannel(trx)) !== undefined;
      await alerts.saveChannel(trx, row);
      await append({ actor: row.updated_by, action: 'alerts.chat_configured', target: 'chat', detail: { url_masked: row.url_masked, min_severity: row.min_severity, replaced } });
    });
    return channelToWire(row);
  }

  async remove(caller: Principal): Promise<DeletedChannel> {
    return this.deps.audit.transact(async (trx, append) => {
      const row = await alerts.findChannel(trx);
      if (row === undefined || !(await alerts.deleteChannel(trx))) throw problem('unknown-id', 'no chat alert channel is configured');
      await append({ actor: actorOf(caller), action: 'alerts.chat_removed', target: 'chat', detail: { url_masked: row.url_masked } });
      return { deleted: true as const, url_masked: row.url_masked };
    });
  }

  /** Posts a test message now (not through the queue); throws ChatPostFailed when the webhook does not take it. */
  async test(caller: Principal): Promise<TestSent> {
    const { store, audit, clock } = this.deps;
    const row = await alerts.findChannel(store.db);
    if (row === undefined) throw problem('conflict', 'no chat alert channel is configured: PUT /api/alerts/chat first');
    const actor = actorOf(caller);
    const message = testMessage({ sentBy: actor, at: clock.now().toISOString(), minSeverity: row.min_severity });
    const outcome = await this.post(this.unsealUrl(row, (why) => problem('conflict', why)), message);
    await audit.append({
      actor,
      action: 'alerts.chat_tested',
      target: 'chat',
      detail: { url_masked: row.url_masked, sent: outcome.ok, status: outcome.status, ...(outcome.ok ? {} : { reason: outcome.reason }) },
    });
    if (!outcome.ok) throw new ChatPostFailed(`the chat webhook did not take the test message: ${outcome.reason}`);
    return { sent: true, status: outcome.status };
  }

  /**
   * Queues an alert (job alerts.chat) for each new open finding at or above the channel's minimum
   * severity or of a type always announced, first seen since the channel was configured and within
   * the last day. A fingerprint is claimed in chat_alerts_sent in the same transaction as its job,
   * so whichever process claims it queues the only alert. Answers how many were queued.
   */
  async sweep(): Promise<number> {
    const { store, clock, queue } = this.deps;
    const channel = await alerts.findChannel(store.db);
    if (channel === undefined) return 0;
    const now = clock.now();
    const windowStart = new Date(now.getTime() - NEW_FINDING_WINDOW_MS).toISOString();
    const since = channel.updated_at > windowStart ? channel.updated_at : windowStart;
    const minRank = SEVERITY_RANK[channel.min_severity as Severity] ?? SEVERITY_RANK[DEFAULT_MIN_SEVERITY];
    const found = await alerts.unalertedFindings(store.db, { since, minRank, alwaysTypes: ALWAYS_ANNOUNCED, limit: SWEEP_BATCH });
    const at = now.toISOString();
    let queued = 0;
    for (const finding of found) {
      const claimed = await store.db.transaction().execute(async (trx) => {
        if (!(await alerts.claimAlert(trx, { fingerprint: finding.fingerprint, finding_id: finding.id, kind: 'finding', created_at: at }))) return false;
        const job = await queue.enqueue(CHAT_ALERT_JOB, { fingerprint: finding.fingerprint, finding_id: finding.id }, { maxAttempts: CHAT_ALERT_MAX_ATTEMPTS, createdBy: 'system' }, trx);
        await alerts.setAlertJob(trx, finding.fingerprint, job.id);
        return true;
      });
      if (claimed) queued += 1;
    }
    return queued;
  }

  /**
   * Queues the announcement of something that is not a finding (a hand-off to a person), once per
   * key across every process; nothing when no channel is configured. Answers whether it was queued.
   */
  async announce(key: string, notice: Notice): Promise<boolean> {
    const { store, clock, queue } = this.deps;
    if ((await alerts.findChannel(store.db)) === undefined) return false;
    const fingerprint = `notice:${key}`;
    return store.db.transaction().execute(async (trx) => {
      if (!(await alerts.claimAlert(trx, { fingerprint, finding_id: null, kind: 'notice', created_at: clock.now().toISOString() }))) return false;
      const job = await queue.enqueue(CHAT_ALERT_JOB, { fingerprint, notice }, { maxAttempts: CHAT_ALERT_MAX_ATTEMPTS, createdBy: 'system' }, trx);
      await alerts.setAlertJob(trx, fingerprint, job.id);
      return true;
    });
  }

  jobHandlers(): Record<string, JobHandler> {
    return { [CHAT_ALERT_JOB]: this.handleJob };
  }

  /**
   * Posts one finding's alert. 2xx: done. 429, 5xx, a timeout or a connection failure: thrown, so
   * the queue retries with back-off. Any other answer, or a URL the policy now refuses: permanent
   * (dead-lettered; retrying cannot change it).
   */
  readonly handleJob: JobHandler = async ({ payload, signal }) => {
    const { store } = this.deps;
    const fingerprint = typeof payload.fingerprint === 'string' ? payload.fingerprint : '';
    const findingId = typeof payload.finding_id === 'string' ? payload.finding_id : '';
    const channel = await alerts.findChannel(store.db);
    if (channel === undefined) return { skipped: 'no chat alert channel is configured', fingerprint };
    const notice = readNotice(payload.notice);
    if (notice !== null) return this.deliver(channel, noticeMessage(notice), { fingerprint }, signal);
    const finding = await alerts.findFinding(store.db, findingId, fingerprint);
    if (finding === undefined) return { skipped: 'the finding no longer exists', fingerprint };
    // Suppressed before its alert went out: somebody already decided it is not worth attention.
    if (finding.status === 'suppressed') return { skipped: 'the finding was suppressed', fingerprint, finding_id: finding.id };
    return this.deliver(channel, findingMessage({ ...finding, occurrences: Number(finding.occurrences) }), { finding_id: finding.id, fingerprint }, signal);
  };

  private async deliver(channel: alerts.ChannelRow, message: ChatMessage, result: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const url = this.unsealUrl(channel, (why) => new PermanentJobError(why));
    const outcome = await this.post(url, message, signal);
    if (outcome.ok) return { posted: true, status: outcome.status, ...result };
    if (outcome.retryable) throw new Error(outcome.reason);
    throw new PermanentJobError(outcome.reason);
  }

  /** The channel's URL in the clear, for the call only; a URL sealed under another secret_key is the caller's error. */
  private unsealUrl(channel: alerts.ChannelRow, fail: (why: string) => Error): string {
    try {
      return this.deps.sealer.unseal(channel.url_sealed);
    } catch (error) {
      if (!(error instanceof SealedSecretError)) throw error;
      throw fail(`the stored webhook URL cannot be read (${error.message}): PUT /api/alerts/chat again`);
    }
  }

  /** One POST of a message; every failure is an outcome whose reason never holds the URL. */
  private async post(url: string, message: ChatMessage, signal?: AbortSignal): Promise<PostOutcome> {
    try {
      const answer = await outboundRequest(url, this.deps.outbound, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message),
        timeoutMs: POST_TIMEOUT_MS,
        maxBytes: ANSWER_MAX_BYTES,
        ...(signal === undefined ? {} : { signal }),
      });
      const { status } = answer;
      if (status >= 200 && status < 300) return { ok: true, status };
      const retryable = status === 429 || status >= 500;
      return { ok: false, status, retryable, reason: `the chat webhook answered HTTP ${status}` };
    } catch (error) {
      const refused = error instanceof OutboundRefused;
      const reason = withoutUrl(describeError(error), url);
      return { ok: false, status: null, retryable: !refused, reason: refused ? `the outbound policy refused the call: ${reason}` : `the chat webhook could not be reached: ${reason}` };
    }
  }
}

/** A notice as its job payload carries it, or null (a finding's alert). */
function readNotice(value: unknown): Notice | null {
  if (value === null || typeof value !== 'object') return null;
  const { title, fields, context } = value as Record<string, unknown>;
  if (typeof title !== 'string' || typeof context !== 'string' || !Array.isArray(fields)) return null;
  const pairs = fields.filter((pair): pair is [string, string] => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string');
  return { title, fields: pairs, context };
}

function channelToWire(row: alerts.ChannelRow): ChatChannelView {
  return { configured: true, url_masked: row.url_masked, min_severity: row.min_severity as Severity, updated_at: row.updated_at, updated_by: row.updated_by };
}
