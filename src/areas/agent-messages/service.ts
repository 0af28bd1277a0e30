// Signed inter-agent messages: verification of nonce, timestamp and signature (signature.ts says
// what is signed), the message log written off the request path, and its listing. No HTTP here;
// the guard calls verify() and record(), the routes call list().
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { Store } from '../../infra/store/db.js';
import type { AgentMessageRow, AgentMessagesTable } from '../../infra/store/tables.js';
import type { AgentMessage, ListAgentMessagesQuery, SignatureStatus } from './schemas.js';
import { parseSignature, signatureMatches } from './signature.js';
import type { SigningKeyService } from './signing-keys.js';
import * as messages from './store.js';
import { WriteQueue, type WriteQueueOptions } from '../../infra/lib/write-queue.js';

/** Longest nonce kept: nonces are stored, so their size is bounded. */
export const MAX_NONCE_LENGTH = 256;
/** How often a process deletes nonces that can no longer be replayed. */
const NONCE_PURGE_EVERY_MS = 60_000;

export interface MessageToVerify {
  sender: string;
  recipient?: string;
  content: string;
  nonce?: string;
  timestamp?: number;
  signature?: string;
}

export interface MessageVerification {
  status: SignatureStatus;
  /** One sentence saying why. */
  detail: string;
  /** The key that verified the signature (valid, stale, replayed). */
  keyId?: string;
}

export interface AgentMessageRecord {
  sender: string;
  recipient?: string | null;
  nonce?: string | null;
  timestamp?: number | null;
  signatureStatus: SignatureStatus;
  verdict: string;
  effectiveVerdict: string;
  decisionId: string;
  contentSha256: string;
  sessionId?: string | null;
}

export interface AgentMessageServiceOptions extends WriteQueueOptions {
  /** `message_max_skew_seconds`: how far a message timestamp may be from the gateway clock. */
  maxSkewSeconds: number;
}

