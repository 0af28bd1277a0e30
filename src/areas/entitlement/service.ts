// Entitlement (spec 02 "Answerability, sources, entitlement"): principals (subjects with their
// groups, clearances, purposes and residency), grants of sources to principals, the filter an
// application calls on retrieved chunks before they reach a model (deny by default), and the
// over-permission report. Grants and principals are held in memory, rebuilt on every change here
// and by sync() (other instances' changes); the last use of grants is written off the request path.
import { findingType } from '../../engine/findings/catalog.js';
import { fingerprint } from '../../engine/findings/fingerprint.js';
import type { FindingUpsert, Recorder } from '../../engine/recording/recorder.js';
import { actorOf, speakingAgent, type Principal } from '../../infra/auth/principal.js';
import { problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { storableText, storableValue } from '../../infra/lib/storable-text.js';
import type { Store } from '../../infra/store/db.js';
import type { ChangePublisher } from '../../infra/store/notify.js';
import { readJsonStrings, writeJson } from '../../infra/store/json-columns.js';
import type { EntitlementGrantRow, EntitlementPrincipalRow, EntitlementWithholdingRow } from '../../infra/store/tables.js';
import type { AuditLog } from '../audit/log.js';
import { EntitlementIndex, normaliseCode, type PrincipalKind } from './decide.js';
import { compileGlob, GlobError } from './match.js';
import type { EntitlementGrant, EntitlementPrincipal, FilterBody, FilterResult, GrantBody, OverPermission, PrincipalBody } from './schemas.js';
import * as entitlement from './store.js';

const DAY_MS = 86_400_000;
/** Retrievals gathered before a write is started without waiting for the periodic sync. */
const RETRIEVALS_FLUSH_AT = 50_000;
/** A principal is over-permitted from this many visible sources, at this ratio of visible to retrieved. */
const OVER_PERMITTED_MIN_SOURCES = 5;
const OVER_PERMITTED_RATIO = 5;

export interface EntitlementServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  recorder: Recorder;
  /** Tells the other gateway processes sharing the database that principals or grants changed. */
  changes?: ChangePublisher;
}

interface Snapshot {
  index: EntitlementIndex;
  grants: EntitlementGrantRow[];
  principals: EntitlementPrincipalRow[];
}

export class EntitlementService {
  private snapshot: Snapshot | undefined;
  private loading: Promise<Snapshot> | undefined;
  /** Grant id → the latest time it allowed a chunk, not yet written. */
  private pendingUse = new Map<string, string>();
  private flushing: Promise<void> = Promise.resolve();
  /** (subject, source) → the last time a chunk of the source was allowed to the subject, not yet written. */
  private pendingRetrievals = new Map<string, { subject: string; source: string; last_at: string }>();

  constructor(readonly deps: EntitlementServiceDeps) {}

  /** Rereads grants and principals (changes made through other instances) and writes pending grant use and retrievals. */
  async sync(): Promise<void> {
    await this.reload();
    await this.flushUsage();
  }

  async listPrincipals(): Promise<{ items: EntitlementPrincipal[] }> {
    const rows = await entitlement.allPrincipals(this.deps.store.db);
    return { items: rows.map(principalToWire) };
  }

  async putPrincipal(caller: Principal, body: PrincipalBody): Promise<{ created: boolean; principal: EntitlementPrincipal }> {
    const { audit, clock } = this.deps;
    const now = clock.now().toISOString();
    const actor = actorOf(caller);
    const fields = {
      agent: body.agent ?? null,
      display: body.display ?? null,
      groups: writeJson(unique(body.groups ?? [])),
      clearances: writeJson(unique((body.clearances ?? []).map(normaliseCode))),
      purposes: writeJson(unique((body.purposes ?? []).map(normaliseCode))),
      residency: body.residency === undefined || body.residency === null ? null : normaliseCode(body.residency),
      updated_at: now,
    };
    const row = await audit.transact(async (trx, append) => {
      const existing = await entitlement.findPrincipal(trx, storableText(body.subject));
      // As stored (NUL and lone surrogates made storable), so the answer and the cache agree with the row.
      const stored: EntitlementPrincipalRow = storableValue({ subject: body.subject, created_at: existing?.created_at ?? now, ...fields });
      if (existing === undefined) await entitlement.insertPrincipal(trx, stored);
      else await entitlement.updatePrincipal(trx, existing.subject, fields);
      await append({
        actor,
        action: existing === undefined ? 'entitlement.principal.create' : 'entitlement.principal.update',
        target: body.subject,
        detail: { agent: stored.agent, groups: stored.groups, clearances: stored.clearances, purposes: stored.purposes, residency: stored.residency },
      });
      return { existing, stored };
    });
    await this.reload();
    this.deps.changes?.publish('entitlement');
    return { created: row.existing === undefined, principal: principalToWire(row.stored) };
  }

