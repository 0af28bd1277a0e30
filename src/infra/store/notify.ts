// The change bus: a change made through one gateway process reaches the others at once instead of
// at their next poll. On PostgreSQL each process LISTENs on one channel with a dedicated client (not
// one of the pool's, which come and go) and a change is announced with pg_notify through the pool;
// on SQLite there is one process and the bus is in-process. A message names a topic (what to read
// again) and at most a few small ids; the state itself is always read back from the database, so a
// lost message costs time, never correctness: the periodic reads in src/services.ts stay as the
// fallback, and after a lost connection every topic is read again once the listener is back.
import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import pg from 'pg';
import type { Store } from './db.js';

export const CHANGE_CHANNEL = 'parapet_changes';

/** What changed, named by what each process has to read again. */
export const CHANGE_TOPICS = [
  /** Agents, grants, tools, kill switch and quarantine: the agent directory. */
  'agents',
  /** Revoked or rotated tokens and agent credentials (detail: the secret's digest): the resolver's cache. */
  'credentials',
  /** Policy packs, versions, modes and canaries. */
  'policies',
  /** Detector switches. */
  'detectors',
  /** The judgment posture. */
  'judgment',
  /** Custom and business rules. */
  'rules',
  'suppressions',
  'answerability',
  'entitlement',
  'escalation',
] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

/** What services hold: announce a change after it committed. Never throws, never waits. */
export interface ChangePublisher {
  publish(topic: ChangeTopic, detail?: string): void;
}

/**
 * Runs when a topic changed. `details` are the ids published with it, or null when they are not
 * known (too many, or messages may have been missed while the listener was away): read everything.
 */
export type ChangeHandler = (details: readonly string[] | null) => Promise<void> | void;

export interface ChangeBusStatus {
  kind: 'postgres' | 'in-process';
  connected: boolean;
  /** PostgreSQL: the backend process id of the listening connection (null while disconnected). */
  listenerPid: number | null;
  /** How many times the listener connected after its first connection. */
  reconnects: number;
}

export interface ChangeBusOptions {
  onError?: (error: unknown, what: string) => void;
  /** Changes of one topic arriving within this window are handled once. */
  debounceMs?: number;
}

/** PostgreSQL refuses payloads of 8000 bytes or more; a message is kept well below. */
const MAX_PAYLOAD_BYTES = 7_900;
const MAX_DETAIL_CHARS = 200;
/** Ids kept per topic until its handler runs; past this the handler reads everything. */
const MAX_PENDING_DETAILS = 1_000;
const DEBOUNCE_MS = 10;
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5_000;
/** A listener whose server vanished without closing the socket is noticed by this round trip. */
const HEARTBEAT_MS = 5_000;
const HEARTBEAT_TIMEOUT_MS = 3_000;

const TOPICS: ReadonlySet<string> = new Set(CHANGE_TOPICS);

interface Message {
  topic: ChangeTopic;
  detail: string | null;
}

/** The message on the wire: `{"t": topic, "d": detail}`, the detail dropped when it would not fit. */
export function encodeChange(topic: ChangeTopic, detail?: string): string {
  const clipped = detail === undefined || detail.length > MAX_DETAIL_CHARS ? undefined : detail;
  const payload = JSON.stringify(clipped === undefined ? { t: topic } : { t: topic, d: clipped });
  return Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES ? payload : JSON.stringify({ t: topic });
}

/** A message from the channel, or null when it is not one of ours (anyone with access may NOTIFY). */
export function decodeChange(payload: string | undefined): Message | null {
  if (payload === undefined || payload.length > MAX_PAYLOAD_BYTES) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { t, d } = parsed as { t?: unknown; d?: unknown };
  if (typeof t !== 'string' || !TOPICS.has(t)) return null;
  const detail = typeof d === 'string' && d.length <= MAX_DETAIL_CHARS ? d : null;
  return { topic: t as ChangeTopic, detail };
}

/** One topic's handler: debounced, never two runs at once, and a change during a run runs it again. */
class TopicRunner {
  private details: Set<string> | null = new Set();
  private due = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly handler: ChangeHandler,
    private readonly debounceMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  note(detail: string | null): void {
    this.due = true;
    if (detail === null || this.details === null || this.details.size >= MAX_PENDING_DETAILS) this.details = null;
    else this.details.add(detail);
    if (this.timer === undefined && this.running === undefined) this.timer = setTimeout(() => void this.run(), this.debounceMs);
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    while (this.due) {
      const details = this.details === null ? null : [...this.details];
      this.due = false;
      this.details = new Set();
      this.running = (async () => {
        try {
          await this.handler(details);
        } catch (error) {
          this.onError(error);
        }
      })();
      await this.running;
      this.running = undefined;
    }
  }

  async settle(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.due = false;
    await this.running;
  }
}

export abstract class ChangeBus implements ChangePublisher {
  protected readonly runners = new Map<ChangeTopic, TopicRunner[]>();
  protected readonly onError: (error: unknown, what: string) => void;
  protected closed = false;
  private readonly debounceMs: number;

  protected constructor(options: ChangeBusOptions) {
    this.onError = options.onError ?? (() => undefined);
    this.debounceMs = options.debounceMs ?? DEBOUNCE_MS;
  }

  /** The bus for the store's database: LISTEN/NOTIFY on PostgreSQL, in-process on SQLite. */
  static open(store: Store, options: ChangeBusOptions = {}): ChangeBus {
    return store.dialect === 'postgres' && store.databaseUrl !== undefined ? new PostgresChangeBus(store, store.databaseUrl, options) : new LocalChangeBus(options);
  }

