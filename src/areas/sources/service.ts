// The knowledge-source registry (spec 02 "Answerability, sources, entitlement"): sources with their
// tier, owner, freshness and deprecation; a connection to each source's real content (its
// credential sealed at once and never answered, logged or audited); validation against that
// content; and the health of the registry. Every change is audited in its own transaction.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Sealer } from '../../infra/lib/sealed.js';
import { storableText, storableValue } from '../../infra/lib/storable-text.js';
import type { Store } from '../../infra/store/db.js';
import { readJson, readJsonObject, writeJson } from '../../infra/store/json-columns.js';
import type { KnowledgeSourceRow, SourceConnectionRow } from '../../infra/store/tables.js';
import type { AuditLog } from '../audit/log.js';
import { normaliseConfig, probeSource, type StoredConfig } from './connectors.js';
import {
  HEALTH_PROBLEMS,
  MAX_METADATA_BYTES,
  MAX_METADATA_DEPTH,
  type ConnectionKind,
  type ConnectionView,
  type Health,
  type HealthProblemCode,
  type ListSourcesQuery,
  type PutSourceBody,
  type SaveConnectionBody,
  type SourceList,
  type SourceTier,
  type SourceView,
  type ValidateResult,
  type ValidationSaw,
} from './schemas.js';
import * as sources from './store.js';

const HOUR_MS = 3_600_000;

export interface SourceServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  sealer: Sealer;
}

export class SourceService {
  constructor(readonly deps: SourceServiceDeps) {}

  async list(query: ListSourcesQuery): Promise<SourceList> {
    const { db } = this.deps.store;
    const [rows, connections] = await Promise.all([
      sources.listSources(db, { ...(query.tier === undefined ? {} : { tier: query.tier }), ...(query.domain === undefined ? {} : { domain: query.domain }) }),
      sources.listConnections(db),
    ]);
    const byKey = new Map(connections.map((connection) => [connection.key, connection]));
    const now = this.deps.clock.now();
    return { items: rows.map((row) => sourceToWire(row, byKey.get(row.key), now)) };
  }

  /** Registers a source (201) or updates it (200): fields left out keep their stored value; a new source takes the defaults. */
  async put(caller: Principal, body: PutSourceBody): Promise<{ created: boolean; source: SourceView }> {
    const { audit, clock } = this.deps;
    const metadata = body.metadata === undefined ? undefined : storableValue(body.metadata);
    if (metadata !== undefined) checkMetadata(metadata);
    const actor = actorOf(caller);
    const at = clock.now().toISOString();
    const declared = {
      ...(body.title === undefined ? {} : { title: storableText(body.title) }),
      ...(body.tier === undefined ? {} : { tier: body.tier }),
      ...(body.owner === undefined ? {} : { owner: body.owner === null ? null : storableText(body.owner) }),
      ...(body.domain === undefined ? {} : { domain: body.domain === null ? null : storableText(body.domain) }),
      ...(body.updated_at_source === undefined ? {} : { updated_at_source: body.updated_at_source === null ? null : isoOf(body.updated_at_source) }),
      ...(body.freshness_sla_hours === undefined ? {} : { freshness_sla_hours: body.freshness_sla_hours }),
      ...(body.deprecated === undefined ? {} : { deprecated: body.deprecated ? 1 : 0 }),
      ...(metadata === undefined ? {} : { metadata: writeJson(metadata) }),
    };
    const { created, row, connection } = await audit.transact(async (trx, append) => {
      const existing = await sources.findSource(trx, body.key);
      let saved: KnowledgeSourceRow;
      if (existing === undefined) {
        saved = {
          key: body.key,
          title: body.key,
          tier: 'unverified',
          owner: null,
          domain: null,
          updated_at_source: null,
          freshness_sla_hours: null,
          deprecated: 0,
          metadata: '{}',
          created_by: actor,
          created_at: at,
          updated_at: at,
          last_cited_at: null,
          validated_at: null,
          validation: null,
          validation_ok: null,
          ...declared,
        };
        await sources.insertSource(trx, saved);
      } else {
        saved = { ...existing, ...declared, updated_at: at };
        await sources.updateSource(trx, body.key, { ...declared, updated_at: at });
      }
      await append({ actor, action: 'source.saved', target: body.key, detail: { key: body.key, created: existing === undefined, changed: Object.keys(declared).sort(), tier: saved.tier } });
      return { created: existing === undefined, row: saved, connection: await sources.findConnection(trx, body.key) };
    });
    return { created, source: sourceToWire(row, connection, clock.now()) };
  }

