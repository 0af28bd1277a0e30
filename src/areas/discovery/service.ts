// Discovery (spec 02 "Tools, MCP, discovery, monitors, imports"): the agents a company runs without
// registering them, found in traffic (decisions), OTLP spans and code (code-host scans and external
// scanners' submissions). GET /api/discovery/shadow lists them with where they were seen, their
// volume and tools, and the request that registers each; POST /api/discovery/scan queues code-host
// scans of the connected repositories and raises shadow_agent findings for the agents that have
// none; POST /api/discovery/submit stores an external scanner's results as code sites.
import { findingType } from '../../engine/findings/catalog.js';
import { fingerprint } from '../../engine/findings/fingerprint.js';
import type { FindingUpsert, Recorder } from '../../engine/recording/recorder.js';
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { storableText, storableValue } from '../../infra/lib/storable-text.js';
import type { Store } from '../../infra/store/db.js';
import { writeJson } from '../../infra/store/json-columns.js';
import type { DiscoverySiteRow } from '../../infra/store/tables.js';
import type { AuditLog } from '../audit/log.js';
import type { CodehostScanning } from '../integrations/contracts.js';
import { MAX_SITE_DETAIL_BYTES, type DiscoveryScan, type SeenIn, type ShadowAgent, type ShadowList, type ShadowQuery, type SubmitBody } from './schemas.js';
import * as discovery from './store.js';

const DAY_MS = 86_400_000;
export const DEFAULT_WINDOW_DAYS = 30;
/** Shadow agents answered at most; each source is read up to this many agents too. */
export const MAX_SHADOW_AGENTS = 500;
/** Repositories a discovery scan queues at most. */
export const MAX_DISCOVERY_REPOS = 50;
const MAX_LOCATIONS = 20;
const MAX_TOOLS = 50;
const MAX_SURFACES = 20;
const MAX_REASON_CHARS = 300;
/** The subject the decision pipeline gives an unregistered agent's findings (src/engine/pipeline/findings.ts). */
const SHADOW_SUBJECT = 'agent:None';
const SEEN_ORDER: readonly SeenIn[] = ['traffic', 'spans', 'code', 'submitted'];

export interface DiscoveryServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  recorder: Recorder;
  codehost: CodehostScanning;
}

export class DiscoveryService {
  constructor(readonly deps: DiscoveryServiceDeps) {}

