// Computed views of one agent (lineage, posture) and its protections (spec 02 "Agents"). Reads are
// computed from the tables on every request; a protection change is audited in the same
// transaction, marks the registry revision and reloads this process's directory before answering.
import { isHighImpact } from '../service.js';
import { actorOf, type Principal } from '../../../infra/auth/principal.js';
import type { AuditLog } from '../../audit/log.js';
import { limitsOf, type RegistryDirectory } from '../directory.js';
import { bumpRevision } from '../store.js';
import { ownerOf } from '../service.js';
import { findingType } from '../../../engine/findings/catalog.js';
import { fingerprint } from '../../../engine/findings/fingerprint.js';
import { notFound, problem, type FieldError } from '../../../infra/http/problems.js';
import type { Clock } from '../../../infra/lib/clock.js';
import type { FindingUpsert, Recorder } from '../../../engine/recording/recorder.js';
import type { Store } from '../../../infra/store/db.js';
import { readJsonObject, writeJson } from '../../../infra/store/json-columns.js';
import type { AgentRow } from '../../../infra/store/tables.js';
import { MAX_DELEGATION_DEPTH, walkLineage, type DelegationEdge } from './lineage.js';
import { scorePosture } from './posture.js';
import { matchProtection, protectionsOf } from '../../../engine/pipeline/protection-match.js';
import type { Protection, ProtectionBody } from './schemas.js';
import * as views from './store.js';

const DAY_MS = 86_400_000;
/** Agent messages older than this say nothing about how agents delegate today. */
export const LINEAGE_DAYS = 30;
/** Edges loaded per lineage read, both directions together. */
export const MAX_LINEAGE_EDGES = 1000;
/** Findings raised per lineage read: a tangle of agents must not flood the findings queue. */
const MAX_CYCLE_FINDINGS = 20;
export const PREVIEW_DAYS = 7;
export const PREVIEW_MAX_ROWS = 5000;
const PREVIEW_PAGE = 100;
/** Characters replayed per preview: a viewer's request must not scan gigabytes of recorded text. */
const PREVIEW_MAX_CHARS = 50_000_000;
/** The event loop is let go after this many characters scanned, so other requests keep being answered. */
const PREVIEW_YIELD_CHARS = 1_000_000;
const PREVIEW_EXAMPLES = 20;
/** Fields of the body stored beside the protections keys in the one `protections` JSON object. */
const TEXT_FIELDS = ['message', 'words', 'avoid', 'allowed'] as const;
const MAX_TOPIC_CHARS = 100;

export interface AgentViewServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  recorder: Recorder;
  directory: RegistryDirectory;
}

export class AgentViewService {
  constructor(private readonly deps: AgentViewServiceDeps) {}

  // Lineage -----------------------------------------------------------------------------------

  /**
   * Delegation chains through the agent from the last LINEAGE_DAYS of agent messages. Raises
   * `delegation_depth` when the deepest chain exceeds MAX_DELEGATION_DEPTH hops and
   * `delegation_cycle` per loop; reading twice adds occurrences to the same findings.
   */
  async lineage(slug: string, depth: number) {
    const agent = await this.require(slug);
    const since = this.daysAgo(LINEAGE_DAYS);
    const edges = new Map<string, DelegationEdge>();
    let truncated = false;
    // Breadth first each way, one query per level, so only the edges near the agent are loaded.
    for (const side of ['from', 'to'] as const) {
      const expanded = new Set([slug]);
      let frontier = [slug];
      for (let level = 0; level < depth && frontier.length > 0; level++) {
        const room = MAX_LINEAGE_EDGES - edges.size;
        if (room <= 0) {
          truncated = true;
          break;
        }
        const loaded = await views.messageEdges(this.deps.store.db, side, frontier, since, room + 1);
        if (loaded.length > room) truncated = true;
        const next: string[] = [];
        for (const edge of loaded.slice(0, room)) {
          edges.set(`${edge.from}\u0000${edge.to}`, edge);
          const other = side === 'from' ? edge.to : edge.from;
          if (!expanded.has(other)) {
            expanded.add(other);
            next.push(other);
          }
        }
        frontier = next;
      }
    }
    const edgeList = [...edges.values()].sort((a, b) => (a.from === b.from ? a.to.localeCompare(b.to) : a.from.localeCompare(b.from)));
    const lineage = walkLineage(slug, edgeList, depth);
    this.raiseLineage(agent, lineage.max_depth, lineage.deepest, lineage.cycles);
    return {
      agent: slug,
      depth,
      days: LINEAGE_DAYS,
      upstream: lineage.upstream,
      downstream: lineage.downstream,
      edges: edgeList,
      max_depth: lineage.max_depth,
      max_allowed_depth: MAX_DELEGATION_DEPTH,
      cycles: lineage.cycles,
      truncated: truncated || lineage.truncated,
    };
  }