  async listGrants(): Promise<{ items: EntitlementGrant[] }> {
    await this.flushUsage();
    const rows = await entitlement.allGrants(this.deps.store.db);
    return { items: rows.map(grantToWire) };
  }

  async createGrant(caller: Principal, body: GrantBody): Promise<EntitlementGrant> {
    const kind: PrincipalKind = body.principal_kind ?? 'subject';
    try {
      compileGlob(body.resource);
    } catch (error) {
      if (error instanceof GlobError) throw problem('invalid-request', `resource: ${error.message}`, [{ field: '/body/resource', message: error.message }]);
      throw error;
    }
    if (kind === '*' && body.principal !== '*') {
      throw problem('refused', 'a grant to everyone (principal_kind *) names principal *', [{ field: '/body/principal', message: 'must be * with principal_kind *' }]);
    }
    if (kind !== '*' && body.principal === '*') {
      throw problem('refused', 'principal * grants to everyone: say so with principal_kind *', [{ field: '/body/principal_kind', message: 'must be * when principal is *' }]);
    }
    const actor = actorOf(caller);
    const row: EntitlementGrantRow = storableValue({
      id: newId('egr'),
      resource: body.resource,
      principal: body.principal,
      principal_kind: kind,
      classes: writeJson(unique((body.classes ?? []).map(normaliseCode))),
      purposes: writeJson(unique((body.purposes ?? []).map(normaliseCode))),
      residency: body.residency === undefined || body.residency === null ? null : normaliseCode(body.residency),
      created_by: actor,
      created_at: this.deps.clock.now().toISOString(),
      last_used_at: null,
    });
    const wire = grantToWire(row);
    await this.deps.audit.transact(async (trx, append) => {
      await entitlement.insertGrant(trx, row);
      await append({ actor, action: 'entitlement.grant.create', target: row.id, detail: { resource: row.resource, principal: row.principal, principal_kind: kind, classes: wire.classes, purposes: wire.purposes, residency: row.residency } });
    });
    await this.reload();
    this.deps.changes?.publish('entitlement');
    this.raiseWildcard(row);
    return wire;
  }

  /**
   * The chunks a subject may see. `header` is X-Parapet-Agent: an agent credential speaks only for
   * its own agent; a traffic token or an operator token may name the requesting agent.
   */
  async filter(caller: Principal, body: FilterBody, header: string | undefined): Promise<FilterResult> {
    const agent = requestingAgent(caller, body.agent, header);
    const { index } = await this.current();
    const chunks = body.chunks ?? [];
    const decision = index.decide({ subject: body.subject, agent, purpose: body.purpose ?? null, chunks });
    const now = this.deps.clock.now().toISOString();
    for (const id of decision.usedGrants) this.pendingUse.set(id, now);
    this.noteRetrieved(storableText(body.subject), decision.retrievedSources, now);
    let recorded = 0;
    if (body.record === true && decision.withheld.length > 0) {
      const rows: EntitlementWithholdingRow[] = decision.withheld.map((item) => ({
        id: newId('ewh'),
        trace_id: body.trace_id ?? null,
        subject: body.subject,
        agent,
        chunk_source: item.source,
        chunk_id: item.id,
        reason: `${item.reason}: ${item.detail}`.slice(0, 2000),
        at: now,
      }));
      await entitlement.insertWithholdings(this.deps.store.db, rows);
      recorded = rows.length;
    }
    const byReason: Record<string, number> = {};
    for (const item of decision.withheld) byReason[item.reason] = (byReason[item.reason] ?? 0) + 1;
    return {
      subject: body.subject,
      agent,
      allowed: decision.allowed.map((position) => chunks[position] as (typeof chunks)[number]),
      withheld: decision.withheld,
      counts: { chunks: chunks.length, allowed: decision.allowed.length, withheld: decision.withheld.length, by_reason: byReason },
      recorded,
    };
  }