  /** Agents seen in traffic, spans or code within the window that are not approved in the registry. */
  async shadow(query: ShadowQuery): Promise<ShadowList> {
    const { db } = this.deps.store;
    const windowDays = query.window_days ?? DEFAULT_WINDOW_DAYS;
    const since = new Date(this.deps.clock.now().getTime() - windowDays * DAY_MS).toISOString();
    const [traffic, spans, code] = await Promise.all([
      discovery.trafficAgents(db, since, MAX_SHADOW_AGENTS),
      discovery.spanAgents(db, since, MAX_SHADOW_AGENTS),
      discovery.codeAgents(db, since, MAX_SHADOW_AGENTS * 2),
    ]);
    const entries = new Map<string, ShadowAgent>();
    const entryOf = (agent: string, first: string, last: string): ShadowAgent => {
      let entry = entries.get(agent);
      if (entry === undefined) {
        entry = {
          agent,
          seen_in: [],
          calls: 0,
          spans: 0,
          sites: 0,
          tools: [],
          surfaces: [],
          first_seen_at: first,
          last_seen_at: last,
          locations: [],
          register: { method: 'POST', path: '/api/agents', body: { slug: slugFor(agent), name: agent.slice(0, 200) } },
        };
        entries.set(agent, entry);
      }
      if (first < entry.first_seen_at) entry.first_seen_at = first;
      if (last > entry.last_seen_at) entry.last_seen_at = last;
      return entry;
    };
    const see = (entry: ShadowAgent, where: SeenIn) => {
      if (!entry.seen_in.includes(where)) entry.seen_in.push(where);
    };
    for (const row of traffic) {
      const entry = entryOf(row.agent, row.first_seen_at, row.last_seen_at);
      entry.calls += row.count;
      see(entry, 'traffic');
    }
    for (const row of spans) {
      const entry = entryOf(row.agent, row.first_seen_at, row.last_seen_at);
      entry.spans += row.count;
      see(entry, 'spans');
    }
    for (const row of code) {
      const entry = entryOf(row.agent, row.first_seen_at, row.last_seen_at);
      entry.sites += row.count;
      see(entry, row.origin === 'submit' ? 'submitted' : 'code');
    }
    // A name that is not a slug (a repository, a service name) is registered under its slug form.
    const registered = await discovery.approvedAmong(db, [...new Set([...entries.values()].map((entry) => entry.register.body.slug))]);
    const ranked = [...entries.values()]
      .filter((entry) => !registered.has(entry.register.body.slug))
      .sort((a, b) => (a.last_seen_at === b.last_seen_at ? (a.agent < b.agent ? -1 : 1) : a.last_seen_at > b.last_seen_at ? -1 : 1));
    const items = ranked.slice(0, MAX_SHADOW_AGENTS);
    const inTraffic = items.filter((entry) => entry.calls > 0).map((entry) => entry.agent);
    const inCode = items.filter((entry) => entry.sites > 0).map((entry) => entry.agent);
    const [tools, surfaces, locations] = await Promise.all([
      discovery.trafficValues(db, since, inTraffic, 'tool', MAX_SHADOW_AGENTS * MAX_TOOLS),
      discovery.trafficValues(db, since, inTraffic, 'surface', MAX_SHADOW_AGENTS * MAX_SURFACES),
      discovery.codeLocations(db, since, inCode, MAX_LOCATIONS),
    ]);
    const byAgent = new Map(items.map((entry) => [entry.agent, entry]));
    for (const row of tools) {
      const entry = byAgent.get(row.agent);
      if (entry !== undefined && entry.tools.length < MAX_TOOLS) entry.tools.push(row.value);
    }
    for (const row of surfaces) {
      const entry = byAgent.get(row.agent);
      if (entry !== undefined && entry.surfaces.length < MAX_SURFACES) entry.surfaces.push(row.value);
    }
    for (const { agent, ...location } of locations) {
      const entry = byAgent.get(agent);
      if (entry !== undefined && entry.locations.length < MAX_LOCATIONS) entry.locations.push(location);
    }
    for (const entry of items) entry.seen_in.sort((a, b) => SEEN_ORDER.indexOf(a) - SEEN_ORDER.indexOf(b));
    return { window_days: windowDays, since, items, truncated: ranked.length > MAX_SHADOW_AGENTS };
  }

  /**
   * Queues a code-host scan of each connected repository (at most 50) and raises a shadow_agent
   * finding for each shadow agent that has none yet, under the pipeline's fingerprint (type,
   * `agent:None`, the name), so traffic, spans and code raise one finding per agent.
   */
  async scan(caller: Principal): Promise<DiscoveryScan> {
    const { codehost, audit, recorder, clock } = this.deps;
    const actor = actorOf(caller);
    const connected = await codehost.connected();
    const queued: DiscoveryScan['codehost']['queued'] = [];
    const failed: DiscoveryScan['codehost']['failed'] = [];
    let error: string | null = null;
    if (connected) {
      let repos: string[] = [];
      try {
        repos = (await codehost.listRepoNames(MAX_DISCOVERY_REPOS)).slice(0, MAX_DISCOVERY_REPOS);
      } catch (listing) {
        error = reasonOf(listing);
      }
      for (const repo of repos) {
        try {
          const { scan_id } = await codehost.queueScan({ repo_full_name: repo, trigger: 'discovery', requested_by: actor });
          queued.push({ repo_full_name: repo, scan_id });
        } catch (queueing) {
          failed.push({ repo_full_name: repo, reason: reasonOf(queueing) });
        }
      }
    }
    const shadow = await this.shadow({ window_days: DEFAULT_WINDOW_DAYS });
    const candidates = shadow.items.map((entry) => ({ entry, fingerprint: fingerprint('shadow_agent', SHADOW_SUBJECT, [entry.agent]) }));
    const existing = await discovery.existingFingerprints(this.deps.store.db, candidates.map((candidate) => candidate.fingerprint));
    const at = clock.now().toISOString();
    const findings: FindingUpsert[] = candidates
      .filter((candidate) => !existing.has(candidate.fingerprint))
      .map(({ entry, fingerprint: print }) => ({
        fingerprint: print,
        type: 'shadow_agent',
        severity: findingType('shadow_agent').default_severity,
        title: `Unregistered agent ${entry.agent} seen in ${entry.seen_in.join(', ')}`,
        subject: SHADOW_SUBJECT,
        agent: null,
        at,
        evidence: {
          agent_name: entry.agent,
          seen_in: entry.seen_in,
          calls: entry.calls,
          spans: entry.spans,
          sites: entry.sites,
          locations: entry.locations.slice(0, 5),
          register: entry.register,
          raised_by: 'discovery',
        },
        decisionId: null,
      }));
    recorder.raise(findings);
    await audit.transact(async (_trx, append) => {
      await append({
        actor,
        action: 'discovery.scanned',
        target: null,
        detail: { connected, queued: queued.map((item) => item.repo_full_name), failed: failed.length, error, shadow_agents: shadow.items.length, findings_raised: findings.length },
      });
    });
    return { codehost: { connected, queued, failed, error }, shadow_agents: shadow.items.length, findings_raised: findings.length };
  }