  abstract publish(topic: ChangeTopic, detail?: string): void;
  abstract status(): ChangeBusStatus;
  /** Starts listening (PostgreSQL: connects, and keeps reconnecting until closed). */
  abstract start(): Promise<void>;

  /** Whether a change published by another process reaches this one now. */
  connected(): boolean {
    return this.status().connected;
  }

  /** Handlers run for changes of their topic, this process's own included. */
  subscribe(handlers: Partial<Record<ChangeTopic, ChangeHandler>>): void {
    for (const [topic, handler] of Object.entries(handlers) as Array<[ChangeTopic, ChangeHandler]>) {
      const runner = new TopicRunner(handler, this.debounceMs, (error) => this.onError(error, `reading ${topic} after a change`));
      this.runners.set(topic, [...(this.runners.get(topic) ?? []), runner]);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.runners.values()].flat().map((runner) => runner.settle()));
  }

  protected deliver(message: Message): void {
    if (this.closed) return;
    for (const runner of this.runners.get(message.topic) ?? []) runner.note(message.detail);
  }

  /** Every topic read again: messages may have been missed. */
  protected deliverAll(): void {
    for (const topic of this.runners.keys()) this.deliver({ topic, detail: null });
  }
}

/** SQLite: one process, so a change is delivered to this process's handlers. */
class LocalChangeBus extends ChangeBus {
  private readonly emitter = new EventEmitter();

  constructor(options: ChangeBusOptions) {
    super(options);
    this.emitter.on('change', (payload: string) => {
      const message = decodeChange(payload);
      if (message !== null) this.deliver(message);
    });
  }

  publish(topic: ChangeTopic, detail?: string): void {
    if (this.closed) return;
    // Delivered on a later turn, as the database would: the publisher carries on first.
    const payload = encodeChange(topic, detail);
    setImmediate(() => this.emitter.emit('change', payload));
  }

  status(): ChangeBusStatus {
    return { kind: 'in-process', connected: !this.closed, listenerPid: null, reconnects: 0 };
  }

  async start(): Promise<void> {}
}

class PostgresChangeBus extends ChangeBus {
  private client: pg.Client | null = null;
  private listening = false;
  private pid: number | null = null;
  private reconnects = 0;
  private everConnected = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private connecting: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly databaseUrl: string,
    options: ChangeBusOptions,
  ) {
    super(options);
  }

  publish(topic: ChangeTopic, detail?: string): void {
    if (this.closed) return;
    // Through the pool: a change is announced even while this process's listener is away.
    sql`select pg_notify(${CHANGE_CHANNEL}, ${encodeChange(topic, detail)})`
      .execute(this.store.db)
      .catch((error: unknown) => this.onError(error, `announcing a change of ${topic}`));
  }

  status(): ChangeBusStatus {
    return { kind: 'postgres', connected: this.listening, listenerPid: this.pid, reconnects: this.reconnects };
  }

  async start(): Promise<void> {
    if (this.closed || this.heartbeat !== undefined) return;
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
    await this.connect();
  }

  override async close(): Promise<void> {
    await super.close();
    clearTimeout(this.retryTimer);
    clearInterval(this.heartbeat);
    await this.connecting;
    await this.drop();
  }

  private connect(): Promise<void> {
    if (this.closed || this.client !== null) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: this.databaseUrl,
        application_name: 'parapet-changes',
        keepAlive: true,
        query_timeout: HEARTBEAT_TIMEOUT_MS,
      });
      // The client in hand is the only one listened to: a replaced client's late events are ignored.
      this.client = client;
      client.on('notification', (notification) => {
        if (client !== this.client || notification.channel !== CHANGE_CHANNEL) return;
        const message = decodeChange(notification.payload);
        if (message !== null) this.deliver(message);
      });
      // A lost connection reports an error and then ends; the first of them starts a reconnection.
      client.on('error', (error) => this.lost(client, error));
      client.on('end', () => this.lost(client, null));
      try {
        await client.connect();
        await client.query(`LISTEN ${CHANGE_CHANNEL}`);
        const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
        if (client !== this.client) return;
        if (this.closed) {
          await this.drop();
          return;
        }
        this.pid = rows[0]?.pid ?? null;
        this.listening = true;
        this.attempt = 0;
        if (this.everConnected) {
          this.reconnects += 1;
          // What changed while the listener was away was never announced to this process.
          this.deliverAll();
        }
        this.everConnected = true;
      } catch (error) {
        this.lost(client, error);
      }
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private lost(client: pg.Client, error: unknown): void {
    if (client !== this.client) return;
    const wasListening = this.listening;
    this.client = null;
    this.listening = false;
    this.pid = null;
    // Later errors of the dead client must not crash the process.
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    if (this.closed) return;
    if (wasListening || error !== null) this.onError(error ?? new Error('the connection ended'), 'listening for changes');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer !== undefined) return;
    const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 16);
    // Jitter keeps every process of a deployment from reconnecting in the same instant.
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay * (0.5 + Math.random() / 2));
    this.retryTimer.unref();
  }

  private async beat(): Promise<void> {
    const client = this.client;
    if (client === null || !this.listening || this.connecting !== undefined) return;
    try {
      await client.query('select 1');
    } catch (error) {
      this.lost(client, error);
    }
  }

  private async drop(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.listening = false;
    this.pid = null;
    if (client === null) return;
    client.on('error', () => undefined);
    await client.end().catch(() => undefined);
  }
}
