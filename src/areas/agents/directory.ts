// The registry as the decision pipeline sees it: every agent with its grants, control state and
// limits, and every registered tool, held in memory so that a check costs a map lookup. Every change to agents or grants
// writes a new revision into `meta`. The process that made the change reloads at once and announces
// it on the change bus (topic `agents`), and every other process re-reads on that message
// (`refresh`); each process also reads that one row every SYNC_MS and reloads when it moved, so a
// kill or quarantine reaches every process sharing the database even while the bus is away.
//
// Agents seen in traffic are noted in memory and written in one batch per tick: an unknown name
// becomes a `pending` agent an operator can approve, a known one gets its last-seen time and the
// tools it used (registry drift).
import { protectionsOf } from '../../engine/pipeline/protection-match.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import {
  DEFAULT_LIMITS,
  UNKNOWN_AGENT,
  taintLevel,
  type AgentDirectory,
  type AgentFacts,
  type AgentLimits,
  type Grant,
  type ToolFacts,
} from '../../engine/pipeline/agents.js';
import type { Store } from '../../infra/store/db.js';
import type { ChangePublisher } from '../../infra/store/notify.js';
import { readJsonObject, readJsonStrings, writeJson } from '../../infra/store/json-columns.js';
import type { AgentRow, CapabilityRow } from '../../infra/store/tables.js';
import { findSighting, insertSeenAgent, loadAgents, loadCapabilities, loadTools, readRevision, updateSighting } from './store.js';

const SYNC_MS = 500;
/** New names taken from traffic per tick: a flood of invented names cannot flood the registry. */
const MAX_NEW_PER_TICK = 200;
const SLUG = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Limits from an agent's protections object (POST /api/agents/{slug}/protection). */
export function limitsOf(protections: Record<string, unknown>): AgentLimits {
  const positive = (value: unknown, fallback: number | null) =>
    typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : fallback;
  return {
    maxToolCallsPerHour: positive(protections.max_tool_calls_per_hour, DEFAULT_LIMITS.maxToolCallsPerHour),
    loopThreshold: positive(protections.loop_threshold, DEFAULT_LIMITS.loopThreshold) ?? DEFAULT_LIMITS.loopThreshold,
    loopWindowSeconds: positive(protections.loop_window_seconds, DEFAULT_LIMITS.loopWindowSeconds) ?? DEFAULT_LIMITS.loopWindowSeconds,
    maxCallsPerDay: positive(protections.max_calls_per_day, DEFAULT_LIMITS.maxCallsPerDay),
    maxCostUsdPerDay:
      typeof protections.max_cost_usd_per_day === 'number' && Number.isFinite(protections.max_cost_usd_per_day) && protections.max_cost_usd_per_day > 0
        ? protections.max_cost_usd_per_day
        : DEFAULT_LIMITS.maxCostUsdPerDay,
  };
}

export function grantOf(row: CapabilityRow): Grant {
  return {
    id: row.id,
    toolKey: row.tool_key,
    requiresApproval: row.requires_approval === 1,
    maxTaint: taintLevel(row.max_taint),
    constraints: readJsonObject(row.constraints),
    actions: readJsonStrings(row.actions),
  };
}

function factsOf(row: AgentRow, grants: Map<string, Grant>): AgentFacts {
  const declaredTools = readJsonStrings(row.declared_tools);
  const declaredModels = readJsonStrings(row.declared_models);
  const protections = readJsonObject(row.protections);
  const protection = protectionsOf(protections);
  return {
    registered: row.status === 'approved',
    control: row.control,
    declaredTools: row.status === 'approved' ? declaredTools : null,
    declaredModels: row.status === 'approved' ? declaredModels : null,
    dataClasses: readJsonStrings(row.data_classes),
    grants,
    limits: limitsOf(protections),
    protection: protection.words.length > 0 || protection.avoid.length > 0 ? protection : null,
    team: row.owner_team,
    environment: row.environment,
  };
}

interface Sighting {
  /** Epoch milliseconds: turned into text once per flush, not once per call. */
  first: number;
  last: number;
  tools: Set<string>;
  models: Set<string>;
}

