// The agent registry, access grants and agent controls. Every change is audited in the same
// transaction, marks the registry revision (so every process reloads its view), and is visible
// to this process's pipeline before the answer leaves.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import type { CredentialService } from '../credentials/service.js';
import { findingType, type Severity } from '../../engine/findings/catalog.js';
import { fingerprint } from '../../engine/findings/fingerprint.js';
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { FindingUpsert, Recorder } from '../../engine/recording/recorder.js';
import type { Store } from '../../infra/store/db.js';
import { readJsonObject, readJsonStrings, writeJson } from '../../infra/store/json-columns.js';
import type { AgentRow, CapabilityRow } from '../../infra/store/tables.js';
import type { RegistryDirectory } from './directory.js';
import type { Agent, Capability, CreateAgentBody, GrantBody, ListAgentsQuery, PatchAgentBody } from './schemas.js';
import * as agents from './store.js';

const DAY_MS = 86_400_000;
/** Tool keys whose calls change or send things: a proposal for them asks for approval per call. */
export const HIGH_IMPACT_TOOL = /delete|drop|remove|destroy|transfer|pay|refund|wire|send|email|post|publish|deploy|exec|shell|sql|write|update|grant/i;

export interface AgentServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  recorder: Recorder;
  directory: RegistryDirectory;
  credentials: CredentialService;
  /** The impact an operator recorded for a tool (tool registry), if any. */
  toolImpact?: (toolKey: string) => Promise<string | null>;
}

export class AgentService {
  constructor(private readonly deps: AgentServiceDeps) {}

