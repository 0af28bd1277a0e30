// agents: the registered (approved) agents with their owner, purpose, declarations and protections
// (limits, budgets, words, topics, refusal message). Applied through AgentService (register, patch,
// reject) and AgentViewService (protections). A delete rejects the agent: its credentials stop working.
import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../../infra/http/schemas.js';
import { readJsonObject } from '../../../infra/store/json-columns.js';
import { listAllAgents } from '../../agents/store.js';
import { RISK_TIERS, SLUG_PATTERN, type CreateAgentBody, type PatchAgentBody } from '../../agents/schemas.js';
import type { ProtectionBody } from '../../agents/views/schemas.js';
import type { WorkspaceTargets } from './targets.js';
import { byKey, sortedStrings, touches, withoutEmpty, type Item, type ResourceKind } from './types.js';

const Names = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 500, description });
const PROTECTION_TEXT = ['message', 'words', 'avoid', 'allowed'] as const;
/** Set when the agent is registered; no route changes them afterwards. */
const FIXED_AT_REGISTRATION = ['name', 'environment', 'declared_models', 'declared_tools', 'data_classes', 'framework'];
const PATCHABLE = ['owner_email', 'owner_team', 'risk_tier', 'purpose'] as const;

const ProtectionsSchema = Type.Object(
  {
    max_tool_calls_per_hour: Type.Optional(Type.Integer({ minimum: 1, description: 'tool calls per hour (budget_exhausted beyond)' })),
    loop_threshold: Type.Optional(Type.Integer({ minimum: 2 })),
    loop_window_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    max_calls_per_day: Type.Optional(Type.Integer({ minimum: 1, description: 'proxied model calls per UTC day' })),
    max_cost_usd_per_day: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000, description: 'model cost in USD per UTC day' })),
    message: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'the refusal text shown when a protection blocks' })),
    words: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }), { maxItems: 200, description: 'terms blocked as whole words' })),
    avoid: Type.Optional(Type.String({ minLength: 1, maxLength: 20_000, description: 'comma-separated topics the agent must not discuss' })),
    allowed: Type.Optional(Type.String({ minLength: 1, maxLength: 20_000, description: 'comma-separated topics the agent keeps to' })),
  },
  {
    additionalProperties: true,
    maxProperties: 100,
    description: 'the limits and budgets the gateway enforces, the refusal message, blocked words and topics (other keys kept as given)',
  },
);

export const AgentItem = Type.Object(
  {
    slug: Type.String({ pattern: SLUG_PATTERN, maxLength: 64 }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    purpose: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    owner_email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 320 }))),
    owner_team: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    environment: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    risk_tier: Type.Optional(Nullable(StringEnum(RISK_TIERS))),
    declared_models: Type.Optional(Names('models the agent is declared to use')),
    declared_tools: Type.Optional(Names('tool keys the agent is declared to call (a granted tool is declared too)')),
    data_classes: Type.Optional(Names('classes of data the agent handles')),
    framework: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    protections: Type.Optional(ProtectionsSchema),
    comment: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export function agentsKind(targets: WorkspaceTargets): ResourceKind {
  const kind: ResourceKind = {
    name: 'agents',
    itemSchema: AgentItem,
    description: 'registered agents, keyed by slug',
    key: (item) => String(item.slug),

    async current() {
      const rows = await listAllAgents(targets.store.db);
      const items = rows
        .filter((row) => row.status === 'approved')
        .map((row) => {
          const agent = targets.agents.toWire(row);
          const protections = readJsonObject(row.protections);
          return withoutEmpty({
            slug: agent.slug,
            name: agent.name,
            purpose: agent.purpose,
            owner_email: agent.owner_email,
            owner_team: agent.owner_team,
            environment: agent.environment,
            risk_tier: agent.risk_tier,
            declared_models: sortedStrings(agent.declared_models),
            declared_tools: sortedStrings(agent.declared_tools),
            data_classes: sortedStrings(agent.data_classes),
            framework: agent.framework,
            ...(Object.keys(protections).length === 0 ? {} : { protections }),
          });
        });
      return byKey(kind, items);
    },

    normalise(item, document) {
      const normalised: Item = { ...item };
      for (const field of ['declared_models', 'data_classes'] as const) if (item[field] !== undefined) normalised[field] = sortedStrings(item[field]);
      if (item.declared_tools !== undefined) {
        // Granting a tool declares it: the grants of the document are declared as well.
        const granted = (document.grants ?? []).filter((grant) => grant.agent === item.slug && grant.tool_key !== '*').map((grant) => String(grant.tool_key));
        normalised.declared_tools = sortedStrings([...(item.declared_tools as string[]), ...granted]);
      }
      return normalised;
    },

    blocked(change) {
      if (change.action !== 'change') return null;
      const fixed = touches(change.fields, FIXED_AT_REGISTRATION);
      return fixed.length === 0 ? null : `${fixed.join(', ')} cannot change once the agent is registered (no route changes them)`;
    },

    async apply(change, { caller }) {
      const slug = change.key;
      if (change.action === 'delete') {
        await targets.agents.reject(caller, slug, 'removed from the workspace document');
        return;
      }
      const desired = change.desired as Item;
      if (change.action === 'create') {
        const { protections: _protections, comment: _comment, ...fields } = desired;
        await targets.agents.register(caller, withoutEmpty(fields) as CreateAgentBody);
      } else {
        const patch: Record<string, unknown> = {};
        for (const field of PATCHABLE) if (touches(change.fields, [field]).length > 0) patch[field] = desired[field] ?? null;
        if (Object.keys(patch).length > 0) await targets.agents.patch(caller, slug, patch as PatchAgentBody);
      }
      const wanted = desired.protections as Item | undefined;
      if (wanted !== undefined && (change.action === 'create' || touches(change.fields, ['protections']).length > 0)) {
        const stored = (change.current?.protections as Item | undefined) ?? {};
        await targets.agentViews.setProtection(caller, slug, protectionBody(wanted, stored));
      }
    },
  };
  return kind;
}

/** The body that makes the stored protections exactly `wanted`: keys it leaves out are removed (null). */
function protectionBody(wanted: Item, stored: Item): ProtectionBody {
  const body: Record<string, unknown> = {};
  const limits: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(wanted)) {
    if ((PROTECTION_TEXT as readonly string[]).includes(key)) body[key] = value;
    else limits[key] = value;
  }
  for (const key of Object.keys(stored)) {
    if (key in wanted) continue;
    if ((PROTECTION_TEXT as readonly string[]).includes(key)) body[key] = null;
    else limits[key] = null;
  }
  if (Object.keys(limits).length > 0) body.protections = limits;
  return body as ProtectionBody;
}
