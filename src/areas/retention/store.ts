// SQL of retention: which traces, spans and memory entries are past their time, which of those a legal
// hold keeps, and bounded deletes (one statement per batch, so no lock is held for long).
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool, type Transaction } from 'kysely';
import { readJsonObject } from '../../infra/store/json-columns.js';
import type { Database, LegalHoldRow } from '../../infra/store/tables.js';

type Db = Kysely<Database> | Transaction<Database>;
type Eb = ExpressionBuilder<Database, 'traces' | 'memory_entries' | 'spans'>;
type Condition = (eb: Eb) => Expression<SqlBool>;

/** A hold's scope as stored: ISO UTC instants, so that they compare with stored timestamps as text. */
export interface StoredScope {
  agents?: string[];
  from?: string;
  to?: string;
}

export function parseScope(row: Pick<LegalHoldRow, 'scope'>): StoredScope {
  // A scope that cannot be read reads as {}, which keeps everything: a hold errs on the side of keeping.
  const value = readJsonObject(row.scope);
  const scope: StoredScope = {};
  if (Array.isArray(value.agents)) scope.agents = value.agents.filter((agent): agent is string => typeof agent === 'string');
  if (typeof value.from === 'string') scope.from = value.from;
  if (typeof value.to === 'string') scope.to = value.to;
  return scope;
}

export async function activeHolds(db: Db): Promise<LegalHoldRow[]> {
  return db.selectFrom('legal_holds').selectAll().where('released_at', 'is', null).orderBy('id', 'desc').execute();
}

/** Newest first, `limit` rows at most; `active` true: not released, false: released, undefined: both. */
export async function listHolds(db: Db, filter: { before?: string; active?: boolean; limit: number }): Promise<LegalHoldRow[]> {
  let query = db.selectFrom('legal_holds').selectAll().orderBy('id', 'desc').limit(filter.limit);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  if (filter.active === true) query = query.where('released_at', 'is', null);
  if (filter.active === false) query = query.where('released_at', 'is not', null);
  return query.execute();
}