  private raiseLineage(agent: AgentRow, maxDepth: number, deepest: string[], cycles: string[][]): void {
    const registered = agent.status === 'approved';
    const subject = registered ? `agent:${agent.slug}` : 'agent:None';
    const at = this.now();
    const finding = (type: string, slugs: string[], title: string, evidence: Record<string, unknown>): FindingUpsert => ({
      fingerprint: fingerprint(type, subject, [...new Set(slugs)].sort()),
      type,
      severity: findingType(type).default_severity,
      title,
      subject,
      agent: registered ? agent.slug : null,
      at,
      evidence: { ...evidence, agent: agent.slug },
      decisionId: null,
    });
    const findings: FindingUpsert[] = [];
    if (maxDepth > MAX_DELEGATION_DEPTH) {
      findings.push(
        finding('delegation_depth', deepest, `Delegation ${maxDepth} hops deep through ${agent.slug}: ${deepest.join(' → ')}`, {
          chain: deepest,
          depth: maxDepth,
          limit: MAX_DELEGATION_DEPTH,
        }),
      );
    }
    for (const cycle of cycles.slice(0, MAX_CYCLE_FINDINGS)) {
      findings.push(finding('delegation_cycle', cycle, `Delegation cycle seen from ${agent.slug}: ${cycle.join(' → ')}`, { cycle }));
    }
    this.deps.recorder.raise(findings);
  }

  // Posture -----------------------------------------------------------------------------------

  /** A computed summary of the agent's grants, credentials, keys, decisions and findings, scored (see scorePosture). */
  async posture(slug: string) {
    const agent = await this.require(slug);
    const db = this.deps.store.db;
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const inAWeek = new Date(now.getTime() + 7 * DAY_MS).toISOString();
    const [grants, credentials, signingKey, sendsMessages, verdicts, open] = await Promise.all([
      views.grantsOf(db, slug),
      views.credentialsOf(db, slug),
      views.hasSigningKey(db, slug, nowIso),
      views.sentMessagesSince(db, slug, this.daysAgo(LINEAGE_DAYS)),
      views.verdictCounts(db, slug, this.daysAgo(7)),
      views.openFindingCounts(db, slug),
    ]);
    const impacts = await views.toolImpacts(db, grants.map((grant) => grant.tool_key));
    const highImpact = (tool: string) => isHighImpact(tool, impacts.get(tool) ?? null);
    // The * grant is scored once, as a wildcard, not again as a high-impact tool.
    const highImpactWithoutMaxTaint = grants
      .filter((grant) => grant.tool_key !== '*' && grant.max_taint === null && highImpact(grant.tool_key))
      .map((grant) => grant.tool_key);
    const active = credentials.filter((row) => row.revoked_at === null && (row.expires_at === null || row.expires_at > nowIso));
    const owner = ownerOf(agent);
    const openCount = (severity: string) => open.get(severity) ?? 0;
    const { score, grade, gaps } = scorePosture({
      registered: agent.status === 'approved',
      control: agent.control,
      owner,
      wildcardGrants: grants.filter((grant) => grant.tool_key === '*').length,
      highImpactWithoutMaxTaint,
      openCritical: openCount('critical'),
      openHigh: openCount('high'),
      signingKey,
      sendsMessages,
    });
    return {
      agent: slug,
      registered: agent.status === 'approved',
      status: agent.status,
      control: agent.control,
      owner,
      risk_tier: agent.risk_tier,
      grants: {
        total: grants.length,
        wildcard: grants.filter((grant) => grant.tool_key === '*').length,
        requiring_approval: grants.filter((grant) => grant.requires_approval === 1).length,
        without_max_taint: grants.filter((grant) => grant.max_taint === null).length,
      },
      credentials: {
        active: active.length,
        expiring_within_7_days: active.filter((row) => row.expires_at !== null && row.expires_at <= inAWeek).length,
        never_used: active.filter((row) => row.last_used_at === null).length,
      },
      signing_key: signingKey,
      decisions_7d: { allow: verdicts.get('allow') ?? 0, block: verdicts.get('block') ?? 0, escalate: verdicts.get('escalate') ?? 0 },
      open_findings: { critical: openCount('critical'), high: openCount('high'), medium: openCount('medium'), low: openCount('low') },
      score,
      grade,
      gaps,
    };
  }