  /** Stores an external scanner's results: the submission and its sites (origin `submit`, location = source). */
  async submit(caller: Principal, body: SubmitBody): Promise<{ id: string; sites: number }> {
    const { audit, clock } = this.deps;
    const sites = body.sites ?? [];
    sites.forEach((site, index) => {
      if (site.detail !== undefined && Buffer.byteLength(JSON.stringify(site.detail), 'utf8') > MAX_SITE_DETAIL_BYTES) {
        throw problem('invalid-request', `sites[${index}].detail is larger than ${MAX_SITE_DETAIL_BYTES} bytes as JSON`, [
          { field: `/body/sites/${index}/detail`, message: `at most ${MAX_SITE_DETAIL_BYTES} bytes as JSON` },
        ]);
      }
    });
    const actor = actorOf(caller);
    const at = clock.now().toISOString();
    const id = newId('dsub');
    const source = storableText(body.source);
    const rows: DiscoverySiteRow[] = sites.map((site) => ({
      id: newId('dsite'),
      origin: 'submit',
      location: source,
      path: site.path === undefined || site.path === null ? null : storableText(site.path),
      line: site.line ?? null,
      kind: site.kind,
      name: storableText(site.name),
      agent_hint: site.agent === undefined || site.agent === null ? null : storableText(site.agent),
      detail: writeJson(storableValue(site.detail ?? {})),
      scan_id: null,
      submission_id: id,
      first_seen_at: at,
      last_seen_at: at,
    }));
    const frameworks = storableValue(body.frameworks ?? []);
    await audit.transact(async (trx, append) => {
      await discovery.insertSubmission(trx, {
        id,
        source,
        label: body.label === undefined || body.label === null ? null : storableText(body.label),
        files_scanned: body.files_scanned ?? null,
        frameworks: writeJson(frameworks),
        coverage: body.coverage ?? null,
        counts: writeJson(storableValue(body.counts ?? {})),
        sites: rows.length,
        submitted_by: actor,
        created_at: at,
      });
      await discovery.insertSites(trx, rows);
      await append({
        actor,
        action: 'discovery.submitted',
        target: id,
        detail: { source, files_scanned: body.files_scanned ?? null, coverage: body.coverage ?? null, frameworks: frameworks.length, sites: rows.length },
      });
    });
    return { id, sites: rows.length };
  }
}

/**
 * The slug an agent name registers under (`^[a-z0-9][a-z0-9._-]{0,63}$`): lower-cased, other
 * characters turned into `-`, repeated dashes folded, cut to 64.
 */
export function slugFor(name: string): string {
  let slug = '';
  for (const char of name.toLowerCase()) {
    const keep = (char >= 'a' && char <= 'z') || (char >= '0' && char <= '9') || char === '.' || char === '_' || char === '-';
    const next = keep ? char : '-';
    if (next === '-' && (slug === '' || slug.endsWith('-'))) continue;
    if (slug === '' && !((next >= 'a' && next <= 'z') || (next >= '0' && next <= '9'))) continue;
    slug += next;
    if (slug.length >= 64) break;
  }
  while (slug.endsWith('-')) slug = slug.slice(0, -1);
  return slug === '' ? 'agent' : slug;
}

function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return storableText(text.slice(0, MAX_REASON_CHARS));
}