  /** Deprecates the source, or with `hard` deletes it and its connection. */
  async remove(caller: Principal, key: string, hard: boolean): Promise<SourceView | { key: string; deleted: true }> {
    const { audit, clock } = this.deps;
    const actor = actorOf(caller);
    const at = clock.now().toISOString();
    return audit.transact(async (trx, append) => {
      const existing = await sources.findSource(trx, key);
      if (existing === undefined) throw notFound('source', key);
      if (hard) {
        await sources.deleteSource(trx, key);
        await append({ actor, action: 'source.deleted', target: key, detail: { key, tier: existing.tier } });
        return { key, deleted: true as const };
      }
      await sources.updateSource(trx, key, { deprecated: 1, updated_at: at });
      await append({ actor, action: 'source.deprecated', target: key, detail: { key, tier: existing.tier } });
      return sourceToWire({ ...existing, deprecated: 1, updated_at: at }, await sources.findConnection(trx, key), clock.now());
    });
  }

  /** Saves the connection of a registered source; the credential is sealed before it is stored and never answered. */
  async saveConnection(caller: Principal, body: SaveConnectionBody): Promise<{ created: boolean; connection: ConnectionView }> {
    const { audit, clock, sealer } = this.deps;
    const config = storableValue(normaliseConfig(body.kind, body.config ?? {}));
    // Sealed here, before anything else sees it: only the sealed form goes further.
    const sealed = body.credential === undefined ? undefined : body.credential === null ? null : sealer.seal(body.credential);
    const actor = actorOf(caller);
    const at = clock.now().toISOString();
    return audit.transact(async (trx, append) => {
      if ((await sources.findSource(trx, body.key)) === undefined) throw notFound('source', body.key);
      const existing = await sources.findConnection(trx, body.key);
      let row: SourceConnectionRow;
      if (existing === undefined) {
        row = { key: body.key, kind: body.kind, config: writeJson(config), credential: sealed ?? null, created_by: actor, created_at: at, updated_at: at, last_error: null };
        await sources.insertConnection(trx, row);
      } else {
        // A new config may reach another system: an earlier error says nothing about it.
        const patch = { kind: body.kind, config: writeJson(config), updated_at: at, last_error: null, ...(sealed === undefined ? {} : { credential: sealed }) };
        row = { ...existing, ...patch };
        await sources.updateConnection(trx, body.key, patch);
      }
      await append({
        actor,
        action: 'source.connection_saved',
        target: body.key,
        detail: { key: body.key, kind: body.kind, config, credential_set: row.credential !== null, credential_changed: sealed !== undefined },
      });
      return { created: existing === undefined, connection: connectionToWire(row) };
    });
  }

  /** Reads the source's real content through its connection and records what it saw; failures are answers. */
  async validate(caller: Principal, key: string): Promise<ValidateResult> {
    const { store, audit, clock, sealer } = this.deps;
    const source = await sources.findSource(store.db, key);
    if (source === undefined) throw notFound('source', key);
    const connection = await sources.findConnection(store.db, key);
    if (connection === undefined) throw problem('conflict', `source ${key} has no connection: POST /api/sources/connections first`);
    let credential: string | null = null;
    let unsealError: string | null = null;
    if (connection.credential !== null) {
      try {
        credential = sealer.unseal(connection.credential);
      } catch (error) {
        unsealError = `the stored credential cannot be read: ${(error as Error).message}`;
      }
    }
    const kind = connection.kind as ConnectionKind;
    const probe =
      unsealError === null
        ? await probeSource(kind, readJsonObject(connection.config) as StoredConfig, credential)
        : { ok: false, connectionError: unsealError, saw: { kind, connected: false, duration_ms: 0, reason: unsealError } satisfies ValidationSaw };
    const saw = storableValue(probe.saw);
    const validatedAt = clock.now().toISOString();
    await audit.transact(async (trx, append) => {
      // Deleted meanwhile: nothing to record it on.
      if ((await sources.findSource(trx, key)) === undefined) throw notFound('source', key);
      const freshest = saw.freshest ?? null;
      await sources.updateSource(trx, key, {
        validated_at: validatedAt,
        validation: writeJson(saw),
        validation_ok: probe.ok ? 1 : 0,
        ...(freshest === null ? {} : { updated_at_source: freshest }),
      });
      await sources.updateConnection(trx, key, { last_error: probe.connectionError === null ? null : storableText(probe.connectionError) });
      await append({ actor: actorOf(caller), action: 'source.validated', target: key, detail: { key, ok: probe.ok, saw } });
    });
    return { key, ok: probe.ok, saw, validated_at: validatedAt };
  }