  toWire(row: AgentRow): Agent {
    return {
      id: row.id,
      slug: row.slug,
      name: row.name,
      purpose: row.purpose,
      owner_email: row.owner_email,
      owner_team: row.owner_team,
      environment: row.environment,
      risk_tier: row.risk_tier,
      declared_models: readJsonStrings(row.declared_models),
      declared_tools: readJsonStrings(row.declared_tools),
      data_classes: readJsonStrings(row.data_classes),
      framework: row.framework,
      status: row.status,
      registered: row.status === 'approved',
      identity_id: row.identity_id,
      control: { state: row.control, reason: row.control_reason, by: row.control_by, at: row.control_at },
      seen_models: readJsonStrings(row.seen_models),
      seen_tools: readJsonStrings(row.seen_tools),
      first_seen_at: row.first_seen_at,
      last_seen_at: row.last_seen_at,
      created_by: row.created_by,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  capabilityToWire(row: CapabilityRow): Capability {
    return {
      id: row.id,
      agent: row.agent_slug,
      identity_id: row.identity_id,
      tool_key: row.tool_key,
      requires_approval: row.requires_approval === 1,
      max_taint: row.max_taint,
      constraints: readJsonObject(row.constraints),
      actions: readJsonStrings(row.actions),
      created_by: row.created_by,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  async list(query: ListAgentsQuery): Promise<{ items: Agent[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const rows = await agents.listAgents(this.deps.store.db, {
      limit: limit + 1,
      ...(query.registered === undefined ? {} : { registered: query.registered }),
      ...(query.environment === undefined ? {} : { environment: query.environment }),
      ...(query.cursor === undefined ? {} : { before: decodeCursor(query.cursor) }),
    });
    const page = pageOf(rows, limit);
    return { items: page.items.map((row) => this.toWire(row)), next_cursor: page.next_cursor };
  }

  async get(slug: string): Promise<Agent> {
    return this.toWire(await this.require(slug));
  }

  /**
   * Registers an approved agent and creates its identity. A name first seen in traffic (pending)
   * or rejected earlier is registered in place, keeping what traffic taught about it.
   */
  async register(caller: Principal, body: CreateAgentBody): Promise<Agent & { identity_id: string }> {
    const actor = actorOf(caller);
    const now = this.now();
    const existing = await agents.findAgentBySlug(this.deps.store.db, body.slug);
    if (existing?.status === 'approved') throw problem('conflict', `agent ${body.slug} is already registered`);
    const identityId = existing?.identity_id ?? newId('idn');
    const row: AgentRow = {
      id: existing?.id ?? newId('agt'),
      slug: body.slug,
      name: body.name ?? existing?.name ?? body.slug,
      purpose: body.purpose ?? existing?.purpose ?? null,
      owner_email: body.owner_email ?? existing?.owner_email ?? null,
      owner_team: body.owner_team ?? existing?.owner_team ?? null,
      environment: body.environment ?? existing?.environment ?? null,
      risk_tier: body.risk_tier ?? existing?.risk_tier ?? null,
      declared_models: writeJson(body.declared_models ?? readJsonStrings(existing?.declared_models)),
      declared_tools: writeJson(body.declared_tools ?? readJsonStrings(existing?.declared_tools)),
      data_classes: writeJson(body.data_classes ?? readJsonStrings(existing?.data_classes)),
      framework: body.framework ?? existing?.framework ?? null,
      status: 'approved',
      identity_id: identityId,
      protections: existing?.protections ?? '{}',
      control: existing?.control ?? 'active',
      control_reason: existing?.control_reason ?? null,
      control_by: existing?.control_by ?? null,
      control_at: existing?.control_at ?? null,
      seen_models: existing?.seen_models ?? '[]',
      seen_tools: existing?.seen_tools ?? '[]',
      first_seen_at: existing?.first_seen_at ?? null,
      last_seen_at: existing?.last_seen_at ?? null,
      created_by: existing?.created_by ?? actor,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    await this.deps.audit.transact(async (trx, append) => {
      if (existing === undefined) await agents.insertAgent(trx, row);
      else {
        // Only a pending or rejected row may be registered in place; a concurrent registration lost.
        const { id: _id, slug: _slug, ...changes } = row;
        await agents.updateAgent(trx, row.slug, changes);
      }
      if ((await agents.findIdentity(trx, identityId)) === undefined) {
        await agents.insertIdentity(trx, { id: identityId, agent_slug: row.slug, owner: ownerOf(row), created_at: now, updated_at: now });
      }
      await agents.bumpRevision(trx, now);
      await append({
        actor,
        action: 'agent.register',
        target: row.slug,
        detail: { agent_id: row.id, identity_id: identityId, previous_status: existing?.status ?? null },
      });
    });
    await this.deps.directory.reload();
    this.raiseOwnership(row, identityId);
    return { ...this.toWire(row), identity_id: identityId };
  }

  async patch(caller: Principal, slug: string, body: PatchAgentBody): Promise<Agent> {
    const row = await this.require(slug);
    const changes: Partial<AgentRow> = { updated_at: this.now() };
    if (body.owner_email !== undefined) changes.owner_email = body.owner_email;
    if (body.owner_team !== undefined) changes.owner_team = body.owner_team;
    if (body.risk_tier !== undefined) changes.risk_tier = body.risk_tier;
    if (body.purpose !== undefined) changes.purpose = body.purpose;
    const updated: AgentRow = { ...row, ...changes };
    await this.deps.audit.transact(async (trx, append) => {
      await agents.updateAgent(trx, slug, changes);
      if (updated.identity_id !== null) {
        await agents.setIdentityOwner(trx, updated.identity_id, ownerOf(updated), changes.updated_at as string);
      }
      await append({ actor: actorOf(caller), action: 'agent.update', target: slug, detail: { changes: body } });
    });
    this.raiseOwnership(updated, updated.identity_id);
    return this.toWire(updated);
  }

  async approve(caller: Principal, idOrSlug: string, reason?: string): Promise<Agent> {
    const row = await agents.findAgentByIdOrSlug(this.deps.store.db, idOrSlug);
    if (row === undefined) throw notFound('agent', idOrSlug);
    if (row.status === 'approved') throw problem('conflict', `agent ${row.slug} is already approved`);
    const registered = await this.register(caller, { slug: row.slug });
    if (reason !== undefined) {
      await this.deps.audit.append({ actor: actorOf(caller), action: 'agent.approve', target: row.slug, detail: { reason } });
    }
    return registered;
  }

  /** Rejects an agent: it stays unregistered, and any credential its identity holds stops working. */
  async reject(caller: Principal, idOrSlug: string, reason?: string): Promise<Agent> {
    const row = await agents.findAgentByIdOrSlug(this.deps.store.db, idOrSlug);
    if (row === undefined) throw notFound('agent', idOrSlug);
    if (row.status === 'rejected') throw problem('conflict', `agent ${row.slug} is already rejected`);
    const now = this.now();
    const revokedHashes: string[] = [];
    await this.deps.audit.transact(async (trx, append) => {
      await agents.updateAgent(trx, row.slug, { status: 'rejected', updated_at: now });
      const active = await agents.unrevokedCredentials(trx, row.slug);
      if (active.length > 0) {
        await agents.revokeCredentialsOf(trx, row.slug, now);
        revokedHashes.push(...active.map((credential) => credential.secret_hash));
      }
      await agents.bumpRevision(trx, now);
      await append({
        actor: actorOf(caller),
        action: 'agent.reject',
        target: row.slug,
        detail: { reason: reason ?? null, credentials_revoked: active.map((credential) => credential.id) },
      });
    });
    this.deps.credentials.forgetHashes(revokedHashes);
    await this.deps.directory.reload();
    return this.toWire({ ...row, status: 'rejected', updated_at: now });
  }

  // Grants ------------------------------------------------------------------------------------

  async grants(slug: string): Promise<Capability[]> {
    await this.require(slug);
    return (await agents.listCapabilities(this.deps.store.db, slug)).map((row) => this.capabilityToWire(row));
  }

  /** Grants a tool or changes the one grant for it; returns the grant and whether it is new. */
  async grant(caller: Principal, slug: string, body: GrantBody): Promise<{ created: boolean; capability: Capability }> {
    const agent = await this.require(slug);
    if (agent.status !== 'approved' || agent.identity_id === null) {
      throw problem('conflict', `agent ${slug} is not registered; register it (POST /api/agents) or approve it first`);
    }
    const now = this.now();
    const existing = await agents.findCapability(this.deps.store.db, slug, body.tool_key);
    const row: CapabilityRow = {
      id: existing?.id ?? newId('cap'),
      identity_id: agent.identity_id,
      agent_slug: slug,
      tool_key: body.tool_key,
      requires_approval: (body.requires_approval ?? existing?.requires_approval === 1) ? 1 : 0,
      max_taint: body.max_taint !== undefined ? body.max_taint : (existing?.max_taint ?? null),
      constraints: writeJson(body.constraints ?? readJsonObject(existing?.constraints)),
      actions: writeJson(body.actions ?? readJsonStrings(existing?.actions)),
      created_by: existing?.created_by ?? actorOf(caller),
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    // Granting a tool declares it: an operator who grants it has accepted that the agent uses it.
    const declared = readJsonStrings(agent.declared_tools);
    const declares = row.tool_key !== '*' && !declared.includes(row.tool_key);
    await this.deps.audit.transact(async (trx, append) => {
      await agents.upsertCapability(trx, row);
      if (declares) await agents.updateAgent(trx, slug, { declared_tools: writeJson([...declared, row.tool_key]), updated_at: now });
      await agents.bumpRevision(trx, now);
      await append({
        actor: actorOf(caller),
        action: existing === undefined ? 'grant.create' : 'grant.update',
        target: row.id,
        detail: { agent: slug, tool_key: row.tool_key, requires_approval: row.requires_approval === 1, max_taint: row.max_taint, actions: readJsonStrings(row.actions), constraints: readJsonObject(row.constraints) },
      });
    });
    await this.deps.directory.reload();
    if (row.tool_key === '*') {
      this.raise('over_privileged', slug, [agent.identity_id], `Identity of ${slug} holds a * grant (every tool)`, {
        identity_id: agent.identity_id,
        capability_id: row.id,
        granted_by: actorOf(caller),
      });
    }
    const stored = (await agents.findCapability(this.deps.store.db, slug, body.tool_key)) ?? row;
    return { created: existing === undefined, capability: this.capabilityToWire(stored) };
  }

  async revokeGrant(caller: Principal, slug: string, capabilityId: string): Promise<Capability> {
    await this.require(slug);
    const row = await agents.findCapabilityById(this.deps.store.db, capabilityId);
    if (row === undefined || row.agent_slug !== slug) throw notFound('grant', capabilityId);
    const now = this.now();
    await this.deps.audit.transact(async (trx, append) => {
      if (!(await agents.deleteCapability(trx, capabilityId))) throw notFound('grant', capabilityId);
      await agents.bumpRevision(trx, now);
      await append({ actor: actorOf(caller), action: 'grant.delete', target: capabilityId, detail: { agent: slug, tool_key: row.tool_key } });
    });
    await this.deps.directory.reload();
    return this.capabilityToWire(row);
  }

  /**
   * Grants and, from the agent's tool calls over `days`, the grants it lacks, each with the body
   * that approves it in one POST.
   */
  async access(slug: string, days: number) {
    const agent = await this.require(slug);
    const grants = await agents.listCapabilities(this.deps.store.db, slug);
    const granted = new Set(grants.map((grant) => grant.tool_key));
    const since = new Date(this.deps.clock.now().getTime() - days * DAY_MS).toISOString();
    const observed = await agents.observedToolCalls(this.deps.store.db, slug, since);
    const proposed = [];
    for (const tool of observed) {
      if (granted.has(tool.tool) || granted.has('*')) continue;
      const highImpact = isHighImpact(tool.tool, (await this.deps.toolImpact?.(tool.tool)) ?? null);
      proposed.push({
        tool_key: tool.tool,
        calls: tool.calls,
        blocked_calls: tool.blocked,
        first_seen_at: tool.first_at,
        last_seen_at: tool.last_at,
        why: `${slug} called ${tool.tool} ${tool.calls} time(s) in the last ${days} day(s)${highImpact ? '; its calls change or send things, so each needs a person' : ''}`,
        grant: {
          tool_key: tool.tool,
          requires_approval: highImpact,
          // Arguments taken from documents, tools or other agents stay allowed; those that carried an injection do not.
          max_taint: 'untrusted',
          actions: [],
        },
      });
    }
    return {
      agent: slug,
      identity_id: agent.identity_id,
      days,
      grants: grants.map((row) => this.capabilityToWire(row)),
      proposed,
    };
  }

  // Controls ----------------------------------------------------------------------------------

  /** Kill (every call blocked) or quarantine (calls that act are blocked); reversible by resume. */
  async stop(caller: Principal, slug: string, how: 'killed' | 'quarantined', reason: string): Promise<Agent> {
    const row = await this.require(slug);
    if (row.control === how) throw problem('conflict', `agent ${slug} is already ${how}`);
    const now = this.now();
    const actor = actorOf(caller);
    await this.deps.audit.transact(async (trx, append) => {
      await agents.updateAgent(trx, slug, { control: how, control_reason: reason, control_by: actor, control_at: now, updated_at: now });
      await agents.bumpRevision(trx, now);
      await append({ actor, action: how === 'killed' ? 'agent.kill' : 'agent.quarantine', target: slug, detail: { reason, previous: row.control } });
    });
    await this.deps.directory.reload();
    this.raise(
      'agent_stopped',
      slug,
      [how, now],
      `Agent ${slug} ${how === 'killed' ? 'killed' : 'quarantined'} by ${actor}`,
      { how, reason, by: actor },
      row.status === 'approved',
    );
    return this.toWire({ ...row, control: how, control_reason: reason, control_by: actor, control_at: now, updated_at: now });
  }

  async resume(caller: Principal, slug: string, reason: string): Promise<Agent> {
    const row = await this.require(slug);
    if (row.control === 'active') throw problem('conflict', `agent ${slug} is not stopped`);
    const now = this.now();
    const actor = actorOf(caller);
    await this.deps.audit.transact(async (trx, append) => {
      await agents.updateAgent(trx, slug, { control: 'active', control_reason: reason, control_by: actor, control_at: now, updated_at: now });
      await agents.bumpRevision(trx, now);
      await append({ actor, action: 'agent.resume', target: slug, detail: { reason, previous: row.control } });
    });
    await this.deps.directory.reload();
    return this.toWire({ ...row, control: 'active', control_reason: reason, control_by: actor, control_at: now, updated_at: now });
  }

  async controls() {
    const rows = await agents.listAllAgents(this.deps.store.db);
    return {
      items: rows.map((row) => ({
        agent: row.slug,
        registered: row.status === 'approved',
        state: row.control,
        reason: row.control_reason,
        by: row.control_by,
        at: row.control_at,
      })),
    };
  }

  // Helpers -----------------------------------------------------------------------------------

  private async require(slug: string): Promise<AgentRow> {
    const row = await agents.findAgentBySlug(this.deps.store.db, slug);
    if (row === undefined) throw notFound('agent', slug);
    return row;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  /** unowned_agent and orphaned_identity while a registered agent has no owner. */
  private raiseOwnership(row: AgentRow, identityId: string | null): void {
    if (row.status !== 'approved' || ownerOf(row) !== null) return;
    this.raise('unowned_agent', row.slug, [], `Registered agent ${row.slug} has no owner`, { owner_email: null, owner_team: null });
    if (identityId !== null) {
      this.raise('orphaned_identity', row.slug, [identityId], `Identity ${identityId} of ${row.slug} has no owner`, { identity_id: identityId });
    }
  }

  private raise(type: string, slug: string, parts: string[], title: string, evidence: Record<string, unknown>, registered = true, severity?: Severity): void {
    const subject = registered ? `agent:${slug}` : 'agent:None';
    const finding: FindingUpsert = {
      fingerprint: fingerprint(type, subject, parts),
      type,
      severity: severity ?? findingType(type).default_severity,
      title,
      subject,
      agent: registered ? slug : null,
      at: this.now(),
      evidence: { ...evidence, agent: slug },
      decisionId: null,
    };
    this.deps.recorder.raise([finding]);
  }
}

/** A tool whose calls change or send things: by its registered impact, else by its name. */
export function isHighImpact(toolKey: string, impact: string | null): boolean {
  return impact === 'high' || impact === 'critical' || (impact === null && HIGH_IMPACT_TOOL.test(toolKey));
}

export function ownerOf(row: Pick<AgentRow, 'owner_email' | 'owner_team'>): string | null {
  return row.owner_email ?? row.owner_team ?? null;
}
