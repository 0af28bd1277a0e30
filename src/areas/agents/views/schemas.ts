// Wire shapes of the computed agent views: lineage, posture and protections (spec 02 "Agents").
import { Type, type Static } from 'typebox';
import { Body, Nullable, StringEnum, Timestamp } from '../../../infra/http/schemas.js';
import { AGENT_STATUSES, CONTROL_STATES } from '../schemas.js';

export { AgentSlugParams } from '../schemas.js';

export const LineageQuery = Type.Object({
  depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 5, description: 'hops walked each way from the agent' })),
});

const Chain = Type.Array(Type.String(), { description: 'slugs in delegation order' });

export const LineageSchema = Type.Object({
  agent: Type.String(),
  depth: Type.Integer(),
  days: Type.Integer({ description: 'days of agent messages the edges come from' }),
  upstream: Type.Array(Chain, { description: 'chains of agents that delegated to this one, each ending at it' }),
  downstream: Type.Array(Chain, { description: 'chains this agent delegated to, each starting at it' }),
  edges: Type.Array(
    Type.Object({ from: Type.String(), to: Type.String(), messages: Type.Integer(), last_at: Timestamp }),
    { description: 'sender → recipient pairs walked, with their message counts' },
  ),
  max_depth: Type.Integer({ description: 'hops of the deepest chain through the agent (deepest upstream plus deepest downstream)' }),
  max_allowed_depth: Type.Integer({ description: 'deeper chains raise delegation_depth' }),
  cycles: Type.Array(Chain, { description: 'each loop once, closed: [a, b, a] means a → b → a; raises delegation_cycle' }),
  truncated: Type.Boolean({ description: 'a bound (edges loaded, chains listed, steps walked) cut the walk short' }),
});

const Counts = <K extends string>(keys: readonly K[]) =>
  Type.Object(Object.fromEntries(keys.map((key) => [key, Type.Integer()])) as Record<K, ReturnType<typeof Type.Integer>>);

export const PostureSchema = Type.Object({
  agent: Type.String(),
  registered: Type.Boolean(),
  status: StringEnum(AGENT_STATUSES),
  control: StringEnum(CONTROL_STATES),
  owner: Nullable(Type.String()),
  risk_tier: Nullable(Type.String()),
  grants: Counts(['total', 'wildcard', 'requiring_approval', 'without_max_taint'] as const),
  credentials: Counts(['active', 'expiring_within_7_days', 'never_used'] as const),
  signing_key: Type.Boolean({ description: 'the agent has a current key for signing its messages' }),
  decisions_7d: Counts(['allow', 'block', 'escalate'] as const),
  open_findings: Counts(['critical', 'high', 'medium', 'low'] as const),
  score: Type.Integer({ minimum: 0, maximum: 100 }),
  grade: StringEnum(['A', 'B', 'C', 'D', 'F'] as const),
  gaps: Type.Array(Type.String(), { description: 'each deduction from 100, with its points; informational items say (no deduction)' }),
});

// Topic words, comma-separated: checked term by term in the service (each 1..100 characters).
const Topics = (description: string) => Nullable(Type.String({ minLength: 1, maxLength: 20_000, description }));

export const ProtectionBody = Body({
  protections: Type.Optional(
    Nullable(
      Type.Object(
        {
          max_tool_calls_per_hour: Type.Optional(Nullable(Type.Integer({ minimum: 1, description: 'tool calls per agent per hour (budget_exhausted beyond)' }))),
          loop_threshold: Type.Optional(Nullable(Type.Integer({ minimum: 2, description: 'identical tool calls within the window that make a loop' }))),
          loop_window_seconds: Type.Optional(Nullable(Type.Integer({ minimum: 1, description: 'window of the loop check' }))),
          max_calls_per_day: Type.Optional(Nullable(Type.Integer({ minimum: 1, description: 'proxied model calls per agent per UTC day (budget_exhausted beyond)' }))),
          max_cost_usd_per_day: Type.Optional(
            Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000, description: 'model cost in USD per agent per UTC day, priced by model_prices (budget_exhausted once reached)' })),
          ),
        },
        {
          additionalProperties: true,
          maxProperties: 100,
          description: 'limits the gateway enforces (above) and other keys kept as given; a key given as null is removed, null removes every key',
        },
      ),
    ),
  ),
  message: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 1000, description: 'the refusal text shown when a protection blocks' }))),
  words: Type.Optional(
    Nullable(
      Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }), {
        maxItems: 200,
        description: 'terms blocked as whole words, case-insensitive',
      }),
    ),
  ),
  avoid: Type.Optional(Topics('comma-separated topic words the agent must not discuss (each 1..100 characters)')),
  allowed: Type.Optional(Topics('comma-separated topic words the agent may discuss (each 1..100 characters)')),
});
export type ProtectionBody = Static<typeof ProtectionBody>;

export const ProtectionSchema = Type.Object({
  agent: Type.String(),
  protections: Type.Record(Type.String(), Type.Unknown()),
  message: Nullable(Type.String()),
  words: Type.Array(Type.String()),
  avoid: Nullable(Type.String()),
  allowed: Nullable(Type.String()),
  limits: Type.Object(
    {
      max_tool_calls_per_hour: Nullable(Type.Integer()),
      loop_threshold: Type.Integer(),
      loop_window_seconds: Type.Integer(),
      max_calls_per_day: Nullable(Type.Integer()),
      max_cost_usd_per_day: Nullable(Type.Number()),
    },
    { description: 'the limits the gateway enforces for the agent, defaults included' },
  ),
});
export type Protection = Static<typeof ProtectionSchema>;

export const PreviewSchema = Type.Object({
  agent: Type.String(),
  days: Type.Integer(),
  replayed: Type.Integer({ description: 'input and output decisions replayed (content recorded)' }),
  skipped_without_content: Type.Integer({ description: 'decisions whose content was not recorded (record_content: none)' }),
  would_block: Type.Integer(),
  newly_blocked: Type.Integer({ description: 'would block, and were not blocked then' }),
  truncated: Type.Boolean({ description: 'more decisions than the replay limit fell in the window' }),
  examples: Type.Array(
    Type.Object({
      decision_id: Type.String(),
      surface: Type.String(),
      term: Type.String(),
      verdict_then: Type.String(),
    }),
  ),
});
