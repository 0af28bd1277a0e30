// Retention and legal holds. A sweep (every `retention_sweep_ms`, and on demand in tests) clears
// the content of decision records older than `retention_trace_content_days`, deletes records older
// than `retention_traces_days` (and OTLP spans received before then) and memory entries expired or revoked more than
// `retention_memory_days` ago — except what an active legal hold covers. Holds are created and
// released by admins (CONTRACT.md), audited with the change.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { Store } from '../../infra/store/db.js';
import { writeJson } from '../../infra/store/json-columns.js';
import type { LegalHoldRow } from '../../infra/store/tables.js';
import { normalizeInstant } from '../traces/service.js';
import type { CreateLegalHoldBody, LegalHold, ListLegalHoldsQuery, Retention, SweepResult } from './schemas.js';
import * as retention from './store.js';
import type { Cutoffs, StoredScope } from './store.js';

export interface RetentionSettings {
  retention_trace_content_days: number;
  retention_traces_days: number;
  retention_memory_days: number;
  retention_sweep_ms: number;
}

/** Rows per delete or update statement: short statements leave the recorder's writes room between them. */
export const SWEEP_BATCH = 1000;
const DAY_MS = 86_400_000;

export class RetentionService {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<SweepResult> | undefined;
  private lastSweep: (SweepResult & { at: string }) | null = null;

  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly settings: RetentionSettings,
  ) {}

  /** Sweeps every `retention_sweep_ms`; the timer never keeps the process alive. */
  start(onError: (error: unknown) => void): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      this.sweep().catch(onError);
    }, this.settings.retention_sweep_ms);
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One sweep; a sweep already under way in this process is joined rather than doubled. */
  async sweep(): Promise<SweepResult> {
    this.running ??= this.runSweep().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async runSweep(): Promise<SweepResult> {
    const { db } = this.store;
    const cutoffs = this.cutoffs();
    // Holds are read before every batch, so a hold created during a long sweep takes effect at once.
    const scopes = async (): Promise<StoredScope[]> => (await retention.activeHolds(db)).map(retention.parseScope);
    // Rows are deleted before content is cleared, so no record is updated only to be deleted.
    const tracesDeleted = await retention.deleteTraces(db, cutoffs, scopes, SWEEP_BATCH);
    const contentCleared = await retention.clearContent(db, cutoffs, scopes, SWEEP_BATCH);
    const memoryDeleted = await retention.deleteMemory(db, cutoffs, scopes, SWEEP_BATCH);
    const spansDeleted = await retention.deleteSpans(db, cutoffs, scopes, SWEEP_BATCH);
    // What is still past its time now is exactly what the holds kept.
    const { held } = await retention.plan(db, cutoffs, await scopes());
    const result = { content_cleared: contentCleared, traces_deleted: tracesDeleted, memory_deleted: memoryDeleted, spans_deleted: spansDeleted, held };
    this.lastSweep = { at: this.clock.now().toISOString(), ...result };
    return result;
  }

  private cutoffs(): Cutoffs {
    const now = this.clock.now().getTime();
    const before = (days: number): string | undefined => (days === 0 ? undefined : new Date(now - days * DAY_MS).toISOString());
    const cutoffs: Cutoffs = {};
    const content = before(this.settings.retention_trace_content_days);
    const traces = before(this.settings.retention_traces_days);
    const memory = before(this.settings.retention_memory_days);
    if (content !== undefined) cutoffs.content = content;
    if (traces !== undefined) cutoffs.traces = traces;
    if (memory !== undefined) cutoffs.memory = memory;
    return cutoffs;
  }

  async view(): Promise<Retention> {
    const holds = await retention.activeHolds(this.store.db);
    const nextSweep = await retention.plan(this.store.db, this.cutoffs(), holds.map(retention.parseScope));
    return {
      settings: { ...this.settings },
      legal_holds: holds.slice(0, 500).map(holdToWire),
      next_sweep: nextSweep,
      last_sweep: this.lastSweep,
    };
  }

  async listHolds(query: ListLegalHoldsQuery): Promise<{ items: LegalHold[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const before = decodeCursor(query.cursor);
    const page = pageOf(await retention.listHolds(this.store.db, { before, active: query.active, limit: limit + 1 }), limit);
    return { items: page.items.map(holdToWire), next_cursor: page.next_cursor };
  }

  async createHold(caller: Principal, body: CreateLegalHoldBody): Promise<LegalHold> {
    const scope = storedScope(body.scope ?? {});
    const actor = actorOf(caller);
    const row: LegalHoldRow = {
      id: newId('hold'),
      name: body.name ?? defaultName(scope),
      reason: body.reason,
      scope: writeJson(scope),
      created_by: actor,
      created_at: this.clock.now().toISOString(),
      released_at: null,
      released_by: null,
    };
    await this.audit.transact(async (trx, append) => {
      await retention.insertHold(trx, row);
      await append({ actor, action: 'legal_hold.create', target: row.id, detail: { name: row.name, reason: row.reason, scope } });
    });
    return holdToWire(row);
  }

  async releaseHold(caller: Principal, id: string, reason?: string): Promise<LegalHold> {
    const row = await retention.findHold(this.store.db, id);
    if (row === undefined) throw notFound('legal hold', id);
    if (row.released_at !== null) throw problem('conflict', `legal hold ${id} was already released at ${row.released_at}`);
    const actor = actorOf(caller);
    const now = this.clock.now().toISOString();
    await this.audit.transact(async (trx, append) => {
      if (!(await retention.releaseActiveHold(trx, id, now, actor))) throw problem('conflict', `legal hold ${id} was released meanwhile`);
      await append({ actor, action: 'legal_hold.release', target: id, detail: { name: row.name, reason: reason ?? null } });
    });
    return holdToWire({ ...row, released_at: now, released_by: actor });
  }
}

/** The scope as stored: instants in UTC text; a period that ends before it starts is refused. */
function storedScope(scope: NonNullable<CreateLegalHoldBody['scope']>): StoredScope {
  const stored: StoredScope = {};
  if (scope.agents !== undefined) stored.agents = [...new Set(scope.agents)];
  for (const key of ['from', 'to'] as const) {
    const value = scope[key];
    if (value === undefined) continue;
    const instant = normalizeInstant(value, { endOfDay: key === 'to' });
    if (instant === null) throw problem('invalid-request', `scope.${key} is not a date`, [{ field: `/body/scope/${key}`, message: 'not a date' }]);
    stored[key] = instant;
  }
  if (stored.from !== undefined && stored.to !== undefined && stored.from > stored.to) {
    throw problem('invalid-request', `scope.from (${stored.from}) is after scope.to (${stored.to})`, [
      { field: '/body/scope/from', message: 'must not be after to' },
    ]);
  }
  return stored;
}

function defaultName(scope: StoredScope): string {
  const who = scope.agents === undefined ? 'every agent' : `agents ${scope.agents.join(', ')}`;
  const when = scope.from === undefined && scope.to === undefined ? 'all time' : `${scope.from ?? 'the start'} to ${scope.to ?? 'now'}`;
  return `Hold on ${who}, ${when}`.slice(0, 200);
}

function holdToWire(row: LegalHoldRow): LegalHold {
  return {
    id: row.id,
    name: row.name,
    reason: row.reason,
    scope: retention.parseScope(row),
    active: row.released_at === null,
    created_by: row.created_by,
    created_at: row.created_at,
    released_at: row.released_at,
    released_by: row.released_by,
  };
}
