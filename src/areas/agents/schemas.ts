// Wire shapes of the agent registry, access grants and agent controls (spec 02 "Agents").
import { Type, type Static } from 'typebox';
import { Body, ListOf, ListQuery, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const SLUG_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$';
const Slug = Type.String({ pattern: SLUG_PATTERN, description: 'lower-case letters, digits, dot, dash, underscore; 1-64' });
const Names = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 500, description });
export const RISK_TIERS = ['low', 'medium', 'high', 'critical'] as const;
export const AGENT_STATUSES = ['approved', 'pending', 'rejected'] as const;
export const CONTROL_STATES = ['active', 'quarantined', 'killed'] as const;

export const ControlSchema = Type.Object({
  state: StringEnum(CONTROL_STATES),
  reason: Nullable(Type.String()),
  by: Nullable(Type.String()),
  at: NullableTimestamp,
});

export const AgentSchema = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  purpose: Nullable(Type.String()),
  owner_email: Nullable(Type.String()),
  owner_team: Nullable(Type.String()),
  environment: Nullable(Type.String()),
  risk_tier: Nullable(Type.String()),
  declared_models: Type.Array(Type.String()),
  declared_tools: Type.Array(Type.String()),
  data_classes: Type.Array(Type.String()),
  framework: Nullable(Type.String()),
  status: StringEnum(AGENT_STATUSES, { description: 'approved agents are registered; pending ones were only seen in traffic' }),
  registered: Type.Boolean(),
  identity_id: Nullable(Type.String()),
  control: ControlSchema,
  seen_models: Type.Array(Type.String()),
  seen_tools: Type.Array(Type.String()),
  first_seen_at: NullableTimestamp,
  last_seen_at: NullableTimestamp,
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Agent = Static<typeof AgentSchema>;

export const CreateAgentBody = Body({
  slug: Slug,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  purpose: Type.Optional(Type.String({ maxLength: 2000 })),
  owner_email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
  owner_team: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  risk_tier: Type.Optional(StringEnum(RISK_TIERS)),
  declared_models: Type.Optional(Names('models the agent is declared to use')),
  declared_tools: Type.Optional(Names('tool keys the agent is declared to call')),
  data_classes: Type.Optional(Names('classes of data the agent handles, e.g. pii, financial')),
  framework: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});
export type CreateAgentBody = Static<typeof CreateAgentBody>;

export const CreatedAgentSchema = Type.Object({ ...AgentSchema.properties, identity_id: Type.String() });

export const PatchAgentBody = Body({
  owner_email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 320 }))),
  owner_team: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  risk_tier: Type.Optional(Nullable(StringEnum(RISK_TIERS))),
  purpose: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
});
export type PatchAgentBody = Static<typeof PatchAgentBody>;

export const ListAgentsQuery = Type.Object({
  ...ListQuery.properties,
  registered: Type.Optional(Type.Boolean({ description: 'true: approved agents; false: agents only seen in traffic or rejected' })),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});
export type ListAgentsQuery = Static<typeof ListAgentsQuery>;
export const AgentList = ListOf(AgentSchema);

export const AgentSlugParams = Type.Object({ slug: Slug });
export const AgentIdParams = Type.Object({
  agent_id: Type.String({ minLength: 1, maxLength: 100, description: 'the agent id (agt_…) or its slug' }),
});
export const DecideAgentBody = Body({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })) });

// Grants (capabilities): one per agent and tool key.
export const TAINT_LEVELS = ['trusted', 'untrusted', 'hostile'] as const;
const MaxTaint = Type.String({
  pattern: '^(trusted|untrusted|hostile|0(\\.\\d+)?|1(\\.0+)?)$',
  description:
    'the most tainted arguments the grant accepts: trusted (0, only user or operator content), untrusted (0.5, content from documents, tools, memory or other agents), hostile (1, untrusted content that carried an injection), or a number from 0 to 1',
});

export const CapabilitySchema = Type.Object({
  id: Type.String(),
  agent: Type.String(),
  identity_id: Type.String(),
  tool_key: Type.String(),
  requires_approval: Type.Boolean(),
  max_taint: Nullable(Type.String()),
  constraints: Type.Record(Type.String(), Type.Unknown()),
  actions: Type.Array(Type.String()),
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Capability = Static<typeof CapabilitySchema>;

export const GrantBody = Body({
  tool_key: Type.String({ minLength: 1, maxLength: 200, description: 'a tool key, or * for every tool (raises over_privileged)' }),
  requires_approval: Type.Optional(Type.Boolean()),
  max_taint: Type.Optional(Nullable(MaxTaint)),
  constraints: Type.Optional(
    Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.Unknown(), {
      description:
        'per argument: a value it must equal, a list it must be one of, or {one_of, min, max, prefix}; `hosts` lists the hosts URL arguments may name',
    }),
  ),
  actions: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 50 }), {
      maxItems: 50,
      description: 'what the grant allows: read, write, delete, execute, admin (empty: any)',
    }),
  ),
});
export type GrantBody = Static<typeof GrantBody>;

export const ProposedGrantSchema = Type.Object({
  tool_key: Type.String(),
  calls: Type.Integer(),
  blocked_calls: Type.Integer(),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
  why: Type.String(),
  grant: Type.Object(
    {
      tool_key: Type.String(),
      requires_approval: Type.Boolean(),
      max_taint: Nullable(Type.String()),
      actions: Type.Array(Type.String()),
    },
    { description: 'the body to POST to /api/agents/{slug}/access to approve this proposal in one step' },
  ),
});

export const AccessSchema = Type.Object({
  agent: Type.String(),
  identity_id: Nullable(Type.String()),
  days: Type.Integer(),
  grants: Type.Array(CapabilitySchema),
  proposed: Type.Array(ProposedGrantSchema),
});
export const AccessQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 7, description: 'days of observed traffic to propose from' })),
});
export const CapabilityParams = Type.Object({
  slug: Slug,
  capability_id: Type.String({ minLength: 1, maxLength: 100 }),
});

export const StopBody = Body({ reason: Type.String({ minLength: 1, maxLength: 2000 }) });
export const AgentControlSchema = Type.Object({
  agent: Type.String(),
  registered: Type.Boolean(),
  ...ControlSchema.properties,
});
export const AgentControlList = Type.Object({ items: Type.Array(AgentControlSchema) });
