// Identities: the one identity each registered agent has, its credentials (minted, rotated with an
// overlap, revoked) and its capabilities (grants, shared with the agent's access routes).
// `sweep()` raises orphaned_identity and stale_identity findings; the gateway runs it hourly.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import type { CredentialResolver } from '../../infra/auth/resolver.js';
import type { RegistryDirectory } from '../agents/directory.js';
import type { AgentService } from '../agents/service.js';
import { findIdentity, listAllCapabilities, listIdentities } from '../agents/store.js';
import type { Capability, GrantBody } from '../agents/schemas.js';
import type { CredentialService } from '../credentials/service.js';
import { findingType } from '../../engine/findings/catalog.js';
import { fingerprint } from '../../engine/findings/fingerprint.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { analyseAction } from '../../engine/pipeline/actions/index.js';
import { taintLevel, taintName } from '../../engine/pipeline/agents.js';
import { actionsOf, checkCapability } from '../../engine/pipeline/capability.js';
import { originLevel } from '../../engine/pipeline/taint.js';
import type { FindingUpsert, Recorder } from '../../engine/recording/recorder.js';
import type { Store } from '../../infra/store/db.js';
import type { AgentCredentialRow, AgentRow, IdentityRow } from '../../infra/store/tables.js';
import { ownerOf } from '../agents/service.js';
import type { CheckBody, Identity } from './schemas.js';
import { activeCredentials, allAgents, allCredentials, findAgentStatus, setCredentialExpiry } from './store.js';

/** An identity none of whose credentials was used for this long is stale. */
export const STALE_AFTER_DAYS = 30;
const DAY_MS = 86_400_000;

export class IdentityService {
  constructor(
    private readonly deps: {
      store: Store;
      audit: AuditLog;
      clock: Clock;
      resolver: CredentialResolver;
      credentials: CredentialService;
      agents: AgentService;
      directory: RegistryDirectory;
      recorder: Recorder;
    },
  ) {}

  async list(): Promise<{ items: Identity[] }> {
    const db = this.deps.store.db;
    const [identities, agents, credentials, capabilities] = await Promise.all([
      listIdentities(db),
      allAgents(db),
      allCredentials(db),
      listAllCapabilities(db),
    ]);
    const agentBySlug = new Map(agents.map((row) => [row.slug, row]));
    return {
      items: identities.map((identity) =>
        this.toWire(
          identity,
          agentBySlug.get(identity.agent_slug),
          credentials.filter((row) => row.identity_id === identity.id),
          capabilities.filter((row) => row.identity_id === identity.id).map((row) => this.deps.agents.capabilityToWire(row)),
        ),
      ),
    };
  }

  async mintCredential(caller: Principal, identityId: string, ttlDays: number | null) {
    const identity = await this.requireActive(identityId);
    return this.deps.credentials.mint({ identityId, agentSlug: identity.agent_slug, ttlDays }, actorOf(caller));
  }

  /**
   * Mints a new credential; the identity's other active credentials keep working for
   * `overlapHours` and then stop, so a deployment can roll over without a gap.
   */
  async rotate(caller: Principal, identityId: string, overlapHours: number, ttlDays: number | null) {
    const identity = await this.requireActive(identityId);
    const now = this.deps.clock.now();
    const until = new Date(now.getTime() + overlapHours * 3_600_000).toISOString();
    const active = await activeCredentials(this.deps.store.db, identityId, now.toISOString());
    const rotated = active.map((row) => ({ id: row.id, expires_at: row.expires_at !== null && row.expires_at < until ? row.expires_at : until }));
    await this.deps.audit.transact(async (trx, append) => {
      for (const { id, expires_at } of rotated) {
        await setCredentialExpiry(trx, id, expires_at);
      }
      await append({
        actor: actorOf(caller),
        action: 'identity.rotate',
        target: identityId,
        detail: { agent: identity.agent_slug, overlap_hours: overlapHours, rotated: rotated.map(({ id }) => id) },
      });
    });
    // This process forgets the old credentials now; others re-read them within auth_cache_ms.
    for (const row of active) this.deps.resolver.forget(row.secret_hash);
    const minted = await this.deps.credentials.mint({ identityId, agentSlug: identity.agent_slug, ttlDays }, actorOf(caller));
    return { ...minted, rotated };
  }

  async grant(caller: Principal, identityId: string, body: GrantBody): Promise<{ created: boolean; capability: Capability }> {
    const identity = await this.require(identityId);
    return this.deps.agents.grant(caller, identity.agent_slug, body);
  }