  async health(): Promise<Health> {
    const { db } = this.deps.store;
    const [rows, connections] = await Promise.all([sources.listSources(db, {}), sources.listConnections(db)]);
    const byKey = new Map(connections.map((connection) => [connection.key, connection]));
    const now = this.deps.clock.now();
    const counts = { sources: rows.length, healthy: 0, ...Object.fromEntries(HEALTH_PROBLEMS.map((code) => [code, 0])) } as Health['counts'];
    const items: Health['items'] = [];
    for (const row of rows) {
      const problems = problemsOf(row, byKey.get(row.key), now);
      if (problems.length === 0) {
        counts.healthy += 1;
        continue;
      }
      for (const found of problems) counts[found.code] += 1;
      items.push({ key: row.key, tier: row.tier as SourceTier, problems });
    }
    return { items, counts };
  }
}

/** What is wrong with one source, in the order of HEALTH_PROBLEMS. */
function problemsOf(row: KnowledgeSourceRow, connection: SourceConnectionRow | undefined, now: Date): Array<{ code: HealthProblemCode; detail: string }> {
  const problems: Array<{ code: HealthProblemCode; detail: string }> = [];
  if (isStale(row, now)) {
    problems.push({
      code: 'stale',
      detail:
        row.updated_at_source === null
          ? `freshness SLA ${row.freshness_sla_hours} h, but when the content last changed is unknown`
          : `last changed ${row.updated_at_source}, more than the ${row.freshness_sla_hours} h freshness SLA ago`,
    });
  }
  // Cited after it was deprecated (the deprecation is the row's last update).
  if (Number(row.deprecated) === 1 && row.last_cited_at !== null && row.last_cited_at > row.updated_at) {
    problems.push({ code: 'deprecated_cited', detail: `deprecated, yet cited at ${row.last_cited_at}` });
  }
  if (row.validated_at === null && (connection !== undefined || row.tier === 'system_of_record')) {
    problems.push({
      code: 'unvalidated',
      detail: connection === undefined ? 'a system of record without a connection: its content was never checked' : 'never validated against its connection',
    });
  }
  if (connection?.last_error !== null && connection?.last_error !== undefined) problems.push({ code: 'connection_failing', detail: connection.last_error });
  else if (row.validation_ok !== null && Number(row.validation_ok) === 0) {
    const reason = readJson<{ reason?: unknown }>(row.validation, {}).reason;
    problems.push({ code: 'validation_failed', detail: typeof reason === 'string' ? reason : 'the last validation failed' });
  }
  return problems;
}

/** With a freshness SLA: the content is older than it, or its age is unknown. */
function isStale(row: KnowledgeSourceRow, now: Date): boolean {
  if (row.freshness_sla_hours === null) return false;
  if (row.updated_at_source === null) return true;
  return now.getTime() - Date.parse(row.updated_at_source) > Number(row.freshness_sla_hours) * HOUR_MS;
}

function sourceToWire(row: KnowledgeSourceRow, connection: SourceConnectionRow | undefined, now: Date): SourceView {
  return {
    key: row.key,
    title: row.title,
    tier: row.tier as SourceTier,
    owner: row.owner,
    domain: row.domain,
    updated_at_source: row.updated_at_source,
    freshness_sla_hours: row.freshness_sla_hours === null ? null : Number(row.freshness_sla_hours),
    deprecated: Number(row.deprecated) === 1,
    metadata: readJsonObject(row.metadata),
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_cited_at: row.last_cited_at,
    validated_at: row.validated_at,
    validation: row.validation === null ? null : readJson<ValidationSaw | null>(row.validation, null),
    validation_ok: row.validation_ok === null ? null : Number(row.validation_ok) === 1,
    stale: isStale(row, now),
    connection: connection === undefined ? null : connectionToWire(connection),
  };
}

/** A connection as answered: never the credential, only whether one is stored. */
function connectionToWire(row: SourceConnectionRow): ConnectionView {
  return {
    key: row.key,
    kind: row.kind as ConnectionKind,
    config: readJsonObject(row.config),
    credential_set: row.credential !== null,
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function isoOf(text: string): string {
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw problem('invalid-request', 'updated_at_source is not a date-time', [{ field: '/body/updated_at_source', message: 'must be an ISO 8601 date-time' }]);
  return new Date(time).toISOString();
}

function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return 1 + deepest;
}

function checkMetadata(metadata: object): void {
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) {
    throw problem('invalid-request', `metadata is larger than ${MAX_METADATA_BYTES} bytes as JSON`, [{ field: '/body/metadata', message: `at most ${MAX_METADATA_BYTES} bytes` }]);
  }
  if (depthOf(metadata) > MAX_METADATA_DEPTH) {
    throw problem('invalid-request', `metadata is nested more than ${MAX_METADATA_DEPTH} levels deep`, [{ field: '/body/metadata', message: `at most ${MAX_METADATA_DEPTH} levels` }]);
  }
}