export class AgentMessageService {
  private readonly queue: WriteQueue<AgentMessagesTable>;
  private lastPurgeMs = Number.NEGATIVE_INFINITY;
  private purging: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly keys: SigningKeyService,
    private readonly clock: Clock,
    private readonly options: AgentMessageServiceOptions,
  ) {
    this.queue = new WriteQueue((rows) => messages.insertMessages(store.db, rows), { ...options, waitForRoom: true });
  }

  /**
   * Checks a message's signature fields. The order matters: the signature is checked before the
   * nonce is recorded, so forged or garbled messages cannot use up a sender's nonces; a forgery is
   * reported as `bad_signature` whatever its timestamp says.
   */
  async verify(input: MessageToVerify): Promise<MessageVerification> {
    const { nonce, timestamp, signature } = input;
    const present = [nonce, timestamp, signature].filter((value) => value !== undefined).length;
    if (present === 0) return { status: 'unsigned', detail: 'the message carries no nonce, timestamp or signature' };
    if (nonce === undefined || timestamp === undefined || signature === undefined) {
      const missing = Object.entries({ nonce, timestamp, signature })
        .filter(([, value]) => value === undefined)
        .map(([name]) => name);
      return { status: 'incomplete', detail: `a signed message needs nonce, timestamp and signature; missing ${missing.join(', ')}` };
    }
    if (nonce.length === 0 || nonce.length > MAX_NONCE_LENGTH) {
      return { status: 'incomplete', detail: `the nonce must be 1 to ${MAX_NONCE_LENGTH} characters` };
    }
    if (!Number.isFinite(timestamp)) return { status: 'incomplete', detail: 'the timestamp must be a number of seconds since the epoch' };

    let unsealFailed = false;
    const keys = await this.keys.usableKeys(input.sender, (error) => {
      unsealFailed = true;
      this.options.onError?.(error);
    });
    if (keys.length === 0) {
      return {
        status: 'no_key',
        detail: unsealFailed
          ? `the signing keys of ${input.sender} cannot be unsealed with this gateway's secret_key`
          : `${input.sender} has no signing key that is current or inside its overlap`,
      };
    }
    const presented = parseSignature(signature);
    const fields = { sender: input.sender, recipient: input.recipient, nonce, timestamp, content: input.content };
    const key = presented === null ? undefined : keys.find((candidate) => signatureMatches(candidate.key, fields, presented));
    if (key === undefined) {
      return {
        status: 'bad_signature',
        detail:
          presented === null
            ? 'the signature is neither 64 hex characters nor 43 base64url characters'
            : `the signature does not match any signing key of ${input.sender} that is current or inside its overlap`,
      };
    }

    const nowMs = this.clock.now().getTime();
    const skewSeconds = Math.abs(nowMs / 1000 - timestamp);
    if (skewSeconds > this.options.maxSkewSeconds) {
      return {
        status: 'stale',
        detail: `the timestamp is ${Math.round(skewSeconds)} s from the gateway clock; at most ${this.options.maxSkewSeconds} s is accepted`,
        keyId: key.id,
      };
    }
    const fresh = await messages.recordNonce(this.store.db, input.sender, nonce, new Date(nowMs).toISOString());
    this.purgeNonces(nowMs);
    if (!fresh) return { status: 'replayed', detail: `${input.sender} already sent a message with this nonce`, keyId: key.id };
    return {
      status: 'valid',
      detail: key.current ? 'signed with the current signing key' : 'signed with a replaced signing key that is still inside its overlap',
      keyId: key.id,
    };
  }

  /** Queues a message for the log; it is written within a few milliseconds, off the request path. */
  record(entry: AgentMessageRecord): string {
    const id = newId('msg');
    this.queue.push({
      id,
      at: this.clock.now().toISOString(),
      sender: entry.sender,
      recipient: entry.recipient ?? null,
      nonce: entry.nonce ?? null,
      timestamp: entry.timestamp ?? null,
      signature_status: entry.signatureStatus,
      verdict: entry.verdict,
      effective_verdict: entry.effectiveVerdict,
      decision_id: entry.decisionId,
      content_sha256: entry.contentSha256,
      session_id: entry.sessionId ?? null,
    });
    return id;
  }

  /** Undefined while the queue has room; past its bound, resolves once writes made room (nothing is dropped). */
  room(): Promise<void> | undefined {
    return this.queue.room();
  }

  async flush(): Promise<void> {
    await this.queue.flush();
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.purging;
  }

  async list(query: ListAgentMessagesQuery): Promise<{ items: AgentMessage[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const rows = await messages.listMessages(this.store.db, { sender: query.sender, before: decodeCursor(query.cursor), limit: limit + 1 });
    const page = pageOf(rows, limit);
    return { items: page.items.map(toWire), next_cursor: page.next_cursor };
  }

  /**
   * A nonce needs keeping only while its message could still pass the timestamp check: it was
   * recorded no earlier than `timestamp - skew` and is accepted until `timestamp + skew`, so after
   * twice the skew it can go. Once a minute per process is enough; nobody waits for it.
   */
  private purgeNonces(nowMs: number): void {
    // abs(): a clock that was set back must not postpone purging until it catches up again.
    if (this.purging !== undefined || Math.abs(nowMs - this.lastPurgeMs) < NONCE_PURGE_EVERY_MS) return;
    this.lastPurgeMs = nowMs;
    const before = new Date(nowMs - 2 * this.options.maxSkewSeconds * 1000).toISOString();
    this.purging = messages
      .purgeNonces(this.store.db, before)
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.purging = undefined;
      });
  }
}

function toWire(row: AgentMessageRow): AgentMessage {
  return {
    id: row.id,
    at: row.at,
    sender: row.sender,
    recipient: row.recipient,
    nonce: row.nonce,
    timestamp: row.timestamp === null ? null : Number(row.timestamp),
    signature_status: row.signature_status as SignatureStatus,
    verdict: row.verdict,
    effective_verdict: row.effective_verdict,
    decision_id: row.decision_id,
    content_sha256: row.content_sha256,
    session_id: row.session_id,
  };
}