export async function findHold(db: Db, id: string): Promise<LegalHoldRow | undefined> {
  return db.selectFrom('legal_holds').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertHold(db: Db, row: LegalHoldRow): Promise<void> {
  await db.insertInto('legal_holds').values(row).execute();
}

/** Releases a hold that is still active; answers whether it was (false: gone or released meanwhile). */
export async function releaseActiveHold(db: Db, id: string, releasedAt: string, releasedBy: string): Promise<boolean> {
  const result = await db
    .updateTable('legal_holds')
    .set({ released_at: releasedAt, released_by: releasedBy })
    .where('id', '=', id)
    .where('released_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The traces table and memory entries: their agent column and the time a hold's period is compared with. */
export type Target = { table: 'traces'; time: 'at' } | { table: 'memory_entries'; time: 'created_at' } | { table: 'spans'; time: 'received_at' };
export const TRACES: Target = { table: 'traces', time: 'at' };
export const MEMORY: Target = { table: 'memory_entries', time: 'created_at' };
/**
 * Spans age by when the gateway received them: its own clock, where a span's start_time is the
 * exporter's (a wrong or far-future start time must not keep a span past its retention).
 */
export const SPANS: Target = { table: 'spans', time: 'received_at' };

const coversEverything = (scope: StoredScope): boolean => scope.agents === undefined && scope.from === undefined && scope.to === undefined;

/** Rows some hold covers: one of its agents (or any agent) and a time inside [from, to]. */
function covered(eb: Eb, target: Target, scopes: StoredScope[]): Expression<SqlBool> {
  return eb.or(
    scopes.map((scope) => {
      const all: Array<Expression<SqlBool>> = [];
      // A stored list left empty names no agent: the hold keeps nothing.
      if (scope.agents !== undefined) all.push(scope.agents.length > 0 ? eb(sql.ref(`${target.table}.agent`), 'in', scope.agents) : eb.lit(false));
      if (scope.from !== undefined) all.push(eb(sql.ref(`${target.table}.${target.time}`), '>=', scope.from));
      if (scope.to !== undefined) all.push(eb(sql.ref(`${target.table}.${target.time}`), '<=', scope.to));
      return eb.and(all);
    }),
  );
}

export interface Cutoffs {
  /** ISO instants; undefined when the setting is 0 (kept forever). */
  content?: string;
  traces?: string;
  memory?: string;
}

function pastContent(cutoffs: Cutoffs): Condition | null {
  const cutoff = cutoffs.content;
  if (cutoff === undefined) return null;
  return (eb) => eb.and([eb(sql.ref('traces.content'), 'is not', null), eb(sql.ref('traces.at'), '<', cutoff)]);
}

function pastTraces(cutoffs: Cutoffs): Condition | null {
  const cutoff = cutoffs.traces;
  if (cutoff === undefined) return null;
  return (eb) => eb(sql.ref('traces.at'), '<', cutoff);
}

/** Spans follow `retention_traces_days`, like the decision records they explain. */
function pastSpans(cutoffs: Cutoffs): Condition | null {
  const cutoff = cutoffs.traces;
  if (cutoff === undefined) return null;
  return (eb) => eb(sql.ref('spans.received_at'), '<', cutoff);
}

function pastMemory(cutoffs: Cutoffs): Condition | null {
  const cutoff = cutoffs.memory;
  if (cutoff === undefined) return null;
  return (eb) =>
    eb.or([
      eb.and([eb(sql.ref('memory_entries.revoked_at'), 'is not', null), eb(sql.ref('memory_entries.revoked_at'), '<', cutoff)]),
      eb.and([eb(sql.ref('memory_entries.expires_at'), 'is not', null), eb(sql.ref('memory_entries.expires_at'), '<', cutoff)]),
    ]);
}

/** `past` and not kept by a hold; null when nothing can be removed (a hold with an empty scope keeps everything). */
function removable(past: Condition, target: Target, scopes: StoredScope[]): Condition | null {
  if (scopes.length === 0) return past;
  if (scopes.some(coversEverything)) return null;
  return (eb) => eb.and([past(eb), eb.not(covered(eb, target, scopes))]);
}

/** `past` and kept by a hold. */
function heldCondition(past: Condition, target: Target, scopes: StoredScope[]): Condition | null {
  if (scopes.length === 0) return null;
  if (scopes.some(coversEverything)) return past;
  return (eb) => eb.and([past(eb), covered(eb, target, scopes)]);
}

async function count(db: Db, table: 'traces' | 'memory_entries' | 'spans', condition: Condition | null): Promise<number> {
  if (condition === null) return 0;
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where((eb) => condition(eb as unknown as Eb))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface Plan {
  content_cleared: number;
  traces_deleted: number;
  memory_deleted: number;
  spans_deleted: number;
  held: number;
}

/** What a sweep with these cutoffs and holds would do now. */
export async function plan(db: Db, cutoffs: Cutoffs, scopes: StoredScope[]): Promise<Plan> {
  const content = pastContent(cutoffs);
  const traces = pastTraces(cutoffs);
  const memory = pastMemory(cutoffs);
  const spans = pastSpans(cutoffs);
  // Content is cleared only on records that are not deleted in the same sweep.
  const contentOnly: Condition | null =
    content === null ? null : traces === null ? content : (eb) => eb.and([content(eb), eb.not(traces(eb))]);
  const tracePast: Condition | null =
    traces === null ? content : content === null ? traces : (eb) => eb.or([traces(eb), content(eb)]);
  const [contentCleared, tracesDeleted, memoryDeleted, spansDeleted, heldTraces, heldMemory, heldSpans] = await Promise.all([
    count(db, 'traces', contentOnly === null ? null : removable(contentOnly, TRACES, scopes)),
    count(db, 'traces', traces === null ? null : removable(traces, TRACES, scopes)),
    count(db, 'memory_entries', memory === null ? null : removable(memory, MEMORY, scopes)),
    count(db, 'spans', spans === null ? null : removable(spans, SPANS, scopes)),
    count(db, 'traces', tracePast === null ? null : heldCondition(tracePast, TRACES, scopes)),
    count(db, 'memory_entries', memory === null ? null : heldCondition(memory, MEMORY, scopes)),
    count(db, 'spans', spans === null ? null : heldCondition(spans, SPANS, scopes)),
  ]);
  return {
    content_cleared: contentCleared,
    traces_deleted: tracesDeleted,
    memory_deleted: memoryDeleted,
    spans_deleted: spansDeleted,
    held: heldTraces + heldMemory + heldSpans,
  };
}

/** Ids of the next `batch` decision records the condition selects (a subquery: the statement stays one round trip). */
function traceIds(db: Db, condition: Condition, batch: number) {
  return db
    .selectFrom('traces')
    .select('traces.id')
    .where((eb) => condition(eb as unknown as Eb))
    .limit(batch);
}

/** Deletes traces past `cutoffs.traces` that no hold keeps, `batch` rows per statement; answers how many. */
export async function deleteTraces(db: Db, cutoffs: Cutoffs, scopes: () => Promise<StoredScope[]>, batch: number): Promise<number> {
  const past = pastTraces(cutoffs);
  if (past === null) return 0;
  return inBatches(async () => {
    const condition = removable(past, TRACES, await scopes());
    if (condition === null) return 0;
    const result = await db.deleteFrom('traces').where('id', 'in', traceIds(db, condition, batch)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }, batch);
}

export async function clearContent(db: Db, cutoffs: Cutoffs, scopes: () => Promise<StoredScope[]>, batch: number): Promise<number> {
  const past = pastContent(cutoffs);
  if (past === null) return 0;
  return inBatches(async () => {
    const condition = removable(past, TRACES, await scopes());
    if (condition === null) return 0;
    const result = await db.updateTable('traces').set({ content: null }).where('id', 'in', traceIds(db, condition, batch)).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }, batch);
}

export async function deleteMemory(db: Db, cutoffs: Cutoffs, scopes: () => Promise<StoredScope[]>, batch: number): Promise<number> {
  const past = pastMemory(cutoffs);
  if (past === null) return 0;
  return inBatches(async () => {
    const condition = removable(past, MEMORY, await scopes());
    if (condition === null) return 0;
    const result = await db
      .deleteFrom('memory_entries')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('memory_entries')
          .select('memory_entries.id')
          .where((inner) => condition(inner as unknown as Eb))
          .limit(batch),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }, batch);
}

/** Deletes spans past `cutoffs.traces` that no hold keeps, `batch` rows per statement (by their two-part key). */
export async function deleteSpans(db: Db, cutoffs: Cutoffs, scopes: () => Promise<StoredScope[]>, batch: number): Promise<number> {
  const past = pastSpans(cutoffs);
  if (past === null) return 0;
  return inBatches(async () => {
    const condition = removable(past, SPANS, await scopes());
    if (condition === null) return 0;
    const result = await db
      .deleteFrom('spans')
      .where((eb) =>
        eb(
          eb.refTuple('spans.trace_id', 'spans.span_id'),
          'in',
          eb
            .selectFrom('spans')
            .select(['spans.trace_id', 'spans.span_id'])
            .where((inner) => condition(inner as unknown as Eb))
            .limit(batch)
            .$asTuple('trace_id', 'span_id'),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }, batch);
}

/** Runs `step` until it removes fewer than a full batch; the holds are read again before each batch. */
async function inBatches(step: () => Promise<number>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await step();
    total += done;
    if (done < batch) return total;
  }
}