  async overPermission(days: number): Promise<OverPermission> {
    await this.flushUsage();
    const { db } = this.deps.store;
    const snapshot = await this.reload();
    const nowMs = this.deps.clock.now().getTime();
    const since = new Date(nowMs - days * DAY_MS).toISOString();
    const retrieved = await entitlement.retrievedCounts(db, since);

    const unused = snapshot.grants
      .filter((grant) => grant.last_used_at === null || grant.last_used_at < since)
      .map((grant) => ({ grant: grantToWire(grant), never_used: grant.last_used_at === null }));

    const sources = await entitlement.activeSourceKeys(db);
    const principals = snapshot.principals.map((principal) => {
      const grants = snapshot.index.grantsFor(principal.subject, null);
      const visible = sources.filter((source) => grants.some((grant) => grant.glob.matches(source))).length;
      // Only registered, active sources count, as on the visible side.
      const retrievedCount = retrieved.get(principal.subject) ?? 0;
      const ratio = visible / Math.max(retrievedCount, 1);
      return {
        subject: principal.subject,
        display: principal.display,
        visible_sources: visible,
        retrieved_sources: retrievedCount,
        ratio: Math.round(ratio * 100) / 100,
        over_permitted: visible >= OVER_PERMITTED_MIN_SOURCES && ratio >= OVER_PERMITTED_RATIO,
      };
    });
    principals.sort((a, b) => b.ratio - a.ratio || (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));

    const wildcards = snapshot.grants.flatMap((grant) => {
      const wildcard = wildcardOf(grant);
      return wildcard.length === 0 ? [] : [{ grant: grantToWire(grant), wildcard }];
    });
    for (const grant of snapshot.grants) this.raiseWildcard(grant);

    return {
      days,
      since,
      retrieved_since: since,
      unused_grants: unused,
      principals,
      wildcard_grants: wildcards,
      counts: {
        grants: snapshot.grants.length,
        unused_grants: unused.length,
        over_permitted_principals: principals.filter((principal) => principal.over_permitted).length,
        wildcard_grants: wildcards.length,
      },
    };
  }

  /** Writes the grant use and retrievals gathered by filter calls since the previous flush; one at a time. */
  async flushUsage(): Promise<void> {
    const run = this.flushing.then(async () => {
      await this.flushRetrievals();
      if (this.pendingUse.size === 0) return;
      const pending = this.pendingUse;
      this.pendingUse = new Map();
      const byTime = new Map<string, string[]>();
      for (const [id, at] of pending) byTime.set(at, [...(byTime.get(at) ?? []), id]);
      try {
        for (const [at, ids] of byTime) await entitlement.markGrantsUsed(this.deps.store.db, ids, at);
      } catch (error) {
        // Kept for the next flush: a later use overrides, an earlier one is not lost.
        for (const [id, at] of pending) if ((this.pendingUse.get(id) ?? '') < at) this.pendingUse.set(id, at);
        throw error;
      }
    });
    this.flushing = run.catch(() => undefined);
    await run;
  }

  private async current(): Promise<Snapshot> {
    return this.snapshot ?? this.reload();
  }