  /** Would this identity be allowed this tool call? The same capability check as the pipeline's, without recording. */
  async check(identityId: string, body: CheckBody) {
    const identity = await this.require(identityId);
    const agent = this.deps.directory.lookup(identity.agent_slug);
    const args = body.arguments ?? {};
    let taint = 0;
    for (const label of Object.values(body.argument_taint ?? {})) taint = Math.max(taint, taintLevel(label) ?? originLevel(label));
    const analysed = analyseAction({ tool: body.tool_key, arguments: args });
    const actions = body.action !== undefined ? [body.action] : actionsOf(analysed.kinds);
    const check = checkCapability({ agent, tool: body.tool_key, args, actions, taint });
    const reasons: string[] = [];
    if (agent.control !== 'active') reasons.push(`the agent is ${agent.control}`);
    if (check.outcomes.has('denied')) reasons.push(`no grant for ${body.tool_key} (default deny): propose and approve one at /api/agents/${identity.agent_slug}/access`);
    if (check.outcomes.has('not_declared')) reasons.push(`${body.tool_key} is not among the agent's declared tools`);
    if (check.outcomes.has('taint_exceeded')) reasons.push(`arguments are ${taintName(taint)}, above the grant's max_taint`);
    reasons.push(...check.problems);
    const blocked =
      agent.control !== 'active' ||
      ['denied', 'taint_exceeded', 'constraint_violated', 'action_denied'].some((outcome) => check.outcomes.has(outcome as 'denied'));
    const needsPerson = !blocked && (check.outcomes.has('approval_required') || check.outcomes.has('not_declared'));
    if (needsPerson && check.outcomes.has('approval_required')) reasons.push('the grant asks a person to approve each call');
    return {
      identity_id: identityId,
      agent: identity.agent_slug,
      tool_key: body.tool_key,
      allowed: !blocked && !needsPerson,
      outcome: blocked ? ('deny' as const) : needsPerson ? ('approval_required' as const) : ('allow' as const),
      capability: [...check.outcomes].sort(),
      grant_id: check.grant?.id ?? null,
      taint: taintName(taint),
      actions,
      reasons,
    };
  }

  /** Raises orphaned_identity (no owner, or agent rejected) and stale_identity (unused for 30 days). */
  async sweep(): Promise<{ orphaned: number; stale: number }> {
    const { items } = await this.list();
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const findings: FindingUpsert[] = [];
    const raise = (type: string, identity: Identity, title: string, evidence: Record<string, unknown>) => {
      const subject = `agent:${identity.agent}`;
      findings.push({
        fingerprint: fingerprint(type, subject, [identity.id]),
        type,
        severity: findingType(type).default_severity,
        title,
        subject,
        agent: identity.agent,
        at,
        evidence: { ...evidence, identity_id: identity.id, agent: identity.agent },
        decisionId: null,
      });
    };
    let orphaned = 0;
    let stale = 0;
    for (const identity of items) {
      if (identity.status === 'orphaned') {
        orphaned += 1;
        raise('orphaned_identity', identity, `Identity ${identity.id} of ${identity.agent} has no owner`, { owner: identity.owner });
      } else if (identity.status === 'stale') {
        stale += 1;
        raise('stale_identity', identity, `Identity ${identity.id} of ${identity.agent} has not been used for ${STALE_AFTER_DAYS} days`, {
          last_used_at: identity.last_used_at,
        });
      }
    }
    this.deps.recorder.raise(findings);
    return { orphaned, stale };
  }

  private toWire(identity: IdentityRow, agent: AgentRow | undefined, credentials: AgentCredentialRow[], capabilities: Capability[]): Identity {
    const lastUsed = credentials.map((row) => row.last_used_at).filter((value): value is string => value !== null).sort().at(-1) ?? null;
    const owner = agent === undefined ? identity.owner : ownerOf(agent);
    const nowMs = this.deps.clock.now().getTime();
    const since = Date.parse(lastUsed ?? identity.created_at);
    const status = owner === null || agent === undefined || agent.status === 'rejected' ? 'orphaned' : nowMs - since > STALE_AFTER_DAYS * DAY_MS ? 'stale' : 'active';
    return {
      id: identity.id,
      agent: identity.agent_slug,
      owner,
      status,
      created_at: identity.created_at,
      last_used_at: lastUsed,
      credentials: credentials.map((row) => this.deps.credentials.toWire(row)),
      capabilities,
    };
  }

  private async require(identityId: string): Promise<IdentityRow> {
    const identity = await findIdentity(this.deps.store.db, identityId);
    if (identity === undefined) throw notFound('identity', identityId);
    return identity;
  }

  /** Credentials are minted only for an identity whose agent is registered. */
  private async requireActive(identityId: string): Promise<IdentityRow> {
    const identity = await this.require(identityId);
    const agent = await findAgentStatus(this.deps.store.db, identity.agent_slug);
    if (agent?.status !== 'approved') throw problem('conflict', `agent ${identity.agent_slug} is not registered; approve it first`);
    return identity;
  }
}
