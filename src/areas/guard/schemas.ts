// Wire shapes of the guard endpoints (spec 01 §4 "Body fields") and of the Decision (§2.1).
import { Type, type Static } from 'typebox';
import { SURFACES } from '../../engine/detectors/types.js';
import { Body, Nullable, StringEnum } from '../../infra/http/schemas.js';

/** A guard check may carry up to 1 MB of text; the route's body limit leaves room for JSON escaping. */
export const MAX_CONTENT_CHARS = 1_048_576;
export const GUARD_BODY_LIMIT = 8 * 1_048_576;

const Name = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const Content = Type.String({ maxLength: MAX_CONTENT_CHARS, description: 'the text to check' });
const Short = Type.String({ maxLength: 500 });
const Provenance = Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 100 }), {
  description: 'argument name → origin label (user, retrieved, tool_result, agent_message, memory_write, …)',
});

export const SurfaceSchema = StringEnum(SURFACES);

export const GuardContentBody = Body({
  agent: Name('the agent making the call'),
  content: Content,
  surface: Type.Optional(SurfaceSchema),
  taint_source: Type.Optional(SurfaceSchema),
  intent: Type.Optional(Short),
  session_id: Type.Optional(Short),
  trace_id: Type.Optional(Short),
  environment: Type.Optional(Short),
  context: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 200 })),
  completion: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'observed facts for a completion check' })),
}, { bodyLimit: GUARD_BODY_LIMIT });
export type GuardContentBody = Static<typeof GuardContentBody>;

export const GuardToolCallBody = Body({
  agent: Name('the agent making the call'),
  tool: Name('the tool about to run'),
  arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  provenance: Type.Optional(Provenance),
  intent: Type.Optional(Short),
  prior_tools: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 1000 })),
  prior_steps: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 1000 })),
  session_id: Type.Optional(Short),
  environment: Type.Optional(Short),
  approval_id: Type.Optional(Short),
}, { bodyLimit: GUARD_BODY_LIMIT });
export type GuardToolCallBody = Static<typeof GuardToolCallBody>;

export const GuardMemoryWriteBody = Body({
  agent: Name('the agent writing to memory'),
  content: Content,
  subject: Type.Optional(Short),
  taint_source: Type.Optional(SurfaceSchema),
  provenance: Type.Optional(Provenance),
  verified_by: Type.Optional(Short),
  ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 315_360_000 })),
  session_id: Type.Optional(Short),
}, { bodyLimit: GUARD_BODY_LIMIT });
export type GuardMemoryWriteBody = Static<typeof GuardMemoryWriteBody>;

export const GuardAgentMessageBody = Body({
  sender: Name('the agent sending the message'),
  content: Content,
  recipient: Type.Optional(Type.String({ maxLength: 200 })),
  nonce: Type.Optional(Short),
  timestamp: Type.Optional(Type.Number()),
  signature: Type.Optional(Short),
  session_id: Type.Optional(Short),
}, { bodyLimit: GUARD_BODY_LIMIT });
export type GuardAgentMessageBody = Static<typeof GuardAgentMessageBody>;

const Verdict = StringEnum(['allow', 'block', 'escalate']);
const ModeSchema = StringEnum(['observe', 'enforce']);

const FiredRuleSchema = Type.Object({
  rule_id: Type.String(),
  pack: Type.String(),
  effect: Type.String(),
  mode: ModeSchema,
  message: Type.String(),
  entity: Type.Optional(Type.String()),
  score: Type.Optional(Type.Number()),
  detector: Type.Optional(Type.String()),
  span: Type.Optional(Type.Object({ start: Type.Integer(), end: Type.Integer() })),
  approved_by: Type.Optional(Type.String({ description: 'the approval that satisfied this escalation' })),
});

const ToolCallFactsSchema = Type.Object(
  {
    taint: Type.Object({
      level: StringEnum(['trusted', 'untrusted', 'hostile']),
      sources: Type.Record(Type.String(), Type.String(), { description: 'argument → where its taint came from' }),
    }),
    capability: Type.Object({
      outcomes: Type.Array(Type.String()),
      grant_id: Nullable(Type.String()),
      problems: Type.Array(Type.String()),
    }),
    action: Nullable(
      Type.Object({
        kinds: Type.Array(Type.String()),
        destructive: Type.Boolean(),
        blast_radius: StringEnum(['none', 'narrow', 'broad', 'total']),
        unanalysable: Type.Array(Type.String()),
        escalation: Nullable(Type.Object({ chain: Type.Array(Type.String()), reason: Type.String() })),
        findings: Type.Array(
          Type.Object({ kind: Type.String(), argument: Type.String(), radius: Type.String(), reason: Type.String() }),
        ),
      }),
    ),
    loop: Type.Object({ detected: Type.Boolean(), repeats: Type.Integer() }),
    budget: Type.Object({ exceeded: Type.Boolean(), used: Nullable(Type.Integer()), limit: Nullable(Type.Integer()) }),
    approval: Type.Optional(
      Type.Object({ id: Type.String(), outcome: StringEnum(['used', 'not_valid']), why: Type.Optional(Type.String()) }),
    ),
  },
  { description: 'tool calls: taint, capability check, action analysis, loop and budget state' },
);

export const DecisionSchema = Type.Object({
  decision_id: Type.String(),
  verdict: Verdict,
  effective_verdict: Verdict,
  mode: ModeSchema,
  rules_fired: Type.Array(FiredRuleSchema),
  reason: Type.String(),
  explanation: Type.Object({
    decisive: Nullable(FiredRuleSchema),
    detectors: Type.Array(
      Type.Object({
        key: Type.String(),
        status: StringEnum(['ok', 'timeout', 'skipped_budget', 'error']),
        matched: Type.Boolean(),
        ms: Type.Number(),
        cached: Type.Optional(Type.Boolean({ description: 'true when the result came from the detection cache (same text, surface and detectors); ms is then 0' })),
      }),
    ),
    dispute: Type.Object({ endpoint: Type.String(), decision_id: Type.String() }),
    tool_call: Type.Optional(ToolCallFactsSchema),
    action_risk: Type.Optional(
      Type.Array(
        Type.Object({ signal: Type.String(), score: Type.Number(), slope: Type.Number(), latest: Type.Number(), turns: Type.Integer() }),
        { description: 'conversation-level risk signals, e.g. crescendo.trajectory_drift: gradual escalation over the session\'s recent input turns (needs session_id)' },
      ),
    ),
  }),
  entities: Type.Array(Type.String()),
  degraded: Type.Array(Type.String()),
  transformed_content: Type.Optional(Type.String()),
  approval_id: Type.Optional(Type.String()),
});