  private async reload(): Promise<Snapshot> {
    // Concurrent reloads share one read; a reload asked for while one runs starts after it, so it sees the latest change.
    const previous = this.loading ?? Promise.resolve(undefined);
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const { db } = this.deps.store;
        const [grants, principals] = await Promise.all([entitlement.allGrants(db), entitlement.allPrincipals(db)]);
        const index = new EntitlementIndex(
          grants.map((grant) => ({ ...grant, classes: readJsonStrings(grant.classes), purposes: readJsonStrings(grant.purposes) })),
          principals.map((principal) => ({
            ...principal,
            groups: readJsonStrings(principal.groups),
            clearances: readJsonStrings(principal.clearances),
            purposes: readJsonStrings(principal.purposes),
          })),
        );
        const snapshot: Snapshot = { index, grants, principals };
        this.snapshot = snapshot;
        return snapshot;
      });
    this.loading = next;
    try {
      return await next;
    } finally {
      if (this.loading === next) this.loading = undefined;
    }
  }

  private async flushRetrievals(): Promise<void> {
    if (this.pendingRetrievals.size === 0) return;
    const pending = this.pendingRetrievals;
    this.pendingRetrievals = new Map();
    try {
      await entitlement.upsertRetrievals(this.deps.store.db, [...pending.values()]);
    } catch (error) {
      // Kept for the next flush unless a later retrieval of the same pair replaced it meanwhile.
      for (const [key, row] of pending) if ((this.pendingRetrievals.get(key)?.last_at ?? '') < row.last_at) this.pendingRetrievals.set(key, row);
      throw error;
    }
  }

  /** Batched: the filter's hot path does no write of its own (the periodic sync and reports flush). */
  private noteRetrieved(subject: string, sources: ReadonlySet<string>, at: string): void {
    for (const raw of sources) {
      const source = storableText(raw);
      this.pendingRetrievals.set(`${subject}\u0000${source}`, { subject, source, last_at: at });
    }
    if (this.pendingRetrievals.size >= RETRIEVALS_FLUSH_AT) void this.flushUsage().catch(() => undefined);
  }

  private raiseWildcard(grant: EntitlementGrantRow): void {
    const wildcard = wildcardOf(grant);
    if (wildcard.length === 0) return;
    const subject = grant.principal_kind === '*' ? 'principal:*' : `${grant.principal_kind}:${grant.principal}`;
    const finding: FindingUpsert = {
      fingerprint: fingerprint('over_privileged', subject, [grant.id]),
      type: 'over_privileged',
      severity: findingType('over_privileged').default_severity,
      title:
        grant.principal_kind === '*'
          ? `Entitlement grant ${grant.id} lets everyone see ${grant.resource}`
          : `Entitlement grant ${grant.id} lets ${subject} see every source`,
      subject,
      agent: grant.principal_kind === 'agent' ? grant.principal : null,
      at: this.deps.clock.now().toISOString(),
      evidence: { grant_id: grant.id, resource: grant.resource, principal: grant.principal, principal_kind: grant.principal_kind, wildcard, granted_by: grant.created_by },
      decisionId: null,
    };
    this.deps.recorder.raise([finding]);
  }
}

/** Why a grant is a `*` grant: it is for everyone, or it covers every source. */
function wildcardOf(grant: Pick<EntitlementGrantRow, 'principal_kind' | 'resource'>): Array<'principal' | 'resource'> {
  const wildcard: Array<'principal' | 'resource'> = [];
  if (grant.principal_kind === '*') wildcard.push('principal');
  if (grant.resource === '**' || grant.resource === '*') wildcard.push('resource');
  return wildcard;
}

/** The agent on whose behalf chunks are filtered, if any. */
function requestingAgent(caller: Principal, named: string | undefined, header: string | undefined): string | null {
  if (caller.kind === 'operator') {
    if (named !== undefined && header !== undefined && named !== header) throw problem('forbidden', `X-Parapet-Agent names ${header} but the body names ${named}`);
    return named ?? header ?? null;
  }
  if (caller.kind === 'traffic' && named === undefined && header === undefined) return null;
  return speakingAgent(caller, { body: named, header });
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function principalToWire(row: EntitlementPrincipalRow): EntitlementPrincipal {
  return {
    subject: row.subject,
    agent: row.agent,
    display: row.display,
    groups: readJsonStrings(row.groups),
    clearances: readJsonStrings(row.clearances),
    purposes: readJsonStrings(row.purposes),
    residency: row.residency,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function grantToWire(row: EntitlementGrantRow): EntitlementGrant {
  return {
    id: row.id,
    resource: row.resource,
    principal: row.principal,
    principal_kind: row.principal_kind as PrincipalKind,
    classes: readJsonStrings(row.classes),
    purposes: readJsonStrings(row.purposes),
    residency: row.residency,
    created_by: row.created_by,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}