  // Protections -------------------------------------------------------------------------------

  async protection(slug: string): Promise<Protection> {
    const agent = await this.require(slug);
    return protectionToWire(slug, readJsonObject(agent.protections));
  }

  /** Merges the body into the agent's protections; only a registered (approved) agent has them. */
  async setProtection(caller: Principal, slug: string, body: ProtectionBody): Promise<Protection> {
    const agent = await this.require(slug);
    if (agent.status !== 'approved') {
      throw problem('conflict', `agent ${slug} is ${agent.status}; register or approve it before setting its protections`);
    }
    checkProtectionBody(body);
    const now = this.now();
    const stored = await this.deps.audit.transact(async (trx, append) => {
      // Read again under the audit lock: two changes at once must not drop each other's keys.
      const current = await views.findProtections(trx, slug);
      if (current === undefined) throw notFound('agent', slug);
      const merged = mergeProtections(readJsonObject(current.protections), body);
      await views.setProtections(trx, slug, writeJson(merged), now);
      await bumpRevision(trx, now);
      await append({ actor: actorOf(caller), action: 'agent.protection', target: slug, detail: { changes: body } });
      return merged;
    });
    await this.deps.directory.reload();
    return protectionToWire(slug, stored);
  }

  /**
   * Replays the agent's recorded input and output of the last PREVIEW_DAYS against the protections
   * the body would produce, as if they were enforced; nothing is stored.
   */
  async previewProtection(slug: string, body: ProtectionBody) {
    const agent = await this.require(slug);
    checkProtectionBody(body);
    const settings = protectionsOf(mergeProtections(readJsonObject(agent.protections), body));
    const since = this.daysAgo(PREVIEW_DAYS);
    const result = {
      agent: slug,
      days: PREVIEW_DAYS,
      replayed: 0,
      skipped_without_content: 0,
      would_block: 0,
      newly_blocked: 0,
      truncated: false,
      examples: [] as Array<{ decision_id: string; surface: string; term: string; verdict_then: string }>,
    };
    let seen = 0;
    let scanned = 0;
    let sinceYield = 0;
    let before: { at: string; id: string } | null = null;
    replay: while (seen < PREVIEW_MAX_ROWS) {
      const page = await views.recordedTexts(this.deps.store.db, slug, since, before, Math.min(PREVIEW_PAGE, PREVIEW_MAX_ROWS - seen));
      for (const row of page) {
        if (row.content === null) {
          result.skipped_without_content += 1;
          continue;
        }
        if (scanned + row.content.length > PREVIEW_MAX_CHARS) {
          result.truncated = true;
          break replay;
        }
        scanned += row.content.length;
        sinceYield += row.content.length;
        if (sinceYield >= PREVIEW_YIELD_CHARS) {
          sinceYield = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
        result.replayed += 1;
        const match = matchProtection(settings, row.content);
        if (match === null) continue;
        result.would_block += 1;
        if (row.verdict !== 'block') result.newly_blocked += 1;
        if (result.examples.length < PREVIEW_EXAMPLES) {
          result.examples.push({ decision_id: row.id, surface: row.surface, term: match.term, verdict_then: row.verdict });
        }
      }
      seen += page.length;
      const last = page.at(-1);
      if (last === undefined || page.length < PREVIEW_PAGE) break;
      before = { at: last.at, id: last.id };
    }
    if (!result.truncated && seen >= PREVIEW_MAX_ROWS && before !== null) {
      result.truncated = (await views.recordedTexts(this.deps.store.db, slug, since, before, 1)).length > 0;
    }
    return result;
  }

  // Helpers -----------------------------------------------------------------------------------

  private async require(slug: string): Promise<AgentRow> {
    const row = await views.findAgent(this.deps.store.db, slug);
    if (row === undefined) throw notFound('agent', slug);
    return row;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  private daysAgo(days: number): string {
    return new Date(this.deps.clock.now().getTime() - days * DAY_MS).toISOString();
  }
}

/** Checks what the body's schema cannot say: reserved keys and comma-separated topic words. */
function checkProtectionBody(body: ProtectionBody): void {
  const errors: FieldError[] = [];
  for (const key of TEXT_FIELDS) {
    if (body.protections !== undefined && body.protections !== null && Object.hasOwn(body.protections, key)) {
      errors.push({ field: `/body/protections/${key}`, message: `set ${key} as its own body field, not inside protections` });
    }
  }
  for (const key of ['avoid', 'allowed'] as const) {
    const value = body[key];
    if (value === undefined || value === null) continue;
    const topics = value.split(',').map((topic) => topic.trim());
    if (topics.some((topic) => topic.length === 0 || topic.length > MAX_TOPIC_CHARS)) {
      errors.push({ field: `/body/${key}`, message: `must be comma-separated topic words of 1 to ${MAX_TOPIC_CHARS} characters each` });
    }
  }
  if (errors.length > 0) throw problem('invalid-request', errors.map((error) => `${error.field} ${error.message}`).join('; '), errors);
}

/**
 * The stored object after the body: protections keys at the top level beside message, words,
 * avoid and allowed. Absent fields keep what is stored; null removes (for `protections`, every
 * key; inside it, that key).
 */
export function mergeProtections(current: Record<string, unknown>, body: ProtectionBody): Record<string, unknown> {
  const merged = { ...current };
  if (body.protections === null) {
    for (const key of Object.keys(merged)) if (!(TEXT_FIELDS as readonly string[]).includes(key)) delete merged[key];
  } else if (body.protections !== undefined) {
    for (const [key, value] of Object.entries(body.protections)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
  }
  for (const key of TEXT_FIELDS) {
    const value = body[key];
    if (value === null) delete merged[key];
    else if (value !== undefined) merged[key] = value;
  }
  return merged;
}

function protectionToWire(slug: string, stored: Record<string, unknown>): Protection {
  const protections: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) if (!(TEXT_FIELDS as readonly string[]).includes(key)) protections[key] = value;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const limits = limitsOf(stored);
  return {
    agent: slug,
    protections,
    message: text(stored.message),
    words: Array.isArray(stored.words) ? stored.words.filter((word): word is string => typeof word === 'string') : [],
    avoid: text(stored.avoid),
    allowed: text(stored.allowed),
    limits: {
      max_tool_calls_per_hour: limits.maxToolCallsPerHour,
      loop_threshold: limits.loopThreshold,
      loop_window_seconds: limits.loopWindowSeconds,
      max_calls_per_day: limits.maxCallsPerDay,
      max_cost_usd_per_day: limits.maxCostUsdPerDay,
    },
  };
}