export class RegistryDirectory implements AgentDirectory {
  private agents = new Map<string, AgentFacts>();
  private tools = new Map<string, ToolFacts>();
  private revision: string | null = null;
  private sightings = new Map<string, Sighting>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  /** Reads run one after another, so an older read never lands over a newer one. */
  private loads: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly changes?: ChangePublisher,
  ) {}

  async start(): Promise<void> {
    await this.load();
    this.timer = setInterval(() => void this.tick(), SYNC_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
    await this.flushSightings();
  }

  lookup(slug: string): AgentFacts {
    return this.agents.get(slug) ?? UNKNOWN_AGENT;
  }

  tool(key: string): ToolFacts | undefined {
    return this.tools.get(key);
  }

  observe(slug: string, seen: { tool?: string; model?: string }): void {
    const at = this.clock.now().getTime();
    let sighting = this.sightings.get(slug);
    if (sighting === undefined) {
      sighting = { first: at, last: at, tools: new Set(), models: new Set() };
      this.sightings.set(slug, sighting);
    }
    sighting.last = at;
    if (seen.tool !== undefined && sighting.tools.size < 100) sighting.tools.add(seen.tool);
    if (seen.model !== undefined && sighting.models.size < 100) sighting.models.add(seen.model);
  }

  /** After a change made by this process committed: tells the other processes and reads every agent and grant. */
  async reload(): Promise<void> {
    // Announced first: the others read it back while this process does.
    this.changes?.publish('agents');
    await this.load();
  }

  /** Another process announced a change: reloads now (without writing sightings first, as a tick does). */
  async refresh(): Promise<void> {
    await this.load();
  }

  /** Reads every agent and grant, after any read in hand. */
  private load(): Promise<void> {
    const next = this.loads.then(() => this.read());
    this.loads = next.catch(() => undefined);
    return next;
  }

  private async read(): Promise<void> {
    // The revision is read before the rows: rows newer than it only cost one more reload later,
    // while a revision newer than the rows would hide the change until the next one.
    const revision = await readRevision(this.store.db);
    const [agentRows, capabilityRows, toolRows] = await Promise.all([
      loadAgents(this.store.db),
      loadCapabilities(this.store.db),
      loadTools(this.store.db),
    ]);
    const tools = new Map<string, ToolFacts>();
    for (const row of toolRows) {
      const schema = row.json_schema === null ? null : readJsonObject(row.json_schema);
      tools.set(row.key, { key: row.key, jsonSchema: schema, impact: row.impact, outputTrust: row.output_trust });
    }
    this.tools = tools;
    const grantsBySlug = new Map<string, Map<string, Grant>>();
    for (const row of capabilityRows) {
      let grants = grantsBySlug.get(row.agent_slug);
      if (grants === undefined) {
        grants = new Map();
        grantsBySlug.set(row.agent_slug, grants);
      }
      grants.set(row.tool_key, grantOf(row));
    }
    const agents = new Map<string, AgentFacts>();
    for (const row of agentRows) agents.set(row.slug, factsOf(row, grantsBySlug.get(row.slug) ?? new Map()));
    this.agents = agents;
    this.revision = revision?.value ?? null;
  }

  /** Writes the sightings and reloads if another process changed the registry. */
  async tick(): Promise<void> {
    if (this.ticking !== undefined) return;
    this.ticking = (async () => {
      try {
        await this.flushSightings();
        const revision = await readRevision(this.store.db);
        if ((revision?.value ?? null) !== this.revision) await this.load();
      } catch (error) {
        this.onError(error);
      } finally {
        this.ticking = undefined;
      }
    })();
    await this.ticking;
  }

  private async flushSightings(): Promise<void> {
    if (this.sightings.size === 0) return;
    const sightings = this.sightings;
    this.sightings = new Map();
    const now = this.clock.now().toISOString();
    let created = 0;
    for (const [slug, sighting] of sightings) {
      const known = await findSighting(this.store.db, slug);
      if (known === undefined) {
        if (created >= MAX_NEW_PER_TICK || !SLUG.test(slug)) continue;
        created += 1;
        await insertSeenAgent(this.store.db, {
          id: newId('agt'),
          slug,
          name: slug,
          purpose: null,
          owner_email: null,
          owner_team: null,
          environment: null,
          risk_tier: null,
          declared_models: '[]',
          declared_tools: '[]',
          data_classes: '[]',
          framework: null,
          status: 'pending',
          identity_id: null,
          protections: '{}',
          control: 'active',
          control_reason: null,
          control_by: null,
          control_at: null,
          seen_models: writeJson([...sighting.models].sort()),
          seen_tools: writeJson([...sighting.tools].sort()),
          first_seen_at: new Date(sighting.first).toISOString(),
          last_seen_at: new Date(sighting.last).toISOString(),
          created_by: 'traffic',
          created_at: now,
          updated_at: now,
        });
        continue;
      }
      const tools = new Set([...readJsonStrings(known.seen_tools), ...sighting.tools]);
      const models = new Set([...readJsonStrings(known.seen_models), ...sighting.models]);
      await updateSighting(this.store.db, slug, {
        last_seen_at: new Date(sighting.last).toISOString(),
        first_seen_at: known.first_seen_at ?? new Date(sighting.first).toISOString(),
        seen_tools: writeJson([...tools].sort().slice(0, 500)),
        seen_models: writeJson([...models].sort().slice(0, 500)),
      });
    }
    // Pending agents are not registered, so the pipeline's view does not change: no revision bump.
  }
}
